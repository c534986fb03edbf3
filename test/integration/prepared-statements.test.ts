import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { connectDatabase, type DatabaseHandle } from '../../src/db/connect';
import { preparedStatementName } from '../../src/db/prepared-statements';
import type { Database } from '../../src/db/schema';
import { withQueryCache } from '../../src/embedding/embedder';
import { UseLiteEmbedder } from '../../src/embedding/use-lite-embedder';
import { normaliseFilter } from '../../src/search/query-filter';
import { matchText, needTexts, type QueryEmbedder } from '../../src/search/relevance';
import { createSearchService } from '../../src/search/search-service';
import { createPageTokenCodec } from '../../src/search/paging';
import { useDemoCorpusDatabase } from '../helpers/demo-database';

// The search statements without a filter are prepared once per connection, and the HNSW scan runs
// on a generic plan (docs/performance.md). One pooled connection, so pg_prepared_statements sees them all.
const demo = useDemoCorpusDatabase();
const model = new UseLiteEmbedder();
const embedder: QueryEmbedder = withQueryCache(model);
let single: DatabaseHandle;

beforeAll(async () => {
  single = await connectDatabase({ databaseUrl: demo.url, dataDir: '', poolSize: 1 });
});
afterAll(async () => {
  await single.close();
  await model.close();
});

interface Prepared {
  name: string;
  statement: string;
  generic_plans: string;
  custom_plans: string;
}

async function prepared(): Promise<Prepared[]> {
  const rows = await sql<Prepared>`SELECT name, statement, generic_plans, custom_plans FROM pg_prepared_statements ORDER BY name`.execute(
    single.db,
  );
  return rows.rows;
}

/** Executions so far of the prepared statements whose text includes `marker`, on the single connection. */
async function executions(marker: string): Promise<number> {
  const rows = await sql<{ runs: string }>`
    SELECT coalesce(sum(generic_plans + custom_plans), 0) AS runs FROM pg_prepared_statements WHERE strpos(statement, ${marker}) > 0`.execute(
    single.db,
  );
  return Number(rows.rows[0].runs);
}

