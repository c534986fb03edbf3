// Starts the registry. It listens first: while the database opens and the demo corpus loads, /healthz
// answers 200, /readyz 503 {"status":"loading","indexed":n,"of":m} and every other route 503 UNAVAILABLE
// with Retry-After (loading-responses.ts); then the full application takes over the same server.
// stop(): stop accepting, let in-flight requests finish, then close the database.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RegistryConfig } from './config';
import { createContext, type AppContext, type ContextOptions } from './context';
import { startCrawlScheduler, type CrawlScheduler } from './crawl';
import { newAdminToken } from './db/data-dir-lock';
import { createApp } from './http/app';
import { createLoadingHandler, type LoadingProgress } from './http/loading-responses';
import { loadDemoCorpusUnlessLoaded } from './ingest/load-files';

export interface RunningRegistry {
  ctx: AppContext;
  server: http.Server;
  /** The address it listens on, e.g. http://127.0.0.1:8080 */
  url: string;
  /** Re-crawls due sources; null when CRAWL_SCHEDULER=false. */
  scheduler: CrawlScheduler | null;
  stop(): Promise<void>;
}

export interface StartOptions extends ContextOptions {
  /** Called once the port is open, before the database and the index are ready. */
  onListening?(url: string): void;
}

export async function startRegistry(config: RegistryConfig, options: StartOptions = {}): Promise<RunningRegistry> {
  const progress: LoadingProgress = { indexed: 0, of: 0 };
  let handler: http.RequestListener = createLoadingHandler(progress);
  const server = http.createServer((req, res) => handler(req, res));
  let draining = false;
  // A keep-alive connection whose last in-flight response has just finished is idle: close it
  // at once while draining, so stop() does not wait for clients to hang up.
  server.on('request', (_req, res: http.ServerResponse) => {
    res.once('finish', () => {
      if (draining) setImmediate(() => server.closeIdleConnections());
    });
  });
  server.requestTimeout = config.requestTimeoutMs;
  server.headersTimeout = Math.min(config.requestTimeoutMs, 20000);
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`;
  options.onListening?.(url);
  let ctx: AppContext;
  try {
    // The embedded folder's lock names this server's address and a token its /admin routes accept, so
    // local commands (ingest, sources, mcp) go through it instead of opening the folder.
    ctx = await createContext(config, { ...options, owner: options.owner ?? { command: 'serve', url, adminToken: newAdminToken() } });
  } catch (error) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    throw error;
  }
  try {
    if (config.loadDemoCorpus) {
      await loadDemoCorpusUnlessLoaded({ db: ctx.db, embedder: ctx.embedder, glossary: ctx.glossary }, ctx.logger, (indexed, of) => {
        progress.indexed = indexed;
        progress.of = of;
      });
    }
    const { app, ready, drain, settled } = createApp(ctx);
    await ready;
    handler = app;
    ctx.logger.info({ url, database: ctx.database.kind, publicUrl: config.publicUrl }, 'registry ready');
    ctx.mirror.start(config.mirrorPollSeconds);
    const scheduler = config.crawl.schedulerEnabled
      ? startCrawlScheduler({ db: ctx.db, crawler: ctx.crawler, config: config.crawl, logger: ctx.logger })
      : null;
    let stopping: Promise<void> | null = null;
    return {
      ctx,
      server,
      url,
      scheduler,
      stop() {
        stopping ??= (async () => {
          await scheduler?.stop();
          // Stop accepting, answer what is in flight (each response then closes its keep-alive
          // connection), and only then close the database the in-flight requests still use.
          // A request cannot outlive its own deadline, so past it the remaining sockets are cut.
          drain();
          draining = true;
          await new Promise<void>((resolve) => {
            const cutOff = setTimeout(() => server.closeAllConnections(), config.requestTimeoutMs + 1000);
            server.close(() => {
              clearTimeout(cutOff);
              resolve();
            });
            server.closeIdleConnections();
          });
          // Handlers whose response already left (deadline, client gone) finish before the pools close;
          // a query cannot outlive the statement timeout (15 s), so 30 s bounds the wait.
          await settled(Math.max(config.requestTimeoutMs, 30_000));
          await ctx.destroy();
        })();
        return stopping;
      },
    };
  } catch (error) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await ctx.destroy().catch(() => undefined);
    throw error;
  }
}
