// ard-registry <command>: serve | ingest <file|domain|url> | sources | mcp. Reads configuration from the environment.
import fs from 'node:fs';
import { format } from 'node:util';
import { SingleBar, Presets } from 'cli-progress';
import { listSources, parseSourceLocation, toSourceView, upsertSource, type CrawlReport } from './crawl';
import { ConfigError, loadConfig } from './config';
import { createContext, type AppContext } from './context';
import { ingestFile, loadDemoCorpusIfEmpty } from './ingest/load-files';
import { createLogger } from './logger';
import { createAlexandriaMcpServer, serveMcpOverStdio } from './mcp';
import { startRegistry } from './server';

const USAGE = `usage: ard-registry <command>

commands:
  serve               start the registry (PORT, DATABASE_URL, DATA_DIR, PUBLIC_URL, ... from the environment)
  ingest <file|domain|url>... [--trusted] [--interval <seconds>]
                      a file: validate and load an ai-catalog.json manifest into the configured database;
                      a domain (acme.com) or URL: register it as a source and crawl it once now, with
                      discovery (ARD §6.1); the server re-crawls it on schedule. --trusted skips the
                      identifier-ownership rule for that source (mirrors, aggregators)
  sources             list the registered sources with their last crawl report
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
    case 'sources':
      return sources();
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
    if (config.loadDemoCorpus) await loadDemoCorpusIfEmpty({ db: ctx.db, embedder: ctx.embedder, glossary: ctx.glossary }, logger);
    const { service } = ctx.library;
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

async function ingest(args: string[]): Promise<number> {
  const targets: string[] = [];
  let trusted: boolean | undefined;
  let interval: number | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--trusted') trusted = true;
    else if (args[i] === '--interval') {
      interval = Number(args[++i]);
      if (!Number.isInteger(interval) || interval < 1) {
        process.stderr.write('ard-registry ingest: --interval needs a number of seconds\n');
        return 2;
      }
    } else targets.push(args[i]);
  }
  if (targets.length === 0) {
    process.stderr.write('ard-registry ingest: give at least one manifest file, domain or URL\n');
    return 2;
  }
  const config = loadConfig({ loadDemoCorpus: false, logLevel: 'warn' });
  const ctx = await createContext(config);
  let failed = false;
  try {
    for (const target of targets) {
      const ok = isFile(target)
        ? await ingestOneFile(ctx, target)
        : await crawlOnce(ctx, target, { trusted, intervalSeconds: interval ?? config.crawl.intervalSeconds });
      if (!ok) failed = true;
    }
  } finally {
    await ctx.destroy();
  }
  return failed ? 1 : 0;
}

function isFile(target: string): boolean {
  return fs.existsSync(target) && fs.statSync(target).isFile();
}

function progressBar(label: string) {
  const bar = process.stderr.isTTY ? new SingleBar({ format: `${label} [{bar}] {value}/{total} entries embedded`, hideCursor: true }, Presets.shades_classic) : null;
  let started = false;
  return {
    update(done: number, total: number) {
      if (!bar) return;
      if (!started) {
        bar.start(total, 0);
        started = true;
      }
      bar.update(done);
    },
    stop: () => bar?.stop(),
  };
}

async function ingestOneFile(ctx: AppContext, file: string): Promise<boolean> {
  const bar = progressBar(file);
  try {
    const report = await ingestFile({ db: ctx.db, embedder: ctx.embedder, glossary: ctx.glossary }, file, bar.update);
    bar.stop();
    process.stdout.write(
      `${file}: ${report.total} entries: ${report.added} added, ${report.updated} updated, ${report.unchanged} unchanged, ${report.rejected.length} rejected\n`,
    );
    for (const problem of report.rejected) {
      process.stdout.write(`  rejected entries[${problem.index}]${problem.identifier ? ` (${problem.identifier})` : ''}: ${problem.reason}\n`);
    }
    return report.rejected.length === 0;
  } catch (error) {
    bar.stop();
    // Manifest errors already name the file; anything else gets it in front.
    const message = (error as Error).message;
    process.stderr.write(`${message.includes(file) ? message : `${file}: ${message}`}\n`);
    return false;
  }
}

async function crawlOnce(ctx: AppContext, target: string, options: { trusted?: boolean; intervalSeconds: number }): Promise<boolean> {
  const bar = progressBar(target);
  try {
    const { location } = parseSourceLocation(target);
    const { row } = await upsertSource(ctx.db, { location, intervalSeconds: options.intervalSeconds, trusted: options.trusted });
    process.stderr.write(`crawling ${location} (source ${row.id}${row.trusted ? ', trusted' : ''})\n`);
    const report = await ctx.crawler.crawlNow(String(row.id), {
      events: {
        onDocument: (doc) =>
          process.stderr.write(
            `  ${doc.status} ${doc.url}${doc.httpStatus ? ` (HTTP ${doc.httpStatus})` : ''}${doc.entries !== undefined ? `: ${doc.entries} entries` : ''}${doc.reason ? `: ${doc.reason}` : ''}\n`,
          ),
        onEmbedProgress: bar.update,
      },
    });
    bar.stop();
    writeReport(report);
    return report.status === 'ok' || report.status === 'not-modified';
  } catch (error) {
    bar.stop();
    process.stderr.write(`${target}: ${(error as Error).message}\n`);
    return false;
  }
}

function writeReport(report: CrawlReport): void {
  const c = report.counts;
  process.stdout.write(
    `${report.location}: ${report.status}${report.catalogUrl ? ` ${report.catalogUrl} (via ${report.discoveredVia})` : ''}` +
      (report.httpStatus ? ` HTTP ${report.httpStatus}` : '') +
      `: ${c.total} entries: ${c.added} added, ${c.updated} updated, ${c.unchanged} unchanged, ${c.removed} removed, ${c.rejected} rejected\n`,
  );
  if (report.error) process.stdout.write(`  error: ${report.error}\n`);
  for (const problem of report.rejected) {
    process.stdout.write(`  rejected ${problem.url} entries[${problem.index}]${problem.identifier ? ` (${problem.identifier})` : ''}: ${problem.reason}\n`);
  }
  if (c.rejected > report.rejected.length) process.stdout.write(`  ... and ${c.rejected - report.rejected.length} more rejected\n`);
}

async function sources(): Promise<number> {
  const ctx = await createContext(loadConfig({ loadDemoCorpus: false, logLevel: 'warn' }));
  try {
    const rows = await listSources(ctx.db);
    if (rows.length === 0) process.stdout.write('no sources registered (add one with: ard-registry ingest <domain-or-url>)\n');
    for (const row of rows) {
      const view = toSourceView(row);
      process.stdout.write(
        `[${view.id}] ${view.location}${view.trusted ? ' (trusted)' : ''} every ${view.intervalSeconds}s, next ${view.nextCrawlAt}${view.crawling ? ', crawling now' : ''}\n`,
      );
      if (view.lastCrawl?.report) {
        process.stdout.write(`  last crawl ${view.lastCrawl.at}: `);
        writeReport(view.lastCrawl.report);
      } else {
        process.stdout.write('  never crawled\n');
      }
    }
    return 0;
  } finally {
    await ctx.destroy();
  }
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