describe('prepared search statements', () => {
  it('prepares the unfiltered search statements once and plans the HNSW scan and the vocabulary lookup generically', async () => {
    const texts = [
      'send a message to a slack channel',
      'kubernets pods',
      'query my postgres database',
      'weather forecast',
      'github pull requests',
      'translate text',
    ];
    const first = await matchText({ db: single.db, embedder: embedder }, texts[0], normaliseFilter(undefined));
    for (const text of texts.slice(1)) await matchText({ db: single.db, embedder: embedder }, text, normaliseFilter(undefined));
    const statements = await prepared();
    // Corrections, term statistics, lexical retrieval, HNSW scan, the new vector candidates' signals, cosines of the
    // lexical candidates, topic labels, the best candidates' tool vectors.
    expect(statements).toHaveLength(8);
    expect(statements.some((s) => s.statement.includes('unnest($') && s.statement.includes('AS cand(identifier)'))).toBe(true);
    expect(statements.some((s) => s.statement.includes('FROM tag_vectors'))).toBe(true);
    expect(statements.some((s) => s.statement.includes('FROM tool_vectors'))).toBe(true);
    for (const s of statements) expect(s.name).toBe(preparedStatementName(s.statement));
    // The HNSW scan: candidates ordered by their distance to the query vector.
    const vector = statements.find((s) => /ORDER BY "v"\."embedding"::vector\(\d+\) <=>/.test(s.statement));
    expect(vector).toBeDefined();
    expect(Number(vector?.generic_plans)).toBe(texts.length);
    expect(Number(vector?.custom_plans)).toBe(0);
    // The vocabulary lookup as well (onGenericPlans): its custom plans, made at every call, cost more than they saved.
    const vocabulary = statements.find((s) => s.statement.includes("'correction' AS kind"));
    expect(Number(vocabulary?.generic_plans)).toBe(texts.length);
    expect(Number(vocabulary?.custom_plans)).toBe(0);
    // The same ranking as over plain pg clients, which send every statement unnamed and plan it each time.
    const plain = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: demo.url, max: 2 }) }) });
    try {
      const unprepared = await matchText({ db: plain, embedder: embedder }, texts[0], normaliseFilter(undefined));
      expect(unprepared.length).toBeGreaterThan(3);
      expect(first.map((m) => [m.identifier, m.relevance.toFixed(12)])).toEqual(
        unprepared.map((m) => [m.identifier, m.relevance.toFixed(12)]),
      );
    } finally {
      await plain.destroy();
    }
  });

  it("prepares the statements that follow the ranking: the matches' states, their product keys and a page's matched tools", async () => {
    const service = createSearchService({
      db: single.db,
      embedder,
      entryStates: { livenessDemotion: 0.3, dropDeadAfterSeconds: 86_400, verifiedBoost: 0, archivedDemotion: 0.5 },
      pageTokens: createPageTokenCodec('prepared'),
      publicUrl: 'http://registry.test',
    });
    const pages = [];
    // The archived server is another entry of the active one's product: listed apart only when not collapsed.
    for (const [text, collapse] of [
      ['sqlite', false],
      ['send a message to a slack channel', true],
    ] as const) {
      pages.push((await service.rankResults(text, normaliseFilter(undefined), { page: { offset: 0, size: 50 }, collapse })).results);
    }
    // The archived SQLite server is found through the states statement: it ranks below the active one.
    const sqlite = pages[0].map((r) => r.displayName);
    expect(sqlite.indexOf('SQLite (Archived)')).toBeGreaterThan(sqlite.indexOf('SQLite'));
    const statements = await prepared();
    const added = ['e.retired', 'product_fields', "to_tsvector('english', ard_cjk_bigrams(coalesce(t.description"].map((part) =>
      statements.filter((s) => s.statement.includes(part)),
    );
    expect(added.map((found) => found.length)).toEqual([1, 1, 1]);
    for (const [s] of added) expect(s.name).toBe(preparedStatementName(s.statement));
  });

  it('sends every statement unnamed with preparedStatements: false (DATABASE_PREPARED_STATEMENTS)', async () => {
    const off = await connectDatabase({ databaseUrl: demo.url, dataDir: '', poolSize: 1, preparedStatements: false });
    try {
      expect((await matchText({ db: off.db, embedder: embedder }, 'weather forecast', normaliseFilter(undefined))).length).toBeGreaterThan(
        0,
      );
      const rows = await sql<{ n: string }>`SELECT count(*) AS n FROM pg_prepared_statements`.execute(off.db);
      expect(Number(rows.rows[0].n)).toBe(0);
    } finally {
      await off.close();
    }
  });

  it('does not prepare statements whose text depends on a filter', async () => {
    const before = (await prepared()).length;
    const matches = await matchText(
      { db: single.db, embedder: embedder },
      'memory for agents',
      normaliseFilter({ type: 'application/vnd.alexandria.resource+json' }),
    );
    expect(matches.length).toBeGreaterThan(0);
    const after = await prepared();
    // Only the filter-independent statements (corrections, term statistics, cosines) were reused; nothing new.
    expect(after.length).toBe(before);
  });

  // The pipelines of a text with several needs start together, and the lookups they ask for at once run as one
  // statement (query-understanding.ts, vocabularyLoader and lexemeLoader).
  it("a text's several needs read the vocabulary and the term statistics once", async () => {
    const text = "Find the trending repositories on github, read the top one's wiki, then draft an intro in /root/markdown/intro.md";
    const needs = needTexts(text);
    expect(needs.length).toBeGreaterThanOrEqual(3);
    const before = { vocabulary: await executions("'correction' AS kind"), terms: await executions('LEFT JOIN lexeme_stats') };
    const matches = await matchText({ db: single.db, embedder }, text, normaliseFilter(undefined));
    expect(matches.length).toBeGreaterThan(3);
    // needs.length + 1 pipelines (the whole text and each need), one statement each before the lookups were shared.
    expect((await executions("'correction' AS kind")) - before.vocabulary).toBe(1);
    expect((await executions('LEFT JOIN lexeme_stats')) - before.terms).toBe(1);
  });
});
