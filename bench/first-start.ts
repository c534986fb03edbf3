// How long a newcomer waits: `ard-registry serve` on a new DATA_DIR until /healthz answers and until the first
// POST /search answers 200, with the prepared demo database (the default) and without it (the baseline: the start
// applies the migrations and loads the demo corpus itself); and `ard-registry mcp` on a new folder until it
// answers `initialize`. Printed side by side with the targets, with the machine's load.
//   npm run bench:first-start [-- --runs 3]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { findPreparedDemoFolder } from '../src/ingest/prepared-demo-database';

const BIN = path.join(__dirname, '..', 'bin', 'ard-registry.js');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const RUNS = Number(values.runs);

interface ServeRun {
  healthzMs: number;
  firstSearchMs: number;
}

async function serveOnce(prepared: boolean, port: number): Promise<ServeRun> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ard-bench-first-start-'));
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_FORMAT: 'json',
      PREPARED_DEMO_DATABASE: String(prepared),
    },
    stdio: 'ignore',
  });
  try {
    let healthzMs = 0;
    for (;;) {
      const at = performance.now() - started;
      if (at > 600_000) throw new Error('no search answer within 600 s');
      try {
        if (!healthzMs && (await fetch(`http://127.0.0.1:${port}/healthz`)).ok) healthzMs = performance.now() - started;
        const res = await fetch(`http://127.0.0.1:${port}/search`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: { text: 'send a message to a slack channel' } }),
        });
        await res.arrayBuffer();
        if (res.status === 200) return { healthzMs, firstSearchMs: performance.now() - started };
      } catch {
        /* not listening yet */
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function mcpInitializeOnce(): Promise<number> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ard-bench-first-mcp-'));
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'mcp'], { env: { ...process.env, DATA_DIR: dataDir }, stdio: ['pipe', 'pipe', 'ignore'] });
  try {
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } })}\n`,
    );
    return await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('"id":1')) resolve(performance.now() - started);
      });
      child.once('exit', (code) => reject(new Error(`mcp exited with ${code} before answering`)));
    });
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main() {
  if (!findPreparedDemoFolder()) console.log('no prepared demo database matches this installation: run `npm run prepare-demo` first');
  const load = () => os.loadavg()[0]!.toFixed(1);
  const rows: string[][] = [];
  for (const prepared of [true, false]) {
    const runs: ServeRun[] = [];
    const loads: string[] = [];
    for (let i = 0; i < (prepared ? RUNS : 1); i++) {
      loads.push(load());
      runs.push(await serveOnce(prepared, 18_700 + i));
    }
    rows.push([
      prepared ? 'serve, prepared demo database' : 'serve, corpus loaded at start (baseline)',
      seconds(median(runs.map((r) => r.healthzMs))),
      seconds(median(runs.map((r) => r.firstSearchMs))),
      prepared ? '≤ 10 s' : '',
      loads.join(' '),
    ]);
  }
  const mcp: number[] = [];
  const mcpLoads: string[] = [];
  for (let i = 0; i < RUNS; i++) {
    mcpLoads.push(load());
    mcp.push(await mcpInitializeOnce());
  }
  rows.push(['mcp (stdio), initialize answered', '', seconds(median(mcp)), '≤ 2 s', mcpLoads.join(' ')]);
  const header = ['new DATA_DIR', '/healthz 200', 'first answer', 'target', 'load (1 min) per run'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const row of [header, ...rows]) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join('  '));
  console.log(`medians of ${RUNS} runs (the baseline: 1 run); ${os.cpus().length} cores`);
}

void main();
