// ard-registry <command>: serve | ingest <file|domain|url>... | sources | mcp | migrate. Reads configuration from the
// environment. Arguments are parsed with node:util parseArgs; help and version never open the database.
// On the embedded database one process owns the folder (src/db/data-dir-lock.ts): `ingest`, `sources` and
// `mcp` go through a server that owns it (src/owner-client.ts), open it themselves when nobody does, and
// refuse, naming the owner's pid, when another command holds it.
import fs from 'node:fs';
import path from 'node:path';
import { format, parseArgs, type ParseArgsConfig } from 'node:util';
import { SingleBar, Presets } from 'cli-progress';
import type * as McpStdioModule from './mcp/stdio-transport';
import type { RegistryConfig } from './config';
import { ConfigError, loadConfig } from './config';
import type * as CrawlModule from './crawl';
import type { CrawlReport, SourceView } from './crawl';
import type * as ContextModule from './context';
import type { AppContext } from './context';
import type * as ConnectModule from './db/connect';
import { DataDirLockedError, LOCK_FILE_NAME, readDataDirOwner, type DataDirOwner } from './db/data-dir-lock';
import type * as MigrateModule from './db/migrate';
import type * as LoadFilesModule from './ingest/load-files';
import type * as ManifestSourceModule from './ingest/manifest-source';
import { createLogger, type Logger } from './logger';
import type * as McpModule from './mcp';
import type * as OwnerClientModule from './owner-client';
import type { OwnerClient, OwnerIngestReport } from './owner-client';
import type * as PrepareDemoModule from './prepare-demo';
import type * as ServerModule from './server';
import { REGISTRY_VERSION } from './version';

// The heavy modules (the database driver, the embedding runtime, express, the MCP SDK) load when a command
// needs them: `--help` and `--version` answer in a fraction of a second, and `mcp` answers `initialize`
// before the database and the model are loaded.
/* eslint-disable @typescript-eslint/no-require-imports */
const lazy = {
  context: () => require('./context') as typeof ContextModule,
  connect: () => require('./db/connect') as typeof ConnectModule,
  migrate: () => require('./db/migrate') as typeof MigrateModule,
  server: () => require('./server') as typeof ServerModule,
  crawl: () => require('./crawl') as typeof CrawlModule,
  loadFiles: () => require('./ingest/load-files') as typeof LoadFilesModule,
  manifestSource: () => require('./ingest/manifest-source') as typeof ManifestSourceModule,
  mcp: () => require('./mcp') as typeof McpModule,
  mcpStdio: () => require('./mcp/stdio-transport') as typeof McpStdioModule,
  ownerClient: () => require('./owner-client') as typeof OwnerClientModule,
  prepareDemo: () => require('./prepare-demo') as typeof PrepareDemoModule,
};
/* eslint-enable @typescript-eslint/no-require-imports */

