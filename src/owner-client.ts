// The commands run beside a server on the embedded database (`ard-registry ingest`, `sources`, `mcp`) reach
// it over its HTTP API with the local admin token it wrote into the folder's lock file, instead of opening
// the folder a second time (src/db/data-dir-lock.ts). Loopback calls through the outbound client.
import type { JSONRPCMessage } from './mcp/stdio-transport';
import type { CrawlReport, SourceView } from './crawl';
import type { DataDirOwner } from './db/data-dir-lock';
import type { IngestReport } from './ingest/ingest-manifest';
import { createHttpClient, type HttpClient } from './outbound';
import { REGISTRY_VERSION } from './version';

/** A manifest load or a crawl runs on the server for as long as it takes; the command waits for its report. */
const ADMIN_CALL_TIMEOUT_MS = 30 * 60_000;
/** How long a command waits for a server that is still loading its index before giving up. */
export const OWNER_READY_TIMEOUT_MS = 5 * 60_000;
/** How often a command asks the server whether the crawl it started has finished. */
const CRAWL_POLL_MS = 300;

export class OwnerCallError extends Error {
  override name = 'OwnerCallError';
}

export type OwnerIngestReport = Omit<IngestReport, 'accepted'>;

export interface OwnerClient {
  readonly owner: DataDirOwner;
  /** Resolves once the server's /readyz is 200; calls `onWait` once if it has to wait. */
  waitUntilReady(onWait?: (progress: { indexed?: number; of?: number }) => void): Promise<void>;
  ingestManifest(origin: string, manifest: unknown): Promise<OwnerIngestReport>;
  listSources(): Promise<SourceView[]>;
  addSource(body: { location: string; intervalSeconds: number; trusted?: boolean }): Promise<SourceView>;
  crawl(sourceId: string): Promise<CrawlReport>;
  /** One JSON-RPC message to the server's /mcp; its answers (none for a notification). */
  forwardMcp(message: JSONRPCMessage): Promise<JSONRPCMessage[]>;
  close(): Promise<void>;
}

export function connectToOwner(owner: DataDirOwner & { url: string; adminToken: string }): OwnerClient {
  const http: HttpClient = createHttpClient({
    userAgent: `ard-registry/${REGISTRY_VERSION} (local command)`,
    allowPrivateAddresses: true,
    totalTimeoutMs: ADMIN_CALL_TIMEOUT_MS,
    headersTimeoutMs: ADMIN_CALL_TIMEOUT_MS,
    bodyTimeoutMs: ADMIN_CALL_TIMEOUT_MS,
    maxBodyBytes: 64 * 1024 * 1024,
    maxRedirects: 0,
  });
  const base = owner.url.replace(/\/$/, '');
  const admin = { authorization: `Bearer ${owner.adminToken}` };

  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let res;
    try {
      res = await http.request({
        method,
        url: `${base}${path}`,
        headers: { ...admin, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new OwnerCallError(`the registry server (pid ${owner.pid}) at ${base} did not answer: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const text = res.body.toString('utf8');
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (res.status >= 400) {
      const message = (parsed as { message?: unknown } | undefined)?.message;
      throw new OwnerCallError(
        typeof message === 'string' ? message : `the registry server answered HTTP ${res.status} to ${method} ${path}`,
      );
    }
    return parsed as T;
  }

  return {
    owner,
    async waitUntilReady(onWait) {
      const deadline = Date.now() + OWNER_READY_TIMEOUT_MS;
      let told = false;
      for (;;) {
        const res = await http.request({ url: `${base}/readyz`, timeoutMs: 5000 }).catch((error: Error) => {
          throw new OwnerCallError(`the registry server (pid ${owner.pid}) at ${base} did not answer: ${error.message}`, { cause: error });
        });
        if (res.status === 200) return;
        if (Date.now() > deadline)
          throw new OwnerCallError(
            `the registry server (pid ${owner.pid}) at ${base} is still not ready after ${OWNER_READY_TIMEOUT_MS / 1000} s`,
          );
        if (!told) {
          told = true;
          let progress = {};
          try {
            progress = JSON.parse(res.body.toString('utf8')) as object;
          } catch {
            /* no progress to show */
          }
          onWait?.(progress);
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    },
    ingestManifest: (origin, manifest) => call('POST', '/admin/manifests', { origin, manifest }),
    listSources: async () => (await call<{ sources: SourceView[] }>('GET', '/admin/sources')).sources,
    addSource: (body) => call('POST', '/admin/sources', body),
    async crawl(sourceId) {
      // The server answers 202 and crawls in the background; the command follows the source until the
      // crawl it started (or one already running) has recorded its report.
      const path = `/admin/sources/${encodeURIComponent(sourceId)}`;
      const started = await call<SourceView>('POST', `${path}/crawl`);
      const before = started.lastCrawl?.at;
      const deadline = Date.now() + ADMIN_CALL_TIMEOUT_MS;
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, CRAWL_POLL_MS));
        const view = await call<SourceView>('GET', path);
        if (!view.crawling && view.lastCrawl && view.lastCrawl.at !== before) {
          if (view.lastCrawl.report) return view.lastCrawl.report;
          throw new OwnerCallError(`the crawl of ${view.location} failed: ${view.lastCrawl.error ?? view.lastCrawl.status ?? 'no report'}`);
        }
        if (Date.now() > deadline)
          throw new OwnerCallError(`the crawl of ${view.location} has not finished after ${ADMIN_CALL_TIMEOUT_MS / 60_000} minutes`);
      }
    },
    async forwardMcp(message) {
      const res = await http
        .request({
          method: 'POST',
          url: `${base}/mcp`,
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify(message),
        })
        .catch((error: Error) => {
          throw new OwnerCallError(`the registry server (pid ${owner.pid}) at ${base} did not answer: ${error.message}`, { cause: error });
        });
      const text = res.body.toString('utf8').trim();
      if (!text) return [];
      const parsed = JSON.parse(text) as JSONRPCMessage | JSONRPCMessage[];
      return Array.isArray(parsed) ? parsed : [parsed];
    },
    close: () => http.close(),
  };
}
