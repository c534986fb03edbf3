// The match cache (src/search/relevance/match-cache.ts, decision 0049) and the index generation it rests on
// (migration 0027). A process keeps the ranked lists it computed while the index does not change: a next page, an
// explore and a text asked again are not ranked again, and a write any other connection commits (another registry
// process, a crawl, an operator's SQL) is seen by the next search. The writer here is a second pool on the same
// database, as another process would be.
import { sql, type Kysely } from 'kysely';
import { connectDatabase, type DatabaseHandle } from '../../src/db/connect';
import type { Database } from '../../src/db/schema';
import { withQueryCache } from '../../src/embedding/embedder';
import { UseLiteEmbedder } from '../../src/embedding/use-lite-embedder';
import { ingestManifest } from '../../src/ingest/ingest-manifest';
import { createPageTokenCodec } from '../../src/search/paging';
import { MatchCache, readIndexGeneration, type QueryEmbedder } from '../../src/search/relevance';
import { createSearchService, type SearchService, type SearchStage } from '../../src/search/search-service';
import { useDemoCorpusDatabase } from '../helpers/demo-database';
import { sampleValue } from '../helpers/metrics';
import { startTestRegistry } from '../helpers/registry';

const demo = useDemoCorpusDatabase();
const model = new UseLiteEmbedder();
const embedder = withQueryCache(model);
let writer: DatabaseHandle;

beforeAll(async () => {
  writer = await connectDatabase({ databaseUrl: demo.url, dataDir: '' });
});
afterAll(async () => {
  await writer.close();
  await model.close();
});

const MCP = 'application/mcp-server-card+json';
const ENTRY_STATES = { livenessDemotion: 0.5, dropDeadAfterSeconds: 86_400, verifiedBoost: 0 };

/** A search service with its own match cache, counting the need texts it ranks (each ranking observes 'sql' once). */
function cachedSearch(
  over: QueryEmbedder = embedder,
  db: Kysely<Database> = demo.db,
): { search: SearchService; cache: MatchCache; ranked: () => number } {
  const cache = new MatchCache(10_000);
  let ranked = 0;
  const search = createSearchService({
    db,
    embedder: over,
    pageTokens: createPageTokenCodec('match-cache-test'),
    publicUrl: 'http://registry.test/',
    entryStates: ENTRY_STATES,
    matchCache: cache,
    timings: { observe: (stage: SearchStage) => void (stage === 'sql' && ranked++) },
  });
  return { search, cache, ranked: () => ranked };
}

/** Dead for two days (over ENTRY_STATES.dropDeadAfterSeconds), written by the other connection: search leaves it out. */
async function markDeadForTwoDays(identifier: string): Promise<void> {
  await sql`
    INSERT INTO entry_liveness (identifier, content_hash, state, probe, checked_at, next_probe_at, dead_since)
    SELECT identifier, content_hash, 'dead', 'url', now(), now() + interval '1 day', now() - interval '2 days'
    FROM entries WHERE identifier = ${identifier}`.execute(writer.db);
}

function manifestWith(identifier: string, displayName: string, description: string) {
  return {
    specVersion: '1.0',
    host: { displayName: 'Cache Probe Host' },
    entries: [{ identifier, displayName, description, type: MCP, url: `https://cache-probe.example.com/${identifier.split(':').pop()}` }],
  };
}

const ids = (results: Array<{ identifier: string }>) => results.map((r) => r.identifier);

/** The test database's pool, counting the statements whose text holds `part`. */
function counting(part: string): { db: Kysely<Database>; count: () => number } {
  let count = 0;
  const db = demo.db.withPlugin({
    transformQuery: ({ node }) => {
      if (JSON.stringify(node).includes(part)) count++;
      return node;
    },
    transformResult: async ({ result }) => result,
  });
  return { db, count: () => count };
}

