// ard-registry <command>: serve | ingest <file> | mcp. Reads configuration from the environment.
import { format } from 'node:util';
import { SingleBar, Presets } from 'cli-progress';
import { openRegistryLibrary } from './alexandria/registry-resource-index';
import { ConfigError, loadConfig } from './config';
import { createContext } from './context';
import { ALEXANDRIA_LIBRARY_FILE } from './ingest/alexandria-corpus';
import { ingestFile, loadDemoCorpusIfEmpty } from './ingest/load-files';
import { createLogger } from './logger';
import { createAlexandriaMcpServer, serveMcpOverStdio } from './mcp';
import { startRegistry } from './server';

const USAGE = `usage: ard-registry <command>

commands:
  serve               start the registry (PORT, DATABASE_URL, DATA_DIR, PUBLIC_URL, ... from the environment)
  ingest <file>...    validate and load ai-catalog.json manifest files into the configured database
  mcp                 serve the Alexandria MCP tools (search, get_resource, list_topics) over stdio on the
                      configured database; logs go to stderr
  help                show this text
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  switch (command) {
    case 'serve':
      return serve();
    case 'ingest':
      return ingest(args);
    case 'mcp':
      return mcpOverStdio();
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`ard-registry: unknown command '${command}'\n\n${USAGE}`);
      return 2;
  }
}

async function serve(): Promise<number> {
  const registry = await startRegistry(loadConfig());
  await new Promise<void>((resolve) => {
    const shutdown = (signal: string) => {
      registry.ctx.logger.info({ signal }, 'shutting down: finishing in-flight requests');
      registry.stop().then(resolve, resolve);
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
  return 0;
}

/**
 * MCP over stdio for local clients (an IDE, a desktop assistant) that spawn the registry. stdout is the
 * protocol channel: logs go to stderr, and console output from libraries (TF.js greets on console.log) is
 * redirected there too. Ends when the client closes stdin, or on SIGINT/SIGTERM.
 */
async function mcpOverStdio(): Promise<number> {
  for (const method of ['log', 'info', 'warn', 'debug'] as const) {
    console[method] = (...args: unknown[]) => process.stderr.write(`${format(...args)}\n`);
  }
  const config = loadConfig();
  const logger = createLogger(config.logLevel, { transport: 'mcp-stdio' }, 'stderr');
  const ctx = await createContext(config, { logger });
  try {
    if (config.loadDemoCorpus) await loadDemoCorpusIfEmpty({ db: ctx.db, embedder: ctx.embedder }, logger);
    const { service } = await openRegistryLibrary({ db: ctx.db, embedder: ctx.embedder }, ALEXANDRIA_LIBRARY_FILE);
    const server = createAlexandriaMcpServer(service, { logger });
    const closed = new Promise<void>((resolve) => {
      server.server.onclose = () => resolve();
      process.stdin.once('end', () => resolve());
      process.once('SIGTERM', () => resolve());
      process.once('SIGINT', () => resolve());
    });
    const handle = await serveMcpOverStdio(server);
    logger.info({ database: ctx.database.kind }, 'alexandria mcp server on stdio');
    await closed;
    await handle.close();
  } finally {
    await ctx.destroy();
  }
  return 0;
}

async function ingest(files: string[]): Promise<number> {
  if (files.length === 0) {
    process.stderr.write('ard-registry ingest: give at least one manifest file\n');
    return 2;
  }
  const config = loadConfig({ loadDemoCorpus: false, logLevel: 'warn' });
  const ctx = await createContext(config);
  let failed = false;
  try {
    for (const file of files) {
      const bar = process.stderr.isTTY ? new SingleBar({ format: `${file} [{bar}] {value}/{total} entries embedded`, hideCursor: true }, Presets.shades_classic) : null;
      let started = false;
      try {
        const report = await ingestFile({ db: ctx.db, embedder: ctx.embedder }, file, (done, total) => {
          if (!bar) return;
          if (!started) {
            bar.start(total, 0);
            started = true;
          }
          bar.update(done);
        });
        bar?.stop();
        process.stdout.write(
          `${file}: ${report.total} entries: ${report.added} added, ${report.updated} updated, ${report.unchanged} unchanged, ${report.rejected.length} rejected\n`,
        );
        for (const problem of report.rejected) {
          process.stdout.write(`  rejected entries[${problem.index}]${problem.identifier ? ` (${problem.identifier})` : ''}: ${problem.reason}\n`);
        }
        if (report.rejected.length > 0) failed = true;
      } catch (error) {
        bar?.stop();
        failed = true;
        // Manifest errors already name the file; anything else gets it in front.
        const message = (error as Error).message;
        process.stderr.write(`${message.includes(file) ? message : `${file}: ${message}`}\n`);
      }
    }
  } finally {
    await ctx.destroy();
  }
  return failed ? 1 : 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`ard-registry: ${error instanceof ConfigError ? error.message : (error as Error).stack ?? String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
