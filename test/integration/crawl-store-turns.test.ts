// The crawls of one process fetch at the same time and store one at a time (src/crawl/crawler.ts, createCrawler):
// embedding and writing a source take both cores (the model one, PostgreSQL's writes the other), so two sources
// stored at once leave searches none (docs/performance.md "Ingest", the 10k crawl with CRAWL_CONCURRENCY 1 and 2).
// Two sources crawled at once on loopback, the embedder timed, real PostgreSQL.
import { loadConfig } from '../../src/config';
import { createWebCrawler, upsertSource } from '../../src/crawl';
import type { Embedder } from '../../src/embedding/embedder';
import { createLogger } from '../../src/logger';
import { createTestCrawlClient, startPublisherServer, type PublisherServer } from '../helpers/publisher-server';
import { useMigratedTestDatabase } from '../helpers/demo-database';

const database = useMigratedTestDatabase();

const HOSTS = ['north.test', 'south.test'];

let server: PublisherServer;
beforeAll(async () => {
  server = await startPublisherServer();
});
afterAll(async () => {
  await server?.close();
});

const requested = new Map<string, number>();
/** Serves three entries at `host`'s well-known catalog (once `answer` settles) and notes when it was read. */
function serve(host: string, answer: Promise<void> = Promise.resolve()): void {
  const body = JSON.stringify({
    specVersion: '1.0',
    entries: [1, 2, 3].map((n) => ({
      identifier: `urn:air:${host}:mcp:tool-${n}`,
      displayName: `${host} tool ${n}`,
      type: 'application/mcp-server-card+json',
      url: `https://${host}/mcp/${n}`,
      description: `Tool ${n} of ${host}`,
    })),
  });
  server.route(host, '/.well-known/ai-catalog.json', (_req, res) => {
    requested.set(host, performance.now());
    void answer.then(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
  });
}

/** An embedder whose every call takes 150 ms, each call's span kept: whether two sources' stores overlapped. */
function slowEmbedder(spans: Array<[number, number]>): Embedder {
  return {
    id: 'use-lite-512',
    dimensions: 512,
    async embed(texts) {
      const start = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 150));
      spans.push([start, performance.now()]);
      return texts.map((_, i) => Array.from({ length: 512 }, (_, d) => (d === i % 512 ? 1 : 0)));
    },
  };
}

function crawlerWith(embedder: Embedder, hosts: string[]) {
  const base = loadConfig();
  const config = loadConfig({
    databaseUrl: database.url,
    crawlAllowPrivate: true,
    crawl: { ...base.crawl, hostDelayMs: 0, maxCards: 0, schedulerEnabled: false, concurrency: 2 },
  });
  return createWebCrawler(
    { db: database.db, embedder, config, logger: createLogger('silent') },
    createTestCrawlClient((host) => hosts.includes(host)),
  );
}

async function sourceIds(hosts: string[]): Promise<string[]> {
  return Promise.all(
    hosts.map(async (host) =>
      String((await upsertSource(database.db, { location: `${server.origin(host)}/`, intervalSeconds: 3600 })).row.id),
    ),
  );
}

it('two sources crawled at once are fetched at once and stored one after the other', async () => {
  HOSTS.forEach((host) => serve(host));
  const spans: Array<[number, number]> = [];
  const crawler = crawlerWith(slowEmbedder(spans), HOSTS);
  try {
    const ids = await sourceIds(HOSTS);
    const reports = await Promise.all(ids.map((id) => crawler.crawlNow(id)));
    expect(reports.map((r) => [r.status, r.counts.added])).toEqual([
      ['ok', 3],
      ['ok', 3],
    ]);
    // Both catalogs were read before the first store ended: the fetches overlapped.
    const firstStoreEnd = Math.min(...spans.map(([, end]) => end));
    expect(Math.max(...HOSTS.map((host) => requested.get(host)!))).toBeLessThan(firstStoreEnd);
    // No embedding started while another was running.
    const ordered = [...spans].sort((a, b) => a[0] - b[0]);
    expect(ordered.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < ordered.length; i++) expect(ordered[i]![0]).toBeGreaterThanOrEqual(ordered[i - 1]![1]);
  } finally {
    await crawler.close();
  }
});

it('a crawl stopped while waiting for its turn stores nothing and gives its source back', async () => {
  const hosts = ['east.test', 'west.test'];
  // The first store holds in its embedding until the test lets it go: the second crawl waits for its turn meanwhile.
  // West's catalog is answered only once east's store has begun, so east has the turn whichever fetch ends first.
  let embedding!: () => void;
  const embeddingStarted = new Promise<void>((resolve) => (embedding = resolve));
  serve('east.test');
  serve('west.test', embeddingStarted);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held: Embedder = {
    id: 'use-lite-512',
    dimensions: 512,
    async embed(texts) {
      embedding();
      await released;
      return texts.map((_, i) => Array.from({ length: 512 }, (_, d) => (d === i % 512 ? 1 : 0)));
    },
  };
  const crawler = crawlerWith(held, hosts);
  const [east, west] = await sourceIds(hosts);
  const stop = new AbortController();
  const first = crawler.crawlNow(east!);
  let westRead!: () => void;
  const westCatalogRead = new Promise<void>((resolve) => (westRead = resolve));
  const second = crawler.crawlNow(west!, { signal: stop.signal, events: { onDocument: () => westRead() } });
  try {
    await embeddingStarted;
    await westCatalogRead;
    stop.abort(new Error('registry stopping'));
    release();
    await expect(second).rejects.toThrow('registry stopping');
    expect((await first).counts.added).toBe(3);
    const stored = await database.db
      .selectFrom('entries')
      .select('identifier')
      .where('identifier', 'like', 'urn:air:west.test:%')
      .execute();
    expect(stored).toEqual([]);
    const row = await database.db
      .selectFrom('sources')
      .select(['lease_until', 'last_crawl_at'])
      .where('id', '=', west as never)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ lease_until: null, last_crawl_at: null });
  } finally {
    release();
    // Both crawls end before the database closes, whatever the assertions said.
    await Promise.allSettled([first, second]);
    await crawler.close();
  }
});
