import { sql } from 'kysely';
import { UseLiteEmbedder } from '../../src/embedding/use-lite-embedder';
import { withQueryCache } from '../../src/embedding/embedder';
import { normaliseFilter } from '../../src/search/query-filter';
import {
  lexicalSignal,
  matchText,
  prepareQuery,
  PRODUCTION_STAGES,
  saturation,
  type QueryEmbedder,
  type SignalRow,
} from '../../src/search/relevance';
import { ablatedStages } from '../../src/search/relevance/ablations';
import { useDemoCorpusDatabase } from '../helpers/demo-database';

// Migration 0009: the lexical retrieval reads each query lexeme's best postings from lexeme_postings
// instead of ranking every matching entry with ts_rank. The table is derived from `entries`; these tests
// pin that it stays equal to its definition through every kind of write (migration 0021: with the exact
// term-frequency parts of the entries' arrays), that the bounded retrieval takes exactly each lexeme's best
// postings, the filter applied inside the scan, and that the BM25F the retrieval statements compute from
// the postings is lexicalSignal() over the entries' arrays.
const demo = useDemoCorpusDatabase();
const model = new UseLiteEmbedder();
const embedder: QueryEmbedder = withQueryCache(model);

afterAll(async () => {
  await model.close();
});

/** Rows of lexeme_postings that differ from a recomputation over the live entries (both directions). */
async function postingsDrift(): Promise<number> {
  const rows = await sql<{ n: string }>`
    WITH expected AS (
      SELECT e.facet_key AS entry_key, u.lexeme, u.tf_name, u.tf_other, e.rank_length
      FROM entries e, unnest(e.rank_lexemes, e.rank_tf_name, e.rank_tf_other) AS u(lexeme, tf_name, tf_other)
      WHERE e.deleted_at IS NULL)
    SELECT count(*) AS n FROM expected x FULL JOIN lexeme_postings p ON p.entry_key = x.entry_key AND p.lexeme = x.lexeme
    WHERE p.entry_key IS NULL OR x.entry_key IS NULL
       OR p.tf_name IS DISTINCT FROM x.tf_name OR p.tf_other IS DISTINCT FROM x.tf_other
       OR abs(p.impact - (x.tf_name + x.tf_other / (0.25 + 0.75 * x.rank_length / 64.0)) / ((x.tf_name + x.tf_other / (0.25 + 0.75 * x.rank_length / 64.0)) + 1.2)) > 1e-6`.execute(
    demo.db,
  );
  return Number(rows.rows[0].n);
}

async function postingsOf(identifier: string): Promise<string[]> {
  const rows = await sql<{ lexeme: string }>`
    SELECT p.lexeme FROM lexeme_postings p JOIN entries e ON e.facet_key = p.entry_key WHERE e.identifier = ${identifier} ORDER BY p.lexeme`.execute(
    demo.db,
  );
  return rows.rows.map((r) => r.lexeme);
}

