// A loopback HTTP server standing in for many publishers: requests are routed by Host name and path,
// and a crawl HTTP client whose resolver maps only the names given to 127.0.0.1 (nothing else resolves).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Kysely } from 'kysely';
import { upsertSource, type Crawler, type CrawlReport } from '../../src/crawl';
import type { Database } from '../../src/db/schema';
import { createHttpClient, OutboundError, type HttpClient } from '../../src/outbound';

export type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface PublisherServer {
  port: number;
  /** `http://<host>:<port>` */
  origin(host: string): string;
  route(host: string, path: string, handler: Route): void;
  /** Serves a JSON document; with `etag`, answers 304 to a matching If-None-Match. */
  json(host: string, path: string, body: unknown, options?: { etag?: string }): void;
  /** Every request as `<host><path>`, in order. */
  hits: string[];
  userAgents: string[];
  close(): Promise<void>;
}

export async function startPublisherServer(): Promise<PublisherServer> {
  const routes = new Map<string, Route>();
  const hits: string[] = [];
  const userAgents: string[] = [];
  const server = http.createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const path = (req.url ?? '/').split('?')[0];
    hits.push(`${host}${path}`);
    userAgents.push(String(req.headers['user-agent']));
    const handler = routes.get(`${host}${path}`);
    if (handler) return handler(req, res);
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: (host) => `http://${host}:${port}`,
    route: (host, path, handler) => routes.set(`${host}${path}`, handler),
    json(host, path, body, options = {}) {
      routes.set(`${host}${path}`, (req, res) => {
        if (options.etag && req.headers['if-none-match'] === options.etag) {
          res.writeHead(304, { etag: options.etag });
          res.end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json', ...(options.etag ? { etag: options.etag } : {}) });
        res.end(typeof body === 'string' ? body : JSON.stringify(body));
      });
    },
    hits,
    userAgents,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The crawl client for tests: private addresses allowed, short timeouts, `hosts` resolve to 127.0.0.1. */
export function createTestCrawlClient(
  hosts: (host: string) => boolean,
  options: { timeoutMs?: number; maxBytes?: number } = {},
): HttpClient {
  return createHttpClient({
    userAgent: 'ard-registry/0.1 (+https://github.com/ard-registry/ard-registry; test)',
    allowPrivateAddresses: true,
    totalTimeoutMs: options.timeoutMs ?? 1500,
    connectTimeoutMs: 1000,
    headersTimeoutMs: 1000,
    bodyTimeoutMs: 1000,
    maxBodyBytes: options.maxBytes ?? 10 * 1024 * 1024,
    resolver: async (hostname) => {
      if (!hosts(hostname)) throw new OutboundError('NETWORK', `test resolver: ${hostname} is not a test host`, { url: hostname });
      return [{ address: '127.0.0.1', family: 4 }];
    },
  });
}

/** Registers `host`'s origin on `server` as a source (discovered like a domain) and crawls it now. */
export async function crawlPublisher(
  ctx: { db: Kysely<Database>; crawler: Crawler },
  server: PublisherServer,
  host: string,
): Promise<CrawlReport> {
  const { row } = await upsertSource(ctx.db, { location: `${server.origin(host)}/`, intervalSeconds: 3600 });
  return ctx.crawler.crawlNow(String(row.id));
}
