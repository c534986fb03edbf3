// POST /search at scale over N synthetic entries (default 10k): its latency side by side with the floor of a
// hybrid search on the same table (the query embedding alone + the bare HNSW top-10, measured interleaved with
// it), POST /explore with a text and three facets, throughput at concurrency 8 and 32 with the CPU a search costs
// (this process and PostgreSQL), recall@10 of the HNSW index against exact search, the process RSS, and the
// machine's load average at start and end (the figures move with it).
// Run through `npm run bench -- search` (bench/run.ts) or `npx tsx bench/search.ts`.
// BENCH_ENTRIES sets N (e.g. BENCH_ENTRIES=100000); the bench database ard_bench_search_<N> is reused when it
// holds N live entries, else built (10k: ~5 min here; 100k: ~45 min).
import fs from 'node:fs';
import os from 'node:os';
import { sql, type Kysely } from 'kysely';
import { loadConfig } from '../src/config';
import { connectDatabase } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import type { Database } from '../src/db/schema';
import type { CatalogEntry } from '../src/catalog/catalog-entry';
import { countLiveEntries } from '../src/catalog/entry-repository';
import { withQueryCache, type Embedder } from '../src/embedding/embedder';
import { UseLiteEmbedder } from '../src/embedding/use-lite-embedder';
import { demoManifestPaths } from '../src/ingest/demo-corpus';
import {
  embeddingColumnSql,
  HNSW_EF_SEARCH,
  entryStateRanking,
  prepareQuery,
  vectorSql,
  type PreparedQuery,
  type QueryEmbedder,
} from '../src/search/relevance';
import { createSearchService } from '../src/search/search-service';
import type { AppContext } from '../src/context';
import { startRegistry } from '../src/server';
import { adminQuery, databaseUrl } from '../test/helpers/test-database';
import {
  backendPids,
  bundledModel,
  cpuMs,
  ingestInLanes,
  labelledQueries,
  loadAverage,
  printTable,
  percentile,
  searchPage,
  timedSearch,
} from './bench-util';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 10_000);
/** BENCH_DATABASE: measure an existing, already indexed database instead of building one (read only). */
const EXISTING_DB = process.env.BENCH_DATABASE ?? null;
const DB_NAME = EXISTING_DB ?? `ard_bench_search_${ENTRIES}`;
const CONCURRENCIES = [8, 32];
const THROUGHPUT_SECONDS = 10;

/** A deterministic PRNG (mulberry32), so every run builds the same synthetic corpus. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Synthetic entries made of the demo corpus' own vocabulary: real sentences, names, tags and tools, recombined. */
export function syntheticEntries(count: number): CatalogEntry[] {
  const corpus = demoManifestPaths().flatMap((file) => (JSON.parse(fs.readFileSync(file, 'utf8')) as { entries: CatalogEntry[] }).entries);
  const sentences = corpus.flatMap((e) => (e.description ?? '').split(/(?<=\.)\s+/)).filter((s) => s.length > 20);
  const nameWords = corpus.flatMap((e) => e.displayName.split(/[\s-]+/)).filter((w) => /^[A-Za-z][A-Za-z0-9]{2,}$/.test(w));
  const tags = [...new Set(corpus.flatMap((e) => e.tags ?? []))];
  const capabilities = [...new Set(corpus.flatMap((e) => e.capabilities ?? []))];
  const types = ['application/mcp-server-card+json', 'application/a2a-agent-card+json', 'application/ai-skill'];
  const next = random(42);
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
  const some = <T>(list: T[], n: number) => [...new Set(Array.from({ length: n }, () => pick(list)))];
  return Array.from({ length: count }, (_, i) => ({
    identifier: `urn:air:bench${i % 97}.example:mcp:entry-${i}`,
    displayName: `${pick(nameWords)} ${pick(nameWords)}`,
    type: pick(types),
    url: `https://bench${i % 97}.example/entries/${i}.json`,
    description: some(sentences, 1 + Math.floor(next() * 3)).join(' '),
    tags: some(tags, 1 + Math.floor(next() * 4)),
    ...(capabilities.length > 0 && next() < 0.6 ? { capabilities: some(capabilities, 1 + Math.floor(next() * 4)) } : {}),
    metadata: { category: pick(['devops', 'data', 'productivity', 'finance', 'search']) },
  }));
}

