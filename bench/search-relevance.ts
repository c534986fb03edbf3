// A minimal relevance check over the labelled set (bench/relevance/registry-queries.json) on the demo
// corpus: recall@5 and MRR@10 for hybrid ranking vs lexical-only vs vector-only. The full relevance
// bench is bench/relevance.ts when present (bench/run.ts prefers it).
// Metrics count grade-2 entries ("exactly serves the need"): recall@5 = found in the top 5 / min(5, judged);
// MRR@10 = 1 / rank of the first one in the top 10 (0 when none).
import { sql, type Kysely } from 'kysely';
import { countLiveEntries } from '../src/catalog/entry-repository';
import { connectDatabase } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import type { Database } from '../src/db/schema';
import { withQueryCache } from '../src/embedding/embedder';
import { UseLiteEmbedder } from '../src/embedding/use-lite-embedder';
import { loadDemoCorpusIfEmpty } from '../src/ingest/load-files';
import { createLogger } from '../src/logger';
import { embeddingColumnSql, lexicalSignalSql, prepareQuery, vectorSql, type PreparedQuery } from '../src/search/relevance';
import { rankEntries } from '../src/search/search-service';
import { TEMPLATE_DB, adminQuery, databaseUrl } from '../test/helpers/test-database';
import { labelledQueries, printTable } from './bench-util';

const DB_NAME = 'ard_bench_demo_corpus';

async function lexicalOnly(db: Kysely<Database>, q: PreparedQuery): Promise<string[]> {
  const rows = await sql<{ identifier: string }>`
    SELECT identifier FROM (SELECT e.identifier, ${lexicalSignalSql(q)} AS s FROM entries e WHERE e.deleted_at IS NULL) x
    WHERE s > 0 ORDER BY s DESC, identifier LIMIT 10`.execute(db);
  return rows.rows.map((r) => r.identifier);
}

async function vectorOnly(db: Kysely<Database>, q: PreparedQuery): Promise<string[]> {
  const rows = await sql<{ identifier: string }>`
    SELECT v.identifier FROM entry_vectors v WHERE v.model = ${q.model} AND v.field = 'doc'
    ORDER BY ${embeddingColumnSql(q)} <=> ${vectorSql(q)}, v.identifier LIMIT 10`.execute(db);
  return rows.rows.map((r) => r.identifier);
}

export async function runSearchRelevanceBench(): Promise<void> {
  const exists = async (name: string) => ((await adminQuery('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount ?? 0) > 0;
  if (!(await exists(DB_NAME))) {
    // The tests' template already holds the embedded demo corpus: cloning it saves minutes of embedding.
    await adminQuery(`CREATE DATABASE ${DB_NAME}${(await exists(TEMPLATE_DB)) ? ` TEMPLATE ${TEMPLATE_DB}` : ''}`);
  }
  const handle = await connectDatabase({ databaseUrl: databaseUrl(DB_NAME), dataDir: '' });
  const embedder = withQueryCache(new UseLiteEmbedder());
  try {
    await migrateToLatest(handle.db);
    await loadDemoCorpusIfEmpty({ db: handle.db, embedder }, createLogger('warn'));
    const queries = labelledQueries();
    const systems: Record<string, (q: PreparedQuery) => Promise<string[]>> = {
      hybrid: async (q) => (await rankEntries(handle.db, q, [])).slice(0, 10).map((r) => r.entry.identifier),
      'lexical-only': (q) => lexicalOnly(handle.db, q),
      'vector-only': (q) => vectorOnly(handle.db, q),
    };
    const totals = Object.fromEntries(Object.keys(systems).map((name) => [name, { recall: 0, mrr: 0 }]));
    for (const query of queries) {
      const q = await prepareQuery(handle.db, embedder, query.text);
      const wanted = Object.entries(query.relevant).filter(([, grade]) => grade === 2).map(([id]) => id);
      for (const [name, rank] of Object.entries(systems)) {
        const top = await rank(q);
        totals[name].recall += top.slice(0, 5).filter((id) => wanted.includes(id)).length / Math.min(5, wanted.length);
        const first = top.findIndex((id) => wanted.includes(id));
        totals[name].mrr += first === -1 ? 0 : 1 / (first + 1);
      }
    }
    printTable(`Relevance on the demo corpus (${await countLiveEntries(handle.db)} entries, ${queries.length} labelled queries, grade-2 judgements)`, [
      ['ranking', 'recall@5', 'MRR@10'],
      ...Object.entries(totals).map(([name, t]) => [name, (t.recall / queries.length).toFixed(3), (t.mrr / queries.length).toFixed(3)]),
    ]);
  } finally {
    await handle.close();
  }
}

if (require.main === module) {
  runSearchRelevanceBench().catch((error) => {
    process.stderr.write(`${(error as Error).stack}\n`);
    process.exitCode = 1;
  });
}