describe('lexeme_postings (migration 0009)', () => {
  const id = 'urn:air:github.com:PagerDuty:pagerduty-mcp-server';

  it('holds one posting per (live entry, rank_doc lexeme) with the BM25 impact at the nominal length', async () => {
    const count = await sql<{ n: string; name: string }>`
      SELECT count(*) AS n, count(*) FILTER (WHERE tf_name > 0) AS name FROM lexeme_postings`.execute(demo.db);
    expect(Number(count.rows[0].n)).toBeGreaterThan(10_000);
    expect(Number(count.rows[0].name)).toBeGreaterThan(1_000);
    expect(await postingsDrift()).toBe(0);
    // The SQL impact is relevance.ts's saturation() at the nominal average length 64.
    const one = await sql<{ impact: number; tf_name: number; tf_other: number; rank_length: number }>`
      SELECT p.impact, e.rank_tf_name[array_position(e.rank_lexemes, p.lexeme)] AS tf_name,
             e.rank_tf_other[array_position(e.rank_lexemes, p.lexeme)] AS tf_other, e.rank_length
      FROM lexeme_postings p JOIN entries e ON e.facet_key = p.entry_key WHERE e.identifier = ${id} AND p.lexeme = 'pagerduti'`.execute(
      demo.db,
    );
    const r = one.rows[0];
    expect(r.impact).toBeCloseTo(saturation(r.tf_name, r.tf_other, r.rank_length, 64), 6);
  });

  it('follows text changes, tombstones, revivals and deletes of entries', async () => {
    await sql`UPDATE entries SET description = 'zebracorn escalation' WHERE identifier = ${id}`.execute(demo.db);
    expect(await postingsOf(id)).toContain('zebracorn');
    expect(await postingsDrift()).toBe(0);

    await sql`UPDATE entries SET deleted_at = now() WHERE identifier = ${id}`.execute(demo.db);
    expect(await postingsOf(id)).toEqual([]);
    expect(await postingsDrift()).toBe(0);

    await sql`UPDATE entries SET deleted_at = NULL WHERE identifier = ${id}`.execute(demo.db);
    expect(await postingsOf(id)).toContain('zebracorn');
    expect(await postingsDrift()).toBe(0);

    // An update that leaves the arrays alone keeps the same posting rows (no rewrite).
    const before = await sql<{
      ctid: string;
    }>`SELECT p.ctid::text AS ctid FROM lexeme_postings p JOIN entries e ON e.facet_key = p.entry_key WHERE e.identifier = ${id} ORDER BY 1`.execute(
      demo.db,
    );
    await sql`UPDATE entries SET fetched_at = now() WHERE identifier = ${id}`.execute(demo.db);
    const after = await sql<{
      ctid: string;
    }>`SELECT p.ctid::text AS ctid FROM lexeme_postings p JOIN entries e ON e.facet_key = p.entry_key WHERE e.identifier = ${id} ORDER BY 1`.execute(
      demo.db,
    );
    expect(after.rows).toEqual(before.rows);

    await sql`DELETE FROM entries WHERE identifier = ${id}`.execute(demo.db);
    expect(await postingsOf(id)).toEqual([]);
    expect(await postingsDrift()).toBe(0);
  });
});

describe('bounded lexical retrieval', () => {
  // Lexical signal only and no cutoff: the matched set is exactly the lexical candidates.
  const lexicalOnly = (depth: number) =>
    ablatedStages({ signals: { semantic: false }, cutoff: 0, postingsPerLexeme: depth, expansions: false, corrections: false });

  /** Each retrieval lexeme's `depth` best postings among the entries the filter keeps, computed directly. */
  async function bestPostings(lexemes: string[], depth: number, publisher?: string): Promise<string[]> {
    const rows = await sql<{ identifier: string }>`
      SELECT DISTINCT b.identifier FROM unnest(${lexemes}::text[]) AS l(lexeme) CROSS JOIN LATERAL (
        SELECT e.identifier FROM lexeme_postings p JOIN entries e ON e.facet_key = p.entry_key
        WHERE p.lexeme = l.lexeme AND (${publisher ?? null}::text IS NULL OR e.publisher = ${publisher ?? null})
        ORDER BY p.impact DESC, p.entry_key LIMIT ${depth}) b`.execute(demo.db);
    return rows.rows.map((r) => r.identifier).sort();
  }

  it("takes exactly each query lexeme's best postings", async () => {
    const q = await prepareQuery(demo.db, embedder, 'kubernetes cluster', undefined, lexicalOnly(3).queryWords);
    expect(q.retrievalLexemes.length).toBeGreaterThan(0);
    const matches = await matchText({ db: demo.db, embedder }, q.text, [], lexicalOnly(3));
    const expected = await bestPostings(q.retrievalLexemes, 3);
    expect(expected.length).toBeGreaterThanOrEqual(3);
    expect(matches.map((m) => m.identifier).sort()).toEqual(expected);
  });

  it('ARD §7.2 filters: the scan goes past the best postings until entries pass the filter', async () => {
    const q = await prepareQuery(demo.db, embedder, 'github', undefined, lexicalOnly(3).queryWords);
    // A publisher none of whose entries is among the word's 3 best postings overall.
    const top = new Set(await bestPostings(q.retrievalLexemes, 3));
    const rows = await sql<{ publisher: string; n: string }>`
      SELECT e.publisher, count(*) AS n FROM lexeme_postings p JOIN entries e ON e.facet_key = p.entry_key
      WHERE p.lexeme = ANY(${q.retrievalLexemes}::text[]) GROUP BY e.publisher HAVING count(*) >= 2 ORDER BY count(*) DESC, e.publisher`.execute(
      demo.db,
    );
    const publisher = (
      await Promise.all(rows.rows.map(async (r) => ({ p: r.publisher, ids: await bestPostings(q.retrievalLexemes, 100, r.publisher) })))
    ).find((c) => c.ids.every((i) => !top.has(i)))?.p;
    expect(publisher).toBeDefined();
    const matches = await matchText({ db: demo.db, embedder }, q.text, normaliseFilter({ publisher: publisher as string }), lexicalOnly(3));
    const expected = await bestPostings(q.retrievalLexemes, 3, publisher);
    expect(expected.length).toBeGreaterThanOrEqual(2);
    expect(matches.map((m) => m.identifier).sort()).toEqual(expected);
  });
});

