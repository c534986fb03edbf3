// POST /search's latency while the crawler ingests N entries (issue 28: a crawl of 100k entries that keeps search
// p99 under 2x its idle value). A publisher in a child process serves BENCH_ENTRIES synthetic entries (bench/search.ts's
// generator) as catalogs of SOURCE_SIZE entries on 127.0.0.1; the registry runs in this process on a new database
// with its crawl scheduler on (production CRAWL_CONCURRENCY, each source registered as trusted and crawled once), so
// every entry goes the production way: fetched over HTTP, validated, embedded, written per source. Phases: one source
// crawled, then 100 idle searches; every other source registered, searches back to back until all are crawled (each
// latency kept with the live entries stored at that moment); 100 idle searches again at full size. Prints the crawl's
// entries/s, p50/p99 per tenth of the crawl (by entries stored) against both idle p99s, and the machine's load;
// asserts nothing, but throws when a crawl fails or rejects entries.
//   npm run bench:crawl                          (10,000 entries in sources of 1,000)
//   BENCH_ENTRIES=100000 npm run bench:crawl     (some 40 min at the short check's 42 entries/s)
//   BENCH_ENTRIES=3000 SOURCE_SIZE=500 npm run bench:crawl   (a short check)
// BENCH_KEEP_DATABASE=1 keeps the crawled database and prints its name: `BENCH_DATABASE=<name> npm run bench -- search`
// then measures it without building another.
// Differences from production: the scheduler looks for due sources every second (CRAWL_POLL_MS is 15 s), so a slot a
// crawl frees is taken at once; no server or agent cards are read (CRAWL_MAX_CARDS=0: the synthetic entries' urls name
// hosts that do not exist); liveness probing is off.
import http from 'node:http';
import { countLiveEntries } from '../src/catalog/entry-repository';
import { loadConfig } from '../src/config';
import { listSources, upsertSource } from '../src/crawl';
import type { CrawlReport } from '../src/crawl/crawl-report';
import type { SourceRow } from '../src/db/schema';
import { startRegistry } from '../src/server';
import { machineLoad } from '../test/helpers/machine-load';
import { startPublisherProcess, type RemotePublisher } from '../test/helpers/remote-publisher';
import { createTestDatabase } from '../test/helpers/test-database';
import { inProcessBenchConfig, loadAverage, percentile, printTable, searchLatencies } from './bench-util';
import { syntheticEntries } from './search';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 10_000);
const SOURCE_SIZE = Number(process.env.SOURCE_SIZE ?? 1000);
/** Each source is crawled once: its next crawl is due long after the bench ends. */
const INTERVAL_SECONDS = 30 * 86400;
/** How often the bench counts live entries and looks at the sources' last crawls. */
const POLL_MS = 2000;
const IDLE_SEARCHES = 100;
const WINDOWS = 10;
const KEEP_DATABASE = process.env.BENCH_KEEP_DATABASE === '1';
type Registry = Awaited<ReturnType<typeof startRegistry>>;

/**
 * The publisher's process: generates `count` synthetic entries and serves /catalog/<n>.json, entries
 * [n * size, (n + 1) * size), as ai-catalog manifests; prints its port, exits when its stdin ends.
 */
