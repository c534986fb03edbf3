// Re-crawls sources when they are due. Each tick claims due sources with a lease (FOR UPDATE SKIP
// LOCKED), so any number of registry processes can share one database: a source is crawled by one
// process at a time, and at most `concurrency` sources at once per process.
import type { Kysely } from 'kysely';
import type { CrawlConfig } from '../config';
import type { Database } from '../db/schema';
import type { Logger } from '../logger';
import { CRAWL_LEASE_SECONDS, type Crawler } from './crawler';
import { claimSources } from './source-repository';

export interface CrawlScheduler {
  /** Looks for due sources now (the timer does this every `pollMs`); resolves when the claimed crawls end. */
  tick(): Promise<void>;
  /** Stops claiming, aborts running crawls (their sources are released untouched) and waits for them. */
  stop(): Promise<void>;
}

export function startCrawlScheduler(
  deps: { db: Kysely<Database>; crawler: Crawler; config: CrawlConfig; logger: Logger },
  options: { timer?: boolean } = {},
): CrawlScheduler {
  const abort = new AbortController();
  const running = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  async function tick(): Promise<void> {
    if (stopped) return;
    const free = deps.config.concurrency - running.size;
    if (free <= 0) return;
    let claimed;
    try {
      claimed = await claimSources(deps.db, { limit: free, leaseSeconds: CRAWL_LEASE_SECONDS });
    } catch (error) {
      deps.logger.warn({ err: error }, 'crawl scheduler could not claim due sources');
      return;
    }
    const started = claimed.map((source) => {
      const run = deps.crawler
        .crawlClaimed(source, { signal: abort.signal })
        .then(() => undefined)
        .catch((error: unknown) => {
          if (!abort.signal.aborted) deps.logger.error({ err: error, sourceId: String(source.id) }, 'crawl failed unexpectedly');
        })
        .finally(() => running.delete(run));
      running.add(run);
      return run;
    });
    await Promise.all(started);
  }

  function schedule(): void {
    if (stopped || options.timer === false) return;
    timer = setTimeout(() => {
      // The timer does not wait for crawls to end: a long crawl must not delay other due sources.
      void tick();
      schedule();
    }, deps.config.pollMs);
  }
  schedule();

  return {
    tick,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      abort.abort(new Error('registry stopping'));
      await Promise.all([...running]);
    },
  };
}
