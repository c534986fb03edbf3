// Runs `ard-registry` as its own process (the TypeScript source through tsx's require hook, so no build is
// needed), as a user would: for the tests of processes sharing one embedded data folder.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const CLI = path.join(ROOT, 'src', 'cli.ts');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export function cliEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  // The test runner's settings must not leak into the child (NODE_OPTIONS carries jest's VM flag; DATABASE_URL would leave the embedded path).
  const { DATABASE_URL: _db, DATA_DIR: _dir, NODE_OPTIONS: _opts, ...rest } = process.env;
  return { ...rest, LOG_FORMAT: 'json', LOG_LEVEL: 'info', CRAWL_SCHEDULER: 'false', ...extra };
}

/** Starts the CLI; `child` is the process itself (kill -9 reaches it, not a wrapper). */
export function startCli(args: string[], env: Record<string, string>, stdin?: string): { child: ChildProcess; done: Promise<CliResult> } {
  const started = Date.now();
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', CLI, ...args], {
    cwd: ROOT,
    env: cliEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  if (stdin !== undefined) child.stdin!.end(stdin);
  const done = new Promise<CliResult>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr, ms: Date.now() - started }));
  });
  return { child, done };
}

export function runCli(args: string[], env: Record<string, string> = {}, stdin?: string): Promise<CliResult> {
  return startCli(args, env, stdin).done;
}

/** Resolves with the first stdout line matching `pattern` (the server's JSON logs). */
export function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(
      () => reject(new Error(`no output matching ${pattern} within ${timeoutMs} ms: ${buffered.slice(-2000)}`)),
      timeoutMs,
    );
    const onData = (d: Buffer) => {
      buffered += d.toString();
      const line = buffered.split('\n').find((l) => pattern.test(l));
      if (line) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        resolve(line);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`the process exited before printing ${pattern}: ${buffered.slice(-2000)}`));
    });
  });
}