interface CommandSpec {
  usage: string;
  summary: string;
  details?: string;
  options: NonNullable<ParseArgsConfig['options']>;
  positionals: boolean;
  run(values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<number>;
}

const COMMANDS: Record<string, CommandSpec> = {
  serve: {
    usage: 'ard-registry serve',
    summary: 'start the registry (PORT, DATABASE_URL, DATA_DIR, PUBLIC_URL, ... from the environment)',
    details:
      'Listens at once: /healthz answers 200 and /readyz 503 {"status":"loading"} until the index is ready.\n' +
      'On the embedded database the first start loads the demo corpus (LOAD_DEMO_CORPUS).',
    options: {},
    positionals: false,
    run: () => serve(),
  },
  ingest: {
    usage: 'ard-registry ingest <file|domain|url>... [--trusted] [--interval <seconds>]',
    summary: 'load ai-catalog.json manifest files, or register and crawl sources',
    details:
      'a file: validate an ai-catalog.json manifest and load its valid entries, reporting each rejected one;\n' +
      'a domain (acme.com) or http(s) URL: register it as a source and crawl it once now, with discovery\n' +
      '(ARD §6.1); the server re-crawls it on schedule.\n' +
      'While a server owns the embedded database, this goes through it and the entries are served at once.\n\n' +
      'options:\n' +
      '  --trusted             skip the identifier-ownership rule for these sources (mirrors, aggregators)\n' +
      '  --interval <seconds>  re-crawl interval of these sources (default CRAWL_INTERVAL_SECONDS)',
    options: { trusted: { type: 'boolean' }, interval: { type: 'string' } },
    positionals: true,
    run: (values, positionals) =>
      ingest(positionals, { trusted: values.trusted === true ? true : undefined, interval: values.interval as string | undefined }),
  },
  sources: {
    usage: 'ard-registry sources',
    summary: 'list the registered sources with their last crawl report',
    options: {},
    positionals: false,
    run: () => sources(),
  },
  mcp: {
    usage: 'ard-registry mcp',
    summary: 'serve the Alexandria MCP tools (search, get_resource, list_topics) over stdio',
    details: 'Logs go to stderr. While a server owns the embedded database, the tools are answered by it.',
    options: {},
    positionals: false,
    run: () => mcpOverStdio(),
  },
  migrate: {
    usage: 'ard-registry migrate',
    summary: 'apply the database migrations (db/migrations) and exit',
    details:
      'For deployments that run migrations once, before new registry processes start (a Kubernetes Job, a\n' +
      'release step). `serve` applies missing migrations at start too, one process at a time under a lock, so\n' +
      'after this it finds nothing to do. Opens only the primary (DATABASE_URL, or the embedded DATA_DIR).',
    options: {},
    positionals: false,
    run: () => migrate(),
  },
  'prepare-demo': {
    usage: 'ard-registry prepare-demo',
    summary: 'build the prepared demo database that a new embedded folder starts from (npm ci runs it)',
    details:
      'Applies the migrations and loads the demo corpus into a folder under .cache/demo-database/, named by a hash\n' +
      'of src/, db/migrations/, data/ and package-lock.json; a first start copies it instead of loading the corpus\n' +
      '(PREPARED_DEMO_DATABASE). Does nothing when the folder for this installation exists.',
    options: {},
    positionals: false,
    run: () => prepareDemo(),
  },
};

const USAGE = `usage: ard-registry <command> [options]
       ard-registry <command> --help | --version

commands:
${Object.entries(COMMANDS)
  .map(([name, spec]) => `  ${name.padEnd(10)}${spec.summary}`)
  .join('\n')}
  help      show this text, or a command's: ard-registry help <command>

Settings are environment variables: docs/configuration.md. Docs: README.md and docs/.
`;

function commandHelp(name: string): string {
  const spec = COMMANDS[name];
  return `usage: ${spec.usage}\n\n${spec.summary}${spec.details ? `\n\n${spec.details}` : ''}\n`;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined) {
    process.stderr.write(USAGE);
    return 2;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    process.stdout.write(`ard-registry ${REGISTRY_VERSION}\n`);
    return 0;
  }
  if (command === 'help' || command === '--help' || command === '-h') {
    const topic = args[0];
    if (topic !== undefined && !(topic in COMMANDS)) return usageError(`unknown command '${topic}'`, USAGE);
    process.stdout.write(topic === undefined ? USAGE : commandHelp(topic));
    return 0;
  }
  if (command.startsWith('-')) return usageError(`unknown option '${command}'`, USAGE);
  if (!Object.hasOwn(COMMANDS, command)) return usageError(`unknown command '${command}'`, USAGE);
  const spec = COMMANDS[command];
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { ...spec.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: spec.positionals,
      strict: true,
    });
  } catch (error) {
    return usageError(`${command}: ${(error as Error).message}`, commandHelp(command));
  }
  if (parsed.values.help) {
    process.stdout.write(commandHelp(command));
    return 0;
  }
  return spec.run(parsed.values as Record<string, string | boolean | undefined>, parsed.positionals);
}

function usageError(message: string, usage: string): number {
  process.stderr.write(`ard-registry: ${message}\n\n${usage}`);
  return 2;
}

