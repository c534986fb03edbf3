// POST /search at scale: latency p50/p99 and throughput over N synthetic entries (default 10k),
// recall@10 of the HNSW index against exact search, and the process RSS.
// Run through `npm run bench` (bench/run.ts) or `npx tsx bench/search.ts`.
// BENCH_ENTRIES sets N; the bench database ard_bench_search_<N> is reused when it is complete.
import fs from 'node:fs';
import { sql, type Kysely } from 'kysely';
import { loadConfig } from '../src/config';
import { connectDatabase } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import type { Database } from '../src/db/schema';
import type { CatalogEntry } from '../src/catalog/catalog-entry';
import { countLiveEntries } from '../src/catalog/entry-repository';
import { withQueryCache } from '../src/embedding/embedder';
import { UseLiteEmbedder } from '../src/embedding/use-lite-embedder';
import { demoManifestPaths } from '../src/ingest/demo-corpus';
import { embeddingColumnSql, HNSW_EF_SEARCH, prepareQuery, vectorSql, type QueryEmbedder } from '../src/search/relevance';
import { startRegistry } from '../src/server';
import { adminQuery, databaseUrl } from '../test/helpers/test-database';
import { ingestInLanes, labelledQueries, printTable, percentile } from './bench-util';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 10_000);
/** BENCH_DATABASE: measure an existing, already indexed database instead of building one (read only). */
const EXISTING_DB = process.env.BENCH_DATABASE ?? null;
const DB_NAME = EXISTING_DB ?? `ard_bench_search_${ENTRIES}`;
const CONCURRENCY = 8;
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
    if ((await countLiveEntries(handle.db)) === ENTRIES) return { url, built: false, seconds: 0 };
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
        process.stderr.write(`  embedded and stored ${done}/${entries.length} entries (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
      },
    });
    await sql`ANALYZE`.execute(handle.db);
  } finally {
    await handle.close();
  }
  return { url, built: true, seconds: (Date.now() - started) / 1000 };
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
    const q = await prepareQuery(db, embedder, text);
    const query = sql<{ identifier: string }>`
      SELECT v.identifier FROM entry_vectors v WHERE v.model = ${q.model} AND v.field = 'doc'
      ORDER BY ${embeddingColumnSql(q)} <=> ${vectorSql(q)} LIMIT 10`;
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

async function post(url: string, text: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: { text }, pageSize: 10 }),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`POST /search answered ${res.status}`);
  return performance.now() - started;
}

export async function runSearchBench(): Promise<void> {
  const embedder = withQueryCache(new UseLiteEmbedder());
  process.stderr.write(
    EXISTING_DB ? `search bench: existing database ${DB_NAME}\n` : `search bench: ${ENTRIES} synthetic entries in ${DB_NAME}\n`,
  );
  const db = await prepareDatabase(embedder);
  const registry = await startRegistry(
    // A fixed page-token secret: the registry writes nothing into the database it measures.
    loadConfig({
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
    await post(registry.url, 'warm up the model and the pool');
    // Distinct texts: every request pays for its query embedding (no cache hit).
    const cold: number[] = [];
    for (const text of texts) cold.push(await post(registry.url, text));
    // The same texts again: the query-embedding cache answers, the database work remains.
    const warm: number[] = [];
    for (const text of queries) warm.push(await post(registry.url, text));
    let done = 0;
    const until = Date.now() + THROUGHPUT_SECONDS * 1000;
    const concurrent: number[] = [];
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, w) => {
        for (let i = w; Date.now() < until; i += CONCURRENCY) {
          concurrent.push(await post(registry.url, `${texts[i % texts.length]} ${Math.floor(i / texts.length)}`));
          done++;
        }
      }),
    );
    const recall = await hnswRecall(registry.ctx.db, embedder, queries.slice(0, 100));
    // pgvector's default hnsw.ef_search is 40; what a larger one would buy.
    const recall100 = await hnswRecall(registry.ctx.db, embedder, queries.slice(0, 100), 100);
    const recall200 = await hnswRecall(registry.ctx.db, embedder, queries.slice(0, 100), 200);
    const rss = process.memoryUsage().rss / 1024 / 1024;
    const entries = await countLiveEntries(registry.ctx.db);
    const seqSeconds = cold.reduce((a, b) => a + b, 0) / 1000;
    printTable(`POST /search over ${entries} entries (PostgreSQL ${DB_NAME}, 2-core machine shared with other work)`, [
      [
        'corpus build (embed + store)',
        db.built
          ? `${db.seconds.toFixed(0)} s for ${ENTRIES} entries (${((db.seconds * 1000) / ENTRIES).toFixed(1)} ms/entry)`
          : `reused ${DB_NAME}`,
        '',
      ],
      ['latency p50, new query text (incl. embedding)', `${percentile(cold, 50).toFixed(1)} ms`, 'target < 50 ms'],
      ['latency p99, new query text', `${percentile(cold, 99).toFixed(1)} ms`, ''],
      [
        'latency p50 / p99, repeated query (cached embedding)',
        `${percentile(warm, 50).toFixed(1)} / ${percentile(warm, 99).toFixed(1)} ms`,
        '',
      ],
      ['throughput, sequential', `${(cold.length / seqSeconds).toFixed(1)} req/s`, ''],
      [
        `throughput, concurrency ${CONCURRENCY} (${THROUGHPUT_SECONDS} s, new texts)`,
        `${(done / THROUGHPUT_SECONDS).toFixed(1)} req/s`,
        `p50 ${percentile(concurrent, 50).toFixed(0)} ms, p99 ${percentile(concurrent, 99).toFixed(0)} ms`,
      ],
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
      ['process RSS (server + load generator, in-process)', `${rss.toFixed(0)} MB`, 'target < 600 MB'],
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
