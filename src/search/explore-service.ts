// POST /explore (ARD §7.3): facet counts over the full matched set of a query (matched-set.ts, the
// same set /search ranks), computed in the database in one statement. Explore never federates.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../db/schema';
import { InvalidArgumentError } from '../errors';
import { liveAndFilteredSql, matchedIdentifiersSql } from './matched-set';
import { checkFieldPath, fieldValuesArraySql, isMultiValuedField, normaliseFilter, type QueryFilter } from './query-filter';
import { findMatches, prepareQuery, type QueryEmbedder } from './relevance';
import { checkQueryText, timed, type SearchTimings } from './search-service';

export const DEFAULT_FACET_LIMIT = 20;
export const MAX_FACET_LIMIT = 1000;
export const DEFAULT_MIN_COUNT = 1;
export const MAX_FACETS = 20;

export interface FacetRequest {
  field: string;
  limit?: number;
  minCount?: number;
}

export interface ExploreInput {
  text?: string;
  filter?: QueryFilter;
  facets: FacetRequest[];
}

export interface FacetBucket {
  value: string;
  count: number;
}

export interface FacetResult {
  buckets: FacetBucket[];
  /** Matching entries in the buckets ranked beyond `limit`; absent when no bucket lies beyond it. */
  otherCount?: number;
}

export interface ExploreOutput {
  resultType: 'facets';
  facets: Record<string, FacetResult>;
}

export interface ExploreDeps {
  db: Kysely<Database>;
  embedder: QueryEmbedder;
  timings?: SearchTimings;
}

interface CheckedFacet {
  field: string;
  limit: number;
  minCount: number;
}

export function checkFacets(facets: FacetRequest[]): CheckedFacet[] {
  if (facets.length > MAX_FACETS) throw new InvalidArgumentError(`resultType.facets has ${facets.length} facets; at most ${MAX_FACETS} are allowed`);
  const seen = new Set<string>();
  return facets.map((facet, i) => {
    const where = `resultType.facets[${i}]`;
    checkFieldPath(facet.field, `${where}.field`);
    if (seen.has(facet.field)) throw new InvalidArgumentError(`${where}.field '${facet.field}' is requested twice; ask for each field once`);
    seen.add(facet.field);
    const limit = facet.limit ?? DEFAULT_FACET_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_FACET_LIMIT) {
      throw new InvalidArgumentError(`${where}.limit must be an integer from 1 to ${MAX_FACET_LIMIT}; got ${facet.limit}`);
    }
    const minCount = facet.minCount ?? DEFAULT_MIN_COUNT;
    if (!Number.isInteger(minCount) || minCount < 1 || minCount > 2_147_483_647) {
      throw new InvalidArgumentError(`${where}.minCount must be a positive integer; got ${facet.minCount}`);
    }
    return { field: facet.field, limit, minCount };
  });
}

export async function exploreRegistry(deps: ExploreDeps, input: ExploreInput): Promise<ExploreOutput> {
  const facets = checkFacets(input.facets);
  const filter = normaliseFilter(input.filter);
  const text = input.text === undefined ? undefined : checkQueryText(input.text);
  if (facets.length === 0) return { resultType: 'facets', facets: {} };

  // One pass over the matched set: each entry's values of every facet field become one
  // array column of `base`; each facet then groups its column. (Scanning `entries` once per facet
  // cost a heap scan each: 100k entries are ~110 MB of pages, bench/listing.ts.)
  const q = text === undefined ? null : await timed(deps.timings, 'embedding', () => prepareQuery(deps.db, deps.embedder, text));
  const matches = q === null ? null : await timed(deps.timings, 'sql', () => findMatches(deps.db, q, filter));
  if (matches !== null && matches.length === 0) return { resultType: 'facets', facets: Object.fromEntries(facets.map((f) => [f.field, { buckets: [] }])) };
  const matched = matches ? sql`m AS MATERIALIZED (${matchedIdentifiersSql(matches.map((m) => m.identifier))}),` : sql``;
  const from = matches ? sql`m JOIN entries e ON e.identifier = m.identifier` : sql`entries e WHERE ${liveAndFilteredSql(filter)}`;
  const columns = sql.join(facets.map((f, i) => sql`${fieldValuesArraySql(f.field)} AS ${sql.ref(`f${i}`)}`));

  const ranked: RawBuilder<unknown>[] = [];
  const selects: RawBuilder<unknown>[] = [];
  facets.forEach((facet, i) => {
    const column = sql.ref(`base.f${i}`);
    const r = sql.ref(`r${i}`);
    ranked.push(sql`${r} AS (
        SELECT value, n, row_number() OVER (ORDER BY n DESC, value COLLATE "C" ASC) AS rank
        FROM (SELECT v.value, count(*) AS n FROM base CROSS JOIN LATERAL unnest(${column}) WITH ORDINALITY AS v(value, i)
              WHERE v.value IS NOT NULL AND array_position(${column}, v.value) = v.i
              GROUP BY v.value) b
        WHERE n >= ${facet.minCount}
      )`);
    // An entry counts once per distinct value (array_position finds an element's first occurrence).
    // otherCount counts entries, not bucket memberships: an entry with two tags beyond the limit is one.
    // Single-valued: the sum of the counts beyond. Multi-valued: entries with any value beyond, the
    // IN (uncorrelated subquery) is a hashed subplan; `&&` against an array of the values beyond
    // compares element by element and took seconds with 2000 publishers (bench/listing.ts).
    const other = isMultiValuedField(facet.field)
      ? sql`SELECT count(*) FROM base WHERE EXISTS (SELECT 1 FROM unnest(${column}) AS v(value)
          WHERE v.value IN (SELECT value FROM ${r} WHERE rank > ${facet.limit}))`
      : sql`SELECT sum(n) FROM ${r} WHERE rank > ${facet.limit}`;
    selects.push(sql`(SELECT ${i}::int AS facet, value, n AS count, rank FROM ${r} WHERE rank <= ${facet.limit})
      UNION ALL
      SELECT ${i}::int, NULL, (${other}), NULL WHERE EXISTS (SELECT 1 FROM ${r} WHERE rank > ${facet.limit})`);
  });

  const result = await deps.db.transaction().execute(async (trx) => {
    // base holds one row of small arrays per matched entry (~15 MB at 100k): keep it in memory.
    // JIT compilation costs more than it saves on these short aggregations.
    await sql`SET LOCAL work_mem = '64MB'`.execute(trx);
    await sql`SET LOCAL jit = off`.execute(trx);
    return sql<{ facet: number; value: string | null; count: string; rank: string | null }>`
      WITH ${matched} base AS MATERIALIZED (SELECT ${columns} FROM ${from}),
      ${sql.join(ranked, sql`, `)}
      ${sql.join(selects, sql` UNION ALL `)}`.execute(trx);
  });

  const out: Record<string, FacetResult> = {};
  for (const facet of facets) out[facet.field] = { buckets: [] };
  const sorted = [...result.rows].sort((a, b) => a.facet - b.facet || Number(a.rank ?? Infinity) - Number(b.rank ?? Infinity));
  for (const row of sorted) {
    const target = out[facets[row.facet].field];
    if (row.value === null) target.otherCount = Number(row.count);
    else target.buckets.push({ value: row.value, count: Number(row.count) });
  }
  return { resultType: 'facets', facets: out };
}
