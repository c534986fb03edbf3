// Starts the registry: context, demo corpus (when configured and the index is empty), HTTP server.
// stop(): stop accepting, let in-flight requests finish, then close the database.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RegistryConfig } from './config';
import { createContext, type AppContext, type ContextOptions } from './context';
import { startCrawlScheduler, type CrawlScheduler } from './crawl';
import { createApp } from './http/app';
import { loadDemoCorpusIfEmpty } from './ingest/load-files';

export interface RunningRegistry {
  ctx: AppContext;
  server: http.Server;
  /** The address it listens on, e.g. http://127.0.0.1:8080 */
  url: string;
  /** Re-crawls due sources; null when CRAWL_SCHEDULER=false. */
  scheduler: CrawlScheduler | null;
  stop(): Promise<void>;
}

export async function startRegistry(config: RegistryConfig, options: ContextOptions = {}): Promise<RunningRegistry> {
  const ctx = await createContext(config, options);
  try {
    if (config.loadDemoCorpus) await loadDemoCorpusIfEmpty({ db: ctx.db, embedder: ctx.embedder, glossary: ctx.glossary }, ctx.logger);
    const { app, ready, drain, settled } = createApp(ctx);
    await ready;
    const server = http.createServer(app);
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
    ctx.logger.info({ url, database: ctx.database.kind, publicUrl: config.publicUrl }, 'registry listening');
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
    await ctx.destroy().catch(() => undefined);
    throw error;
  }
}