describe('the index generation (migration 0027)', () => {
  const generation = async () => (await readIndexGeneration(writer.db)).split('@')[0];

  it('moves once for each committed transaction that changes the index, and not for one that changes nothing or rolls back', async () => {
    const start = BigInt(await generation());
    await writer.db.transaction().execute(async (trx) => {
      // Three statements, one transaction: one step.
      await sql`UPDATE entries SET fetched_at = now() WHERE identifier = (SELECT min(identifier) FROM entries)`.execute(trx);
      await sql`UPDATE entries SET fetched_at = now() WHERE identifier = (SELECT max(identifier) FROM entries)`.execute(trx);
      await sql`DELETE FROM tool_vectors WHERE false`.execute(trx);
    });
    expect(BigInt(await generation())).toBe(start + 1n);
    // A statement that touches no row marks nothing.
    await sql`UPDATE entries SET fetched_at = now() WHERE identifier = 'urn:air:nothing.example.com:none'`.execute(writer.db);
    expect(BigInt(await generation())).toBe(start + 1n);
    await expect(
      writer.db.transaction().execute(async (trx) => {
        await sql`UPDATE entries SET fetched_at = now() WHERE identifier = (SELECT min(identifier) FROM entries)`.execute(trx);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(BigInt(await generation())).toBe(start + 1n);
    // Each of the vector tables moves it too.
    await sql`UPDATE tag_vectors SET tag = tag WHERE tag = (SELECT min(tag) FROM tag_vectors)`.execute(writer.db);
    expect(BigInt(await generation())).toBe(start + 2n);
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM index_generation_marks`.execute(writer.db);
    expect(Number(rows[0].n)).toBe(0);
  });

  it('lets two writers commit side by side: the counter is taken at commit, after every other lock', async () => {
    // Tag vectors: writers of entries already take turns on the corpus statistics (migration 0003), these do not.
    const other = await connectDatabase({ databaseUrl: demo.url, dataDir: '' });
    try {
      const start = BigInt(await generation());
      const { rows } = await sql<{ tag: string }>`SELECT tag FROM tag_vectors ORDER BY tag LIMIT 2`.execute(writer.db);
      const [a, b] = rows.map((r) => r.tag);
      let release!: () => void;
      const bothWrote = new Promise<void>((resolve) => (release = resolve));
      let wrote = 0;
      const touch = (db: Kysely<Database>, tag: string) => sql`UPDATE tag_vectors SET tag = tag WHERE tag = ${tag}`.execute(db);
      // The first writer changes a, then b once the second has changed b; the second commits once both have written.
      // Were the counter taken by each statement, the second would wait for it while holding b, and the first would
      // wait for b while holding the counter: a deadlock. Taken at commit, the first waits for b until the second commits.
      const first = writer.db.transaction().execute(async (trx) => {
        await touch(trx, a);
        if (++wrote === 2) release();
        await bothWrote;
        await touch(trx, b);
      });
      const second = other.db.transaction().execute(async (trx) => {
        await touch(trx, b);
        if (++wrote === 2) release();
        await bothWrote;
      });
      await Promise.all([first, second]);
      expect(BigInt(await generation())).toBe(start + 2n);
    } finally {
      await other.close();
    }
  });
});

describe('the match cache', () => {
  it('ranks a text once for its pages, an explore of it and the same text again, while the index does not change', async () => {
    const { search, cache, ranked } = cachedSearch();
    const text = 'manage kubernetes clusters and pods';
    const first = await search.search({ text, pageSize: 3 });
    expect(ranked()).toBe(1);
    expect(first.pageToken).toBeDefined();
    const second = await search.search({ text, pageSize: 3, pageToken: first.pageToken });
    const explored = await search.explore({ text, facets: [{ field: 'type' }] });
    const again = await search.search({ text, pageSize: 3 });
    expect(ranked()).toBe(1);
    expect(cache.stats()).toMatchObject({ hits: 3, joined: 0, misses: 1, discarded: 0, lists: 1 });
    // The kept list answers as the ranking does: the same results as a service without a cache.
    const uncached = createSearchService({
      db: demo.db,
      embedder,
      pageTokens: createPageTokenCodec('match-cache-test'),
      publicUrl: 'http://registry.test/',
      entryStates: ENTRY_STATES,
    });
    const fresh = await uncached.search({ text, pageSize: 6 });
    expect([...ids(first.results), ...ids(second.results)]).toEqual(ids(fresh.results));
    expect(again.results.map((r) => [r.identifier, r.score])).toEqual(first.results.map((r) => [r.identifier, r.score]));
    expect(explored.facets.type.buckets.length).toBeGreaterThan(0);
  });

  it('ranks a text once when a search and an explore of it come at the same time, as the portal asks them', async () => {
    const { search, cache, ranked } = cachedSearch();
    const text = 'monitor uptime of my websites';
    const [page, explored] = await Promise.all([
      search.search({ text, pageSize: 5 }),
      search.explore({ text, facets: [{ field: 'type' }] }),
    ]);
    expect(ranked()).toBe(1);
    expect(cache.stats()).toMatchObject({ misses: 1, joined: 1, lists: 1 });
    expect(cache.rankingsInFlight).toBe(0);
    const total = explored.facets.type.buckets.reduce((n, b) => n + b.count, 0);
    expect(total).toBeGreaterThanOrEqual(page.results.length);
  });

  it('ranks again after another connection commits an entry, and the new entry is found', async () => {
    const { search, ranked } = cachedSearch();
    const text = 'quasar ledger reconciliation';
    const before = await search.search({ text, pageSize: 10 });
    const id = 'urn:air:cache-probe.example.com:quasar-ledger';
    expect(ids(before.results)).not.toContain(id);
    const report = await ingestManifest(
      { db: writer.db, embedder },
      manifestWith(id, 'Quasar Ledger', 'Reconciliation of quasar ledger accounts.'),
      { origin: 'test:match-cache' },
    );
    expect(report.rejected).toEqual([]);
    const after = await search.search({ text, pageSize: 10 });
    expect(ranked()).toBe(2);
    expect(ids(after.results)[0]).toBe(id);

    // A tombstone written by the other connection: ranked again, the entry gone and the page not one short.
    await sql`UPDATE entries SET deleted_at = now() WHERE identifier = ${id}`.execute(writer.db);
    const gone = await search.search({ text, pageSize: 10 });
    expect(ranked()).toBe(3);
    expect(ids(gone.results)).not.toContain(id);
    expect(gone.results.length).toBe(before.results.length);
  });

  it('does not keep a list ranked while another connection committed a write', async () => {
    const id = 'urn:air:cache-probe.example.com:nebula-invoice';
    let writeDuringRanking = true;
    // The query's embedding is asked for while the lexical retrieval runs: the write commits in the middle of the ranking.
    const writing: QueryEmbedder = {
      ...embedder,
      id: embedder.id,
      dimensions: embedder.dimensions,
      embed: (texts) => embedder.embed(texts),
      async embedOne(text) {
        if (writeDuringRanking) {
          writeDuringRanking = false;
          await ingestManifest({ db: writer.db, embedder }, manifestWith(id, 'Nebula Invoice', 'Nebula invoice archiving.'), {
            origin: 'test:match-cache',
          });
        }
        return embedder.embedOne(text);
      },
    };
    const { search, cache, ranked } = cachedSearch(writing);
    const text = 'nebula invoice archiving';
    await search.search({ text, pageSize: 10 });
    expect(cache.stats()).toMatchObject({ discarded: 1, lists: 0 });
    const next = await search.search({ text, pageSize: 10 });
    expect(ranked()).toBe(2);
    expect(ids(next.results)[0]).toBe(id);
    await sql`UPDATE entries SET deleted_at = now() WHERE identifier = ${id}`.execute(writer.db);
  });

  it("applies the entries' states to a kept list on every request", async () => {
    const { search, ranked } = cachedSearch();
    const text = 'send a message to a slack channel';
    const first = await search.search({ text, pageSize: 10 });
    const top = first.results[0].identifier;
    // Dead for two days (over dropDeadAfterSeconds): search leaves it out, with no write to the index.
    await markDeadForTwoDays(top);
    try {
      const after = await search.search({ text, pageSize: 10 });
      expect(ranked()).toBe(1);
      expect(ids(after.results)).not.toContain(top);
      expect(ids(after.results)).toContain(first.results[1].identifier);
    } finally {
      await sql`DELETE FROM entry_liveness WHERE identifier = ${top}`.execute(writer.db);
    }
  });

  it("reads the entries' states of a task text's lists in one statement, and applies them to each list", async () => {
    const stateReads = counting('entry_liveness');
    const { search } = cachedSearch(embedder, stateReads.db);
    const text = 'find the latest papers on agents and then summarise them in a slack message';
    const first = await search.search({ text, pageSize: 10 });
    expect(stateReads.count()).toBe(1);
    // The best entry of the whole text, which the needs' lists hold too, dead for two days: gone from every list.
    const top = first.results[0].identifier;
    await markDeadForTwoDays(top);
    try {
      const after = await search.search({ text, pageSize: 50 });
      expect(stateReads.count()).toBe(2);
      expect(ids(after.results)).not.toContain(top);
      expect(ids(after.results)).toEqual(expect.arrayContaining(ids(first.results).slice(1, 3)));
    } finally {
      await sql`DELETE FROM entry_liveness WHERE identifier = ${top}`.execute(writer.db);
    }
  });

  it('ranks every time for a filter on an entry state, whose tables the generation does not follow', async () => {
    const { search, ranked } = cachedSearch();
    const text = 'weather forecast';
    await search.search({ text, filter: { '@liveness': 'unknown' }, pageSize: 5 });
    await search.search({ text, filter: { '@liveness': 'unknown' }, pageSize: 5 });
    expect(ranked()).toBe(2);
    await search.search({ text, filter: { type: MCP }, pageSize: 5 });
    await search.search({ text, filter: { type: MCP }, pageSize: 5 });
    expect(ranked()).toBe(3);
  });

  it('keeps the lists of each need of a task text, so another text with the same need reuses it', async () => {
    const { search, cache } = cachedSearch();
    await search.search({ text: 'find the latest papers on agents and then summarise them in a slack message', pageSize: 5 });
    const { misses } = cache.stats();
    expect(misses).toBeGreaterThan(1);
    await search.search({ text: 'find the latest papers on agents and then summarise them in a slack message', pageSize: 5 });
    expect(cache.stats()).toMatchObject({ misses, hits: misses });
  });

  it("collapses products with the keys read at the list's generation, and reads them again after another connection's write", async () => {
    // Counts the statements that read product keys (product-collapse.ts) through this service's pool.
    const keyReads = counting('product_fields');
    const { search } = cachedSearch(embedder, keyReads.db);
    const text = 'walrus sonar buoy telemetry';
    const one = 'urn:air:cache-probe.example.com:walrus-sonar';
    const two = 'urn:air:cache-probe.example.com:walrus-sonar-mirror';
    const entry = (identifier: string, repositoryUrl: string) => ({
      ...manifestWith(identifier, 'Walrus Sonar', 'Walrus sonar buoy telemetry: pings, depth and temperature.').entries[0],
      metadata: { repositoryUrl },
    });
    const ingest = async (entries: object[]) =>
      expect(
        (await ingestManifest({ db: writer.db, embedder }, { specVersion: '1.0', entries }, { origin: 'test:match-cache' })).rejected,
      ).toEqual([]);
    await ingest([entry(one, 'https://github.com/walrus/sonar-mcp'), entry(two, 'https://github.com/walrus/sonar-mcp')]);

    const first = await search.search({ text, pageSize: 10 });
    const walrus = first.results.filter((r) => [one, two].includes(r.identifier));
    expect(walrus).toHaveLength(1);
    expect(walrus[0]['@collapsed']).toEqual([[one, two].find((id) => id !== walrus[0].identifier)]);
    expect(keyReads.count()).toBe(1);
    // The same list and another text's at the same generation: the keys already read are not read again.
    const again = await search.search({ text, pageSize: 10 });
    expect(again.results).toEqual(first.results);
    await search.search({ text: 'walrus sonar', pageSize: 10 });
    expect(keyReads.count()).toBeLessThanOrEqual(2);
    const reads = keyReads.count();
    await search.search({ text: 'walrus sonar', pageSize: 10 });
    expect(keyReads.count()).toBe(reads);

    // The other connection moves one of them to another repository: two products now, each its own result.
    await ingest([entry(two, 'https://github.com/walrus/sonar-mirror-mcp')]);
    const after = await search.search({ text, pageSize: 10 });
    expect(keyReads.count()).toBe(reads + 1);
    const listed = after.results.filter((r) => [one, two].includes(r.identifier));
    expect(listed.map((r) => r.identifier).sort()).toEqual([one, two]);
    expect(listed.map((r) => r['@collapsed'])).toEqual([undefined, undefined]);
  });

  it('is on in a registry by default (SEARCH_MATCH_CACHE_SIZE), counted in /metrics, and off at 0', async () => {
    const text = { query: { text: 'translate text between languages' }, pageSize: 5 };
    const lookups = (metrics: string, result: string) => sampleValue(metrics, `ard_search_match_cache_lookups{result="${result}"}`);
    const on = await startTestRegistry();
    try {
      const first = await on.post('/search', text);
      const again = await on.post('/search', text);
      expect(again.body.results).toEqual(first.body.results);
      const metrics = await fetch(`${on.url}/metrics`).then((r) => r.text());
      expect(lookups(metrics, 'miss')).toBe(1);
      expect(lookups(metrics, 'hit')).toBe(1);
    } finally {
      await on.close();
    }
    const off = await startTestRegistry({ config: { searchMatchCacheSize: 0 } });
    try {
      await off.post('/search', text);
      const metrics = await fetch(`${off.url}/metrics`).then((r) => r.text());
      expect(metrics).not.toContain('ard_search_match_cache_lookups');
    } finally {
      await off.close();
    }
  });
});