/** The context of a command that opens the database itself (nobody else owns the folder). */
async function openContext(config: RegistryConfig, command: string, logger?: Logger): Promise<AppContext> {
  return lazy.context().createContext(config, { owner: { command }, ...(logger ? { logger } : {}) });
}

/**
 * Who answers a command on this configuration: the server that owns the embedded folder, or this process
 * (PostgreSQL, or an embedded folder nobody holds). Another command holding the folder is a refusal.
 */
function routeCommand(config: RegistryConfig): { via: 'owner'; client: OwnerClient } | { via: 'self' } {
  if (config.databaseUrl) return { via: 'self' };
  const owner = readDataDirOwner(config.dataDir);
  if (owner === null) return { via: 'self' };
  if (owner !== 'unreadable' && owner.url && owner.adminToken)
    return { via: 'owner', client: lazy.ownerClient().connectToOwner(owner as DataDirOwner & { url: string; adminToken: string }) };
  throw new DataDirLockedError(config.dataDir, owner === 'unreadable' ? null : owner);
}

async function serve(): Promise<number> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, {}, 'stdout', config.logFormat);
  let stopRequested: string | null = null;
  // A signal while the index still loads stops the process at once: each manifest is one transaction, and
  // an unfinished demo corpus load resumes on the next start.
  const early = (signal: NodeJS.Signals) => {
    stopRequested = signal;
    logger.info({ signal }, 'stopping before the index was ready');
    process.exit(130);
  };
  process.once('SIGTERM', early);
  process.once('SIGINT', early);
  const registry = await lazy.server().startRegistry(config, {
    logger,
    onListening: (url) => logger.info({ url }, 'listening; opening the database and loading the index (GET /readyz says when it is ready)'),
  });
  process.off('SIGTERM', early);
  process.off('SIGINT', early);
  if (stopRequested) return 130;
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
 * redirected there too. The transport starts before the database opens, so `initialize` is answered at once
 * and tool calls wait for the library. Ends when the client closes stdin, or on SIGINT/SIGTERM.
 */
async function mcpOverStdio(): Promise<number> {
  for (const method of ['log', 'info', 'warn', 'debug'] as const) {
    console[method] = (...args: unknown[]) => process.stderr.write(`${format(...args)}\n`);
  }
  const config = loadConfig();
  const logger = createLogger(config.logLevel, { transport: 'mcp-stdio' }, 'stderr', config.logFormat);
  const route = routeCommand(config);
  const { StdioServerTransport } = lazy.mcpStdio();
  const closed = (onClose: (resolve: () => void) => void) =>
    new Promise<void>((resolve) => {
      onClose(resolve);
      process.stdin.once('end', () => resolve());
      process.once('SIGTERM', () => resolve());
      process.once('SIGINT', () => resolve());
    });
  if (route.via === 'owner') {
    // The server owning the folder answers: every message goes to its POST /mcp (stateless Streamable HTTP).
    const transport = new StdioServerTransport();
    const done = closed((resolve) => (transport.onclose = resolve));
    transport.onmessage = (message) => {
      route.client
        .forwardMcp(message)
        .then((answers) => Promise.all(answers.map((answer) => transport.send(answer))))
        .catch((error: Error) => {
          logger.error({ err: error }, 'forwarding an MCP message to the registry server failed');
          if ('id' in message && message.id !== undefined && 'method' in message) {
            void transport.send({ jsonrpc: '2.0', id: message.id, error: { code: -32603, message: error.message } });
          }
        });
    };
    await transport.start();
    logger.info(
      { pid: route.client.owner.pid, url: route.client.owner.url },
      'alexandria mcp on stdio, answered by the registry server that owns the data folder',
    );
    await done;
    await transport.close();
    await route.client.close();
    return 0;
  }
  const { createAlexandriaMcpServer, registryToolsOf, serveMcpOverStdio } = lazy.mcp();
  // Opening PGlite blocks the event loop for seconds at a time: it starts once the handshake is done (the
  // client's `initialized`), at the first tool call, or after MCP_OPEN_DELAY_MS, whichever comes first.
  let opening: ReturnType<typeof openLibrary> | null = null;
  const open = () => {
    if (opening) return opening;
    opening = openLibrary(config, logger);
    opening.catch((error: unknown) => {
      process.stderr.write(`ard-registry mcp: ${describeError(error)}\n`);
      process.exit(1);
    });
    return opening;
  };
  const openTimer = setTimeout(open, MCP_OPEN_DELAY_MS);
  const library = async () => (await open()).service;
  const lazyService = {
    searchLibrary: async (input: never) => (await library()).searchLibrary(input),
    getResource: async (id: string) => (await library()).getResource(id),
    listTopics: async () => (await library()).listTopics(),
  };
  // The registry's tools on the same context, opened the same way (the first call waits for it).
  const registry = async () => registryToolsOf((await open()).ctx);
  const server = createAlexandriaMcpServer(lazyService as unknown as Awaited<ReturnType<typeof library>>, {
    logger,
    version: REGISTRY_VERSION,
    registry: {
      search: async (input) => (await registry()).search(input),
      getEntry: async (identifier) => (await registry()).getEntry(identifier),
    },
  });
  server.server.oninitialized = () => void open();
  const done = closed((resolve) => (server.server.onclose = resolve));
  const handle = await serveMcpOverStdio(server);
  logger.info({ database: config.databaseUrl ? 'postgres' : 'embedded' }, 'alexandria mcp server on stdio');
  try {
    await done;
    await handle.close();
  } finally {
    clearTimeout(openTimer);
    const opened = await (opening as ReturnType<typeof openLibrary> | null)?.catch(() => null);
    await opened?.ctx.destroy();
  }
  return 0;
}