async function prepareDatabase(embedder: QueryEmbedder): Promise<{ url: string; built: boolean; seconds: number }> {
  const url = databaseUrl(DB_NAME);
  if (EXISTING_DB) return { url, built: false, seconds: 0 };
  const exists = ((await adminQuery('SELECT 1 FROM pg_database WHERE datname = $1', [DB_NAME])).rowCount ?? 0) > 0;
  if (!exists) await adminQuery(`CREATE DATABASE ${DB_NAME}`);
  const handle = await connectDatabase({ databaseUrl: url, dataDir: '' });
  const started = Date.now();
  try {
    await migrateToLatest(handle.db);
    const complete = (await countLiveEntries(handle.db)) === ENTRIES;
    if (!complete) {
      // Deterministic entries + content-hash skipping: an interrupted build resumes where it stopped.
      const entries = syntheticEntries(ENTRIES);
      // Small chunks: each is committed, so an interrupted build keeps what it embedded. Two at a time: one's write
      // runs while the next is embedded.
      let done = 0;
      await ingestInLanes({ db: handle.db, embedder }, entries, {
        manifestSize: 250,
        lanes: 2,
        origin: 'bench:synthetic',
        onManifest: (stored) => {
          done += stored;
          process.stderr.write(
            `  embedded and stored ${done}/${entries.length} entries (${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
          );
        },
      });
    }
    // The state autovacuum brings a running registry's tables to (a reused database too: VACUUM skips the pages
    // already all-visible). Without it the visibility map is empty and each index-only probe of `entries` in the
    // vector retrieval reads the heap as well (docs/performance.md, "Where the time goes at 10k").
    await sql`VACUUM ANALYZE`.execute(handle.db);
    return { url, built: !complete, seconds: complete ? 0 : (Date.now() - started) / 1000 };
  } finally {
    await handle.close();
  }
}

/** The bare vector top-10 over the doc vectors: what the HNSW index answers alone, no join, no filter, no signals. */
function bareTop10(q: Pick<PreparedQuery, 'model' | 'vector' | 'dimensions'>) {
  return sql<{ identifier: string }>`
    SELECT v.identifier FROM entry_vectors v WHERE v.model = ${q.model} AND v.field = 'doc'
    ORDER BY ${embeddingColumnSql(q)} <=> ${vectorSql(q)} LIMIT 10`;
}

/** Share of the exact top-10 (sequential scan) that the HNSW index returns. */
export async function hnswRecall(
  db: Kysely<Database>,
  embedder: QueryEmbedder,
  texts: string[],
  efSearch?: number,
): Promise<{ recall: number; indexUsed: boolean }> {
  let found = 0;
  let total = 0;
  let indexUsed = false;
  for (const text of texts) {
    const query = bareTop10(await prepareQuery(db, embedder, text));
    if (!indexUsed) {
      // Whether the planner picks the index on its own (it does at 10k rows, not at a few hundred).
      const plan = await sql<{ 'QUERY PLAN': string }>`EXPLAIN ${query}`.execute(db);
      indexUsed = plan.rows.some((r) => r['QUERY PLAN'].includes('entry_vectors_use_lite_doc_hnsw'));
    }
    // Small tables get a sequential scan by choice: force the index so its recall is what is measured.
    const approx = await db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      if (efSearch) await sql.raw(`SET LOCAL hnsw.ef_search = ${Math.trunc(efSearch)}`).execute(trx);
      return (await query.execute(trx)).rows.map((r) => r.identifier);
    });
    const exact = await db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_indexscan = off`.execute(trx);
      return (await query.execute(trx)).rows.map((r) => r.identifier);
    });
    found += approx.filter((id) => exact.includes(id)).length;
    total += exact.length;
  }
  return { recall: found / total, indexUsed };
}

/** The three facets of the explore target, over the matched set of a text (or the whole registry). */
const EXPLORE_FACETS = { resultType: { facets: [{ field: 'type' }, { field: 'tags' }, { field: 'publisher' }] } };

/** POST /explore with EXPLORE_FACETS, the matched set of `text` (null: every entry); ms. */
async function explore(url: string, text: string | null): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/explore`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...(text === null ? {} : { query: { text } }), ...EXPLORE_FACETS }),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`POST /explore answered ${res.status}`);
  return performance.now() - started;
}

interface SideBySide {
  /** POST /search over HTTP, a text the registry has not embedded before. */
  http: number[];
  /** The search service's search() in-process without the match cache, the same text right after its POST (embedding cached): no HTTP. */
  service: number[];
  /** POST /search of the same text again, right after: the match cache answers. */
  repeated: number[];
  /** The query embedding alone: the model without the query cache. */
  embedding: number[];
  /** The same with the model's float32 graph (EMBEDDING_PRECISION=float32), the baseline of the int8 default. */
  embeddingFloat32: number[];
  /** The bare HNSW top-10 (bareTop10) at the search path's ef_search, vector precomputed. */
  hnsw: number[];
}

/**
 * The four measurements of each text one after another (POST /search followed by the same search in-process without
 * the match cache and the same POST again, which the match cache answers; the embedding alone in the model's precision
 * and in float32; the bare HNSW scan), their order rotating from text to text, so the machine's changing speed moves
 * them alike. The bare scans run on their own connection with the search
 * path's hnsw.ef_search set for the session.
 */
async function measureSideBySide(
  registry: { url: string; ctx: AppContext },
  model: Embedder,
  float32: Embedder,
  databaseUrl: string,
  texts: string[],
): Promise<SideBySide> {
  const vectors: number[][] = [];
  for (const text of texts) vectors.push((await model.embed([text]))[0]);
  const handle = await connectDatabase({ databaseUrl, dataDir: '' });
  // The registry's search service without its match cache, which would answer the text it has just ranked.
  const { ctx } = registry;
  const uncached = createSearchService({
    db: ctx.readDb,
    embedder: ctx.embedder,
    vocabulary: ctx.vocabulary,
    typeWeights: ctx.config.searchTypeWeights,
    entryStates: entryStateRanking(ctx.config),
    pageTokens: ctx.pageTokens,
    publicUrl: ctx.config.publicUrl,
  });
  const times: SideBySide = { http: [], service: [], repeated: [], embedding: [], embeddingFloat32: [], hnsw: [] };
  await float32.embed(['warm up the float32 graph']);
  try {
    await handle.db.connection().execute(async (conn) => {
      await sql.raw(`SET hnsw.ef_search = ${HNSW_EF_SEARCH}`).execute(conn);
      const top10 = (i: number) => bareTop10({ model: model.id, dimensions: model.dimensions, vector: vectors[i] }).execute(conn);
      await top10(0);
      const timed = async (into: number[], work: () => Promise<unknown>) => {
        const started = performance.now();
        await work();
        into.push(performance.now() - started);
      };
      for (let i = 0; i < texts.length; i++) {
        const steps = [
          async () => {
            await timed(times.http, () => timedSearch(registry.url, texts[i]));
            await timed(times.service, () => uncached.search({ text: texts[i], pageSize: 10 }));
            await timed(times.repeated, () => timedSearch(registry.url, texts[i]));
          },
          () => timed(times.embedding, () => model.embed([texts[i]])),
          () => timed(times.embeddingFloat32, () => float32.embed([texts[i]])),
          () => timed(times.hnsw, () => top10(i)),
        ];
        for (let k = 0; k < steps.length; k++) await steps[(i + k) % steps.length]();
      }
    });
  } finally {
    await handle.close();
  }
  return times;
}

/**
 * `concurrency` clients posting new texts back to back for THROUGHPUT_SECONDS, and the CPU each search cost: this
 * process's (the registry, its model thread and the load generator) and PostgreSQL's backends' (from /proc: null
 * when the server is not on this machine).
 */
async function measureThroughput(
  url: string,
  db: Kysely<Database>,
  texts: string[],
  concurrency: number,
): Promise<{ perSecond: number; ms: number[]; processCpuMs: number; postgresCpuMs: number | null }> {
  const ms: number[] = [];
  const pidsBefore = await backendPids(db);
  const postgresBefore = cpuMs(pidsBefore);
  const processBefore = process.cpuUsage();
  const until = Date.now() + THROUGHPUT_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      // The round number and the concurrency make every text new to the query cache.
      for (let i = w; Date.now() < until; i += concurrency) {
        ms.push(await timedSearch(url, `${texts[i % texts.length]} ${concurrency * 1000 + Math.floor(i / texts.length)}`));
      }
    }),
  );
  const processUsed = process.cpuUsage(processBefore);
  // Backends the pool opened during the run count whole; one it closed is lost (none at this concurrency). No CPU
  // read at all: the server is not on this machine.
  const postgresAfter = cpuMs([...new Set([...pidsBefore, ...(await backendPids(db))])]);
  return {
    perSecond: ms.length / THROUGHPUT_SECONDS,
    ms,
    processCpuMs: (processUsed.user + processUsed.system) / 1000 / ms.length,
    postgresCpuMs: postgresAfter === 0 ? null : (postgresAfter - postgresBefore) / ms.length,
  };
}

const CORES = os.cpus().length;
const p50p99 = (ms: number[]) => `${percentile(ms, 50).toFixed(1)} / ${percentile(ms, 99).toFixed(1)} ms`;
export async function runSearchBench(): Promise<void> {
  const loadAtStart = loadAverage();
  const { embedder: model } = await bundledModel();
  const float32 = new UseLiteEmbedder({ runtime: 'onnxruntime', precision: 'float32' });
  const embedder = withQueryCache(model);
  process.stderr.write(
    EXISTING_DB ? `search bench: existing database ${DB_NAME}\n` : `search bench: ${ENTRIES} synthetic entries in ${DB_NAME}\n`,
  );
  const db = await prepareDatabase(embedder);
  const registry = await startRegistry(
    // A fixed page-token secret and no liveness probes (they would write probe results for the synthetic entries'
    // hosts, which do not exist, and demote them mid-run): the registry writes nothing into the database it measures.
    loadConfig({
      liveness: { ...loadConfig().liveness, probes: false },
      databaseUrl: db.url,
      port: 0,
      host: '127.0.0.1',
      logLevel: 'silent',
      loadDemoCorpus: false,
      rateLimitPerMinute: 0,
      pageTokenSecret: 'bench',
    }),
    { embedder },
  );
  try {
    const queries = labelledQueries().map((q) => q.text);
    const texts = [...queries, ...queries.map((q) => `${q} please`)];
    await timedSearch(registry.url, 'warm up the model and the pool');
    // Distinct texts: every request pays for its query embedding (no cache hit).
    const side = await measureSideBySide(registry, model, float32, db.url, texts).finally(() => float32.close());
    // A new text's first page, then its second through the page token: the first ranks, the second reads its page.
    const firstPages: number[] = [];
    const nextPages: number[] = [];
    for (const text of queries.slice(0, 100)) {
      const first = await searchPage(registry.url, `${text} next`);
      firstPages.push(first.ms);
      if (first.pageToken) nextPages.push((await searchPage(registry.url, `${text} next`, first.pageToken)).ms);
    }
    // Explore: a new text each time (its matched set, then the facets over it), and the whole registry.
    const exploreText: number[] = [];
    for (const text of queries.slice(0, 100)) exploreText.push(await explore(registry.url, `${text} facets`));
    const exploreAll: number[] = [];
    for (let i = 0; i < 10; i++) exploreAll.push(await explore(registry.url, null));
    const concurrent = [];
    for (const concurrency of CONCURRENCIES)
      concurrent.push({ concurrency, ...(await measureThroughput(registry.url, registry.ctx.db, texts, concurrency)) });
    const recall = await hnswRecall(registry.ctx.db, embedder, queries.slice(0, 100));
    // pgvector's default hnsw.ef_search is 40; what a larger one would buy.
    const recall100 = await hnswRecall(registry.ctx.db, embedder, queries.slice(0, 100), 100);
    const recall200 = await hnswRecall(registry.ctx.db, embedder, queries.slice(0, 100), 200);
    const rss = process.memoryUsage().rss / 1024 / 1024;
    const entries = await countLiveEntries(registry.ctx.db);
    const seqSeconds = side.http.reduce((a, b) => a + b, 0) / 1000;
    const floor = percentile(side.embedding, 50) + percentile(side.hnsw, 50);
    printTable(`POST /search over ${entries} entries (PostgreSQL ${DB_NAME}, 2-core machine shared with other work)`, [
      [
        'corpus build (embed + store)',
        db.built
          ? `${db.seconds.toFixed(0)} s for ${ENTRIES} entries (${((db.seconds * 1000) / ENTRIES).toFixed(1)} ms/entry)`
          : `reused ${DB_NAME}`,
        '',
      ],
      [`load average 1/5/15 min, start → end (${CORES} cores)`, `${loadAtStart} → ${loadAverage()}`, 'the figures below move with it'],
      [
        `latency p50 / p99, new query text (incl. embedding; ${texts.length} texts)`,
        p50p99(side.http),
        'target p50 < 50 ms; interleaved with the four rows below',
      ],
      ['the same search in-process right after (search service, embedding cached, no HTTP)', p50p99(side.service), ''],
      ['query embedding alone p50 / p99 (the model, no cache)', p50p99(side.embedding), ''],
      [
        '  the same, float32 graph (EMBEDDING_PRECISION=float32; decision 0048)',
        p50p99(side.embeddingFloat32),
        'interleaved with the row above',
      ],
      [`bare HNSW top-10 p50 / p99 (doc vectors, ef_search ${HNSW_EF_SEARCH}, vector given)`, p50p99(side.hnsw), ''],
      ['floor: embedding p50 + bare HNSW p50', `${floor.toFixed(1)} ms`, ''],
      ['POST /search p50 / floor', `${(percentile(side.http, 50) / floor).toFixed(1)}×`, 'target ≤ 2× at 100k'],
      [
        'latency p50 / p99, the same text again right after (the match cache answers)',
        p50p99(side.repeated),
        'interleaved with the new text row',
      ],
      [
        `the next page of a new text (pageToken; ${nextPages.length} texts) / its first page`,
        `${p50p99(nextPages)} / ${p50p99(firstPages)}`,
        'the match cache keeps the ranked list between pages',
      ],
      [
        'POST /explore p50 / p99, a new text, facets type + tags + publisher (100 texts)',
        p50p99(exploreText),
        'target p50 ≤ 150 ms at 100k',
      ],
      ['POST /explore p50 / p99, whole registry, the same facets (10 runs)', p50p99(exploreAll), ''],
      ['throughput, sequential', `${(side.http.length / seqSeconds).toFixed(1)} req/s`, ''],
      ...concurrent.flatMap(({ concurrency, perSecond, ms, processCpuMs, postgresCpuMs }) => [
        [
          `throughput, concurrency ${concurrency} (${THROUGHPUT_SECONDS} s, new texts)`,
          `${perSecond.toFixed(1)} req/s`,
          `p50 ${percentile(ms, 50).toFixed(0)} ms, p99 ${percentile(ms, 99).toFixed(0)} ms`,
        ],
        [
          `  CPU per search at concurrency ${concurrency}: this process / PostgreSQL`,
          `${processCpuMs.toFixed(1)} / ${postgresCpuMs === null ? 'n/a' : postgresCpuMs.toFixed(1)} ms`,
          `${CORES} cores: at most ${((CORES * 1000) / (processCpuMs + (postgresCpuMs ?? 0))).toFixed(0)} req/s`,
        ],
      ]),
      [
        "HNSW recall@10 vs exact at pgvector's default ef_search 40 (100 queries)",
        recall.recall.toFixed(3),
        `planner picks the index unforced: ${recall.indexUsed ? 'yes' : 'no'}`,
      ],
      [
        'HNSW recall@10 with hnsw.ef_search = 100 / 200',
        `${recall100.recall.toFixed(3)} / ${recall200.recall.toFixed(3)}`,
        `target >= 0.95 at the search path's ef_search (HNSW_EF_SEARCH = ${HNSW_EF_SEARCH})`,
      ],
      [
        'process RSS (server + load generator, in-process)',
        `${rss.toFixed(0)} MB`,
        'target < 600 MB for the registry alone: bench:load spawns it',
      ],
    ]);
  } finally {
    await registry.stop();
  }
}

if (require.main === module) {
  runSearchBench().catch((error) => {
    process.stderr.write(`${(error as Error).stack}\n`);
    process.exitCode = 1;
  });
}