describe('BM25F from the postings (migration 0021)', () => {
  /** Each entry's term frequencies and length from its arrays (migration 0007), what the statements read before. */
  async function arrayTermFrequencies(identifiers: string[]) {
    const rows = await sql<{ identifier: string; lexemes: string[]; names: number[]; others: number[]; rank_length: number }>`
      SELECT identifier, rank_lexemes AS lexemes, rank_tf_name AS names, rank_tf_other AS others, rank_length
      FROM entries WHERE identifier = ANY(${identifiers}::text[])`.execute(demo.db);
    return new Map(
      rows.rows.map((r) => [
        r.identifier,
        {
          tfs: new Map(r.lexemes.map((l, i) => [l, { name: Number(r.names[i]), other: Number(r.others[i]) }])),
          length: Number(r.rank_length),
        },
      ]),
    );
  }

  it.each([
    ['send a message to a slack channel', undefined],
    ['kubernets deploymnt helm charts', undefined],
    ['memory for agents that remember chats', undefined],
    ['postgres database', { tags: 'postgres' }],
  ])('both retrieval statements give lexicalSignal() of the arrays, typed and with the guesses: %s %j', async (text, filter) => {
    const q = await prepareQuery(demo.db, embedder, text);
    const normalised = normaliseFilter(filter);
    const lexical = await PRODUCTION_STAGES.lexicalRetrieval(demo.db, q, normalised, null);
    // No candidate left out: the vector signals of every nearest entry.
    const vector = await PRODUCTION_STAGES.vectorSignals(demo.db, q, await PRODUCTION_STAGES.nearestEntries(demo.db, q, normalised));
    // A filter leaves a few candidates; without one each statement has dozens.
    const least = filter ? 0 : 10;
    expect(lexical.length).toBeGreaterThan(least);
    expect(vector.length).toBeGreaterThan(least);
    const arrays = await arrayTermFrequencies([...lexical, ...vector].map((r) => r.identifier));
    const typed = { ...q, terms: q.terms.filter((t) => t.correction !== true) };
    const check = (r: SignalRow) => {
      const { tfs, length } = arrays.get(r.identifier) as { tfs: Map<string, { name: number; other: number }>; length: number };
      return {
        id: r.identifier,
        lexical: Math.min(1, Number(r.lexical ?? 0)),
        typed: Math.min(1, Number(r.typed_lexical ?? 0)),
        expected: lexicalSignal(q, tfs, length),
        expectedTyped: lexicalSignal(typed, tfs, length),
      };
    };
    const rows = [...lexical, ...vector].map(check);
    // Some candidates match a query word and some do not: the comparison covers both.
    expect(rows.filter((r) => r.expected > 0).length).toBeGreaterThan(least);
    if (!filter) expect(rows.filter((r) => r.expected === 0).length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(r.lexical).toBeCloseTo(r.expected, 12);
      expect(r.typed).toBeCloseTo(r.expectedTyped, 12);
    }
    if (text.startsWith('kubernets')) expect(rows.some((r) => r.expectedTyped < r.expected)).toBe(true);
  });
});