/** When `mcp` opens the database if the client has not finished its handshake yet. */
const MCP_OPEN_DELAY_MS = 1500;

async function openLibrary(config: RegistryConfig, logger: Logger) {
  const ctx = await openContext(config, 'mcp', logger);
  try {
    const { loadDemoCorpusUnlessLoaded } = lazy.loadFiles();
    if (config.loadDemoCorpus) await loadDemoCorpusUnlessLoaded({ db: ctx.db, embedder: ctx.embedder, glossary: ctx.glossary }, logger);
    const { service } = ctx.library;
    return { ctx, service };
  } catch (error) {
    await ctx.destroy().catch(() => undefined);
    throw error;
  }
}

type IngestTarget =
  { kind: 'file'; path: string } | { kind: 'source'; location: string } | { kind: 'missing'; path: string; reason: string };

/**
 * A target is a file when it exists, a URL when it parses as http(s), and otherwise a domain, unless it looks
 * like a path (a separator, a .json name): then it is a file that is not there.
 */
export function classifyIngestTarget(target: string): IngestTarget {
  if (/^https?:\/\//i.test(target)) return { kind: 'source', location: target };
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (stat?.isFile()) return { kind: 'file', path: target };
  if (stat?.isDirectory()) return { kind: 'missing', path: target, reason: 'is a directory, not a manifest file' };
  if (/[\\/]/.test(target) || /\.json$/i.test(target) || target.startsWith('.'))
    return { kind: 'missing', path: target, reason: 'file not found' };
  return { kind: 'source', location: target };
}

async function ingest(targets: string[], options: { trusted?: boolean; interval?: string }): Promise<number> {
  if (targets.length === 0) return usageError('ingest: give at least one manifest file, domain or URL', commandHelp('ingest'));
  let interval: number | undefined;
  if (options.interval !== undefined) {
    interval = Number(options.interval);
    if (!/^\d+$/.test(options.interval) || interval < 1 || interval > 30 * 86400) {
      return usageError(`ingest: --interval needs a number of seconds from 1 to 2592000; got '${options.interval}'`, commandHelp('ingest'));
    }
  }
  const classified = targets.map(classifyIngestTarget);
  const missing = classified.filter((t): t is Extract<IngestTarget, { kind: 'missing' }> => t.kind === 'missing');
  if (missing.length > 0) {
    for (const m of missing) process.stderr.write(`ard-registry ingest: ${m.path}: ${m.reason}\n`);
    return 1;
  }
  const config = loadConfig({ loadDemoCorpus: false, logLevel: 'warn' });
  const intervalSeconds = interval ?? config.crawl.intervalSeconds;
  const route = routeCommand(config);
  // The same loop either way: through the server that owns the embedded folder, or on the database directly.
  const each = async (ways: {
    ingestFile(path: string): Promise<boolean>;
    crawl(location: string, options: { trusted?: boolean; intervalSeconds: number }): Promise<boolean>;
  }) => {
    let failed = false;
    for (const target of classified) {
      const ok =
        target.kind === 'file'
          ? await ways.ingestFile(target.path)
          : await ways.crawl((target as { location: string }).location, { trusted: options.trusted, intervalSeconds });
      if (!ok) failed = true;
    }
    return failed ? 1 : 0;
  };
  if (route.via === 'owner') {
    const client = route.client;
    try {
      await waitForOwner(client);
      return await each({
        ingestFile: (file) => ingestFileThroughOwner(client, file),
        crawl: (location, crawlOptions) => crawlThroughOwner(client, location, crawlOptions),
      });
    } finally {
      await client.close();
    }
  }
  const ctx = await openContext(config, 'ingest');
  try {
    return await each({
      ingestFile: (file) => ingestOneFile(ctx, file),
      crawl: (location, crawlOptions) => crawlOnce(ctx, location, crawlOptions),
    });
  } finally {
    await ctx.destroy();
  }
}

async function waitForOwner(client: OwnerClient): Promise<void> {
  process.stderr.write(`the registry server (pid ${client.owner.pid}, ${client.owner.url}) owns the data folder: going through it\n`);
  await client.waitUntilReady((progress) =>
    process.stderr.write(
      `waiting for it to finish loading its index${progress.of ? ` (${progress.indexed ?? 0} of ${progress.of} entries)` : ''}\n`,
    ),
  );
}

function progressBar(label: string) {
  const bar = process.stderr.isTTY
    ? new SingleBar({ format: `${label} [{bar}] {value}/{total} entries embedded`, hideCursor: true }, Presets.shades_classic)
    : null;
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

function writeIngestReport(file: string, report: OwnerIngestReport): void {
  process.stdout.write(
    `${file}: ${report.total} entries: ${report.added} added, ${report.updated} updated, ${report.unchanged} unchanged, ${report.rejected.length} rejected\n`,
  );
  for (const problem of report.rejected) {
    process.stdout.write(
      `  rejected entries[${problem.index}]${problem.identifier ? ` (${problem.identifier})` : ''}: ${problem.reason}\n`,
    );
  }
}

async function ingestOneFile(ctx: AppContext, file: string): Promise<boolean> {
  const bar = progressBar(file);
  try {
    const report = await lazy.loadFiles().ingestFile({ db: ctx.db, embedder: ctx.embedder, glossary: ctx.glossary }, file, bar.update);
    bar.stop();
    writeIngestReport(file, report);
    return report.rejected.length === 0;
  } catch (error) {
    bar.stop();
    writeFileError(file, error);
    return false;
  }
}

async function ingestFileThroughOwner(client: OwnerClient, file: string): Promise<boolean> {
  try {
    const manifest = await lazy.manifestSource().readManifestFile(file);
    const report = await client.ingestManifest(`file:${file}`, manifest);
    writeIngestReport(file, report);
    return report.rejected.length === 0;
  } catch (error) {
    writeFileError(file, error);
    return false;
  }
}

function writeFileError(file: string, error: unknown): void {
  // Manifest errors already name the file; anything else gets it in front.
  const message = (error as Error).message;
  process.stderr.write(`${message.includes(file) ? message : `${file}: ${message}`}\n`);
}

async function crawlOnce(ctx: AppContext, target: string, options: { trusted?: boolean; intervalSeconds: number }): Promise<boolean> {
  const { parseSourceLocation, upsertSource } = lazy.crawl();
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

async function crawlThroughOwner(
  client: OwnerClient,
  target: string,
  options: { trusted?: boolean; intervalSeconds: number },
): Promise<boolean> {
  try {
    const source = await client.addSource({
      location: target,
      intervalSeconds: options.intervalSeconds,
      ...(options.trusted ? { trusted: true } : {}),
    });
    process.stderr.write(`crawling ${source.location} (source ${source.id}${source.trusted ? ', trusted' : ''}) on the registry server\n`);
    const report = await client.crawl(source.id);
    writeReport(report);
    return report.status === 'ok' || report.status === 'not-modified';
  } catch (error) {
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
    process.stdout.write(
      `  rejected ${problem.url} entries[${problem.index}]${problem.identifier ? ` (${problem.identifier})` : ''}: ${problem.reason}\n`,
    );
  }
  if (c.rejected > report.rejected.length) process.stdout.write(`  ... and ${c.rejected - report.rejected.length} more rejected\n`);
}

async function prepareDemo(): Promise<number> {
  const config = loadConfig({ logLevel: 'warn' });
  const logger = createLogger(config.logLevel, {}, 'stderr', config.logFormat);
  const started = Date.now();
  const prepared = await lazy.prepareDemo().prepareDemoDatabase(config, logger);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    prepared.built
      ? `prepared demo database: ${prepared.entries} entries in ${prepared.folder} (${seconds} s)\n`
      : `prepared demo database already built: ${prepared.folder}\n`,
  );
  return 0;
}

async function migrate(): Promise<number> {
  const config = loadConfig({ loadDemoCorpus: false, logLevel: 'warn' });
  const database = await lazy.connect().connectDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    preparedStatements: config.databasePreparedStatements,
    owner: { command: 'migrate' },
  });
  try {
    const applied = await lazy.migrate().migrateToLatest(database.db);
    process.stdout.write(
      applied.length > 0
        ? `applied ${applied.length} migrations: ${applied.join(', ')}\n`
        : 'no migrations to apply: the schema is up to date\n',
    );
    return 0;
  } finally {
    await database.close();
  }
}