function publish(count: number, size: number): void {
  const entries = syntheticEntries(count);
  const server = http.createServer((req, res) => {
    const n = Number(/^\/catalog\/(\d+)\.json$/.exec(req.url ?? '')?.[1] ?? -1);
    if (n < 0 || n * size >= count) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ specVersion: '1.0', entries: entries.slice(n * size, (n + 1) * size) }));
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as { port: number }).port}\n`));
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}

/**
 * The publisher in a child process, as if on another machine: serving from this process would take turns on the
 * event loop whose searches are measured.
 */
function startPublisher(): Promise<RemotePublisher> {
  return startPublisherProcess(['--import', 'tsx', __filename, '--publish', String(ENTRIES), String(SOURCE_SIZE)]);
}

/** The sources crawled so far among `ids`; throws with its error when one failed or rejected entries. */
async function crawled(registry: Registry, ids: Set<string>): Promise<SourceRow[]> {
  const done = (await listSources(registry.ctx.db)).filter((row) => ids.has(String(row.id)) && row.last_crawl_at !== null);
  for (const row of done) {
    const report = row.last_report as CrawlReport | null;
    if (row.last_status !== 'ok' || (report?.counts.rejected ?? 0) > 0) {
      const rejected = report?.rejected.slice(0, 3).map((r) => `${r.identifier ?? '?'}: ${r.reason}`);
      throw new Error(
        `crawl of ${row.location}: ${row.last_status}${row.last_error ? `, ${row.last_error}` : ''}` +
          `${rejected && rejected.length > 0 ? `; rejected ${rejected.join('; ')}` : ''}`,
      );
    }
  }
  return done;
}

async function register(registry: Registry, port: number, catalogs: number[]): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const n of catalogs) {
    const { row } = await upsertSource(registry.ctx.db, {
      location: `http://127.0.0.1:${port}/catalog/${n}.json`,
      intervalSeconds: INTERVAL_SECONDS,
      trusted: true,
    });
    ids.add(String(row.id));
  }
  return ids;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const sources = Math.ceil(ENTRIES / SOURCE_SIZE);
  const publisher = await startPublisher();
  const database = await createTestDatabase();
  const base = loadConfig();
  const registry = await startRegistry(
    loadConfig(
      inProcessBenchConfig(database.url, {
        crawlAllowPrivate: true,
        crawl: { ...base.crawl, schedulerEnabled: true, pollMs: 1000, maxCards: 0 },
        liveness: { ...base.liveness, pollMs: 0 },
      }),
    ),
  );
  try {
    process.stderr.write(
      `crawl bench: ${ENTRIES} synthetic entries in ${sources} sources of ${SOURCE_SIZE}, CRAWL_CONCURRENCY ${base.crawl.concurrency}\n`,
    );
    const first = await register(registry, publisher.port, [0]);
    while ((await crawled(registry, first)).length === 0) await sleep(500);
    const loadBefore = machineLoad();
    const idleStart = await searchLatencies(registry.url, () => false, IDLE_SEARCHES);
    const startEntries = await countLiveEntries(registry.ctx.db);

    const started = Date.now();
    const rest = await register(
      registry,
      publisher.port,
      Array.from({ length: sources - 1 }, (_, i) => i + 1),
    );
    let stored = startEntries;
    let crawling = rest.size > 0;
    let finishedAt = started;
    const poll = (async () => {
      while (crawling) {
        await sleep(POLL_MS);
        stored = await countLiveEntries(registry.ctx.db);
        const done = await crawled(registry, rest);
        if (done.length === rest.size) {
          finishedAt = Math.max(...done.map((row) => (row.last_crawl_at as Date).getTime()));
          crawling = false;
        }
        process.stderr.write(`  ${done.length}/${rest.size} sources crawled, ${stored} entries stored\n`);
      }
    })();
    const busy: Array<{ ms: number; stored: number }> = [];
    let failure: unknown;
    void poll.catch((error: unknown) => {
      failure = error;
      crawling = false;
    });
    await searchLatencies(
      registry.url,
      () => crawling,
      0,
      (ms) => busy.push({ ms, stored }),
    );
    await poll.catch(() => undefined);
    if (failure !== undefined) throw failure;
    const endEntries = await countLiveEntries(registry.ctx.db);
    if (endEntries !== ENTRIES) throw new Error(`${endEntries} live entries after the crawl, ${ENTRIES} served`);

    const idleEnd = await searchLatencies(registry.url, () => false, IDLE_SEARCHES);
    const loadAfter = machineLoad();

    const seconds = (finishedAt - started) / 1000;
    const idleStartP99 = percentile(idleStart, 99);
    const idleEndP99 = percentile(idleEnd, 99);
    const span = Math.max(1, endEntries - startEntries);
    const windows = Array.from({ length: WINDOWS }, () => [] as number[]);
    for (const { ms, stored: at } of busy) {
      windows[Math.min(WINDOWS - 1, Math.max(0, Math.floor(((at - startEntries) / span) * WINDOWS)))].push(ms);
    }
    const fmt = (v: number) => (Number.isNaN(v) ? '-' : v.toFixed(1));
    const ratio = (p99: number, idle: number) => (Number.isNaN(p99) ? '-' : `${(p99 / idle).toFixed(2)}×`);
    const row = (label: string, latencies: number[]) => {
      const p99 = percentile(latencies, 99);
      return [label, `${latencies.length}`, fmt(percentile(latencies, 50)), fmt(p99), ratio(p99, idleEndP99), ratio(p99, idleStartP99)];
    };
    printTable(`crawl: ${endEntries - startEntries} entries in ${sources - 1} sources after the first`, [
      ['seconds', 'entries/s'],
      [seconds.toFixed(1), ((endEntries - startEntries) / seconds).toFixed(1)],
    ]);
    printTable('POST /search during the crawl, a new text each time, by tenth of the crawl (live entries stored when it ran), ms', [
      ['entries stored', 'n', 'p50', 'p99', 'p99 ÷ idle p99 at end', 'p99 ÷ idle p99 at start'],
      ...windows.map((latencies, w) =>
        row(`${startEntries + Math.round((w * span) / WINDOWS)}-${startEntries + Math.round(((w + 1) * span) / WINDOWS)}`, latencies),
      ),
      row(
        'whole crawl',
        busy.map((b) => b.ms),
      ),
    ]);
    printTable(`POST /search idle, ${IDLE_SEARCHES} requests, a new text each time, ms`, [
      ['when', 'live entries', 'p50', 'p99'],
      ['before the crawl', `${startEntries}`, fmt(percentile(idleStart, 50)), fmt(idleStartP99)],
      ['after the crawl', `${endEntries}`, fmt(percentile(idleEnd, 50)), fmt(idleEndP99)],
    ]);
    process.stdout.write(`\n${loadBefore} before the crawl, ${loadAfter} after; os.loadavg() ${loadAverage()}\n`);
  } finally {
    await registry.stop();
    if (KEEP_DATABASE) process.stdout.write(`kept the crawled database: ${database.name}\n`);
    else await database.drop();
    await publisher.close();
  }
}

if (process.argv[2] === '--publish') {
  publish(Number(process.argv[3]), Number(process.argv[4]));
} else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