async function sources(): Promise<number> {
  const config = loadConfig({ loadDemoCorpus: false, logLevel: 'warn' });
  const route = routeCommand(config);
  let views: SourceView[];
  if (route.via === 'owner') {
    try {
      await waitForOwner(route.client);
      views = await route.client.listSources();
    } finally {
      await route.client.close();
    }
  } else {
    const ctx = await openContext(config, 'sources');
    try {
      const { listSources, toSourceView } = lazy.crawl();
      views = (await listSources(ctx.db)).map((row) => toSourceView(row));
    } finally {
      await ctx.destroy();
    }
  }
  if (views.length === 0) process.stdout.write('no sources registered (add one with: ard-registry ingest <domain-or-url>)\n');
  for (const view of views) {
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
}

/** What a failed command prints: the known failures in their own words, with what to do; others with a stack. */
export function describeError(error: unknown): string {
  if (error instanceof DataDirLockedError) {
    const owner = error.owner;
    const advice = !owner
      ? 'one process owns an embedded database folder at a time: stop the other one, or use another DATA_DIR'
      : owner.url
        ? `it serves ${owner.url}: stop it first (kill ${owner.pid}) or give this process another DATA_DIR; ` +
          'ingest, sources and mcp run beside it go through it'
        : owner.command === 'serve'
          ? 'it is a registry server still starting: retry in a few seconds, when it listens'
          : `one process owns an embedded database folder at a time: wait for it to finish or stop it (kill ${owner.pid}); ` +
            'while `ard-registry serve` runs, ingest, sources and mcp go through it';
    const stale = owner ? `. If pid ${owner.pid} is not an ard-registry process, remove ${path.join(error.dataDir, LOCK_FILE_NAME)}` : '';
    return `${error.message}: ${advice}${stale}`;
  }
  if (error instanceof ConfigError || (error instanceof Error && error.name === 'EmbeddedDatabaseBrokenError')) return error.message;
  if (error instanceof Error && error.name === 'OwnerCallError') return error.message;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`ard-registry: ${describeError(error)}\n`);
      // A database that failed to open may leave work pending that never ends: exit, do not hang.
      process.exit(1);
    },
  );
}
