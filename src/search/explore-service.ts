// POST /explore (ARD §7.3): facet counts over the full matched set of a query (matched-set.ts, the
// same set /search ranks), computed in the database in one statement. Explore never federates.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../db/schema';
import { InvalidArgumentError } from '../errors';
import { liveAndFilteredSql, matchedIdentifiersSql } from './matched-set';
import {
  checkFieldPath,
  fieldValuesArraySql,
  isFacetTableField,
  isMultiValuedField,
  normaliseFilter,
  type NormalisedFilter,
  type QueryFilter,
} from './query-filter';
import { checkQueryText } from './query-text';
import type { Match } from './relevance';

export const DEFAULT_FACET_LIMIT = 20;
export const MAX_FACET_LIMIT = 1000;
export const DEFAULT_MIN_COUNT = 1;
export const MAX_FACETS = 20;

export interface FacetRequest {
  /** A field path, or a namespaced term's absolute IRI (query-context.ts resolves what the client wrote). */
  field: string;
  /** The key the facet is answered under: the field as the client wrote it (`okf:taxonomy`); default `field`. */
  name?: string;
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
  /** The matched set for a text: the search service's, so that explore counts what search ranks. */
  matches(text: string, filter: NormalisedFilter): Promise<Match[]>;
  /** false: read every facet from `entries` (the generic path); tests compare the two. Default true. */
  useFacetTable?: boolean;
}

interface CheckedFacet {
  field: string;
  name: string;
  limit: number;
  minCount: number;
}

export function checkFacets(facets: FacetRequest[]): CheckedFacet[] {
  if (facets.length > MAX_FACETS)
    throw new InvalidArgumentError(`resultType.facets has ${facets.length} facets; at most ${MAX_FACETS} are allowed`);
  const seen = new Map<string, string>();
  return facets.map((facet, i) => {
    const where = `resultType.facets[${i}]`;
    const name = facet.name ?? facet.field;
    checkFieldPath(facet.field, `${where}.field`);
    const earlier = seen.get(facet.field);
    if (earlier === name) throw new InvalidArgumentError(`${where}.field '${name}' is requested twice; ask for each field once`);
    if (earlier !== undefined)
      throw new InvalidArgumentError(`${where}.field '${name}' and '${earlier}' both name '${facet.field}'; ask for it once`);
    seen.set(facet.field, name);
    const limit = facet.limit ?? DEFAULT_FACET_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_FACET_LIMIT) {
      throw new InvalidArgumentError(`${where}.limit must be an integer from 1 to ${MAX_FACET_LIMIT}; got ${facet.limit}`);
    }
    const minCount = facet.minCount ?? DEFAULT_MIN_COUNT;
    if (!Number.isInteger(minCount) || minCount < 1 || minCount > 2_147_483_647) {
      throw new InvalidArgumentError(`${where}.minCount must be a positive integer; got ${facet.minCount}`);
    }
    return { field: facet.field, name, limit, minCount };
  });
}

export async function exploreRegistry(deps: ExploreDeps, input: ExploreInput): Promise<ExploreOutput> {
  const facets = checkFacets(input.facets);
  const filter = normaliseFilter(input.filter);
  const text = input.text === undefined ? undefined : checkQueryText(input.text);
  if (facets.length === 0) return { resultType: 'facets', facets: {} };

  const matches = text === undefined ? null : await deps.matches(text, filter);
  if (matches !== null && matches.length === 0)
    return { resultType: 'facets', facets: Object.fromEntries(facets.map((f) => [f.name, { buckets: [] }])) };

  // Two sources of (entry, value) pairs. The standard facet fields come from the facet tables of
  // db/migrations/0005_facets.sql, kept exact by triggers on `entries`: with neither text nor filter,
  // a facet's buckets are its rows of facet_value_counts (one per distinct value); otherwise
  // entry_facet_values (one row per live entry and distinct value) joined to the entries `m` a text
  // query matched (at most a few hundred).
  // Measured at 100k entries (bench/listing.ts, EXPLAIN ANALYZE in ard_bench_listing, shared 2-core
  // machine): type + tags + publisher over the whole registry took ~700-1050 ms through per-entry
  // arrays (`base` below: reading 110 MB of entry pages, unnesting, hashing); grouping the rows of
  // entry_facet_values by value (an index-only scan) still took 50-300 ms for `tags` alone (394k rows),
  // reading the counts takes a few ms. Other paths (identifier, displayName, deeper JSON paths) keep
  // the generic way: one pass over the matched entries in which each entry's values of every such
  // field become one array column of `base` (scanning `entries` once per facet cost a heap scan each).
  // A filter without text keeps the generic path for every field: joining a broad filter's entries
  // to their rows here cost more than reading their arrays (type = mcp-server-card, 60k of 100k
  // entries: 760-1600 ms for `tags` alone, against ~550 ms for three facets the generic way), and a
  // selective filter reads few entries through its index either way.
  const tableFits = deps.useFacetTable !== false && (matches !== null || filter.length === 0);
  const fast = facets.map((f) => tableFits && isFacetTableField(f.field));
  const ctes: RawBuilder<unknown>[] = [];
  const matched = matches !== null;
  if (matches) {
    const ids = matchedIdentifiersSql(matches.map((m) => m.identifier));
    ctes.push(sql`m AS MATERIALIZED (SELECT e.identifier, e.facet_key FROM (${ids}) AS i JOIN entries e ON e.identifier = i.identifier)`);
  }
  const generic = facets.map((f, i) => ({ field: f.field, i })).filter((_, i) => !fast[i]);
  if (generic.length > 0) {
    const columns = sql.join(generic.map((f) => sql`${fieldValuesArraySql(f.field)} AS ${sql.ref(`f${f.i}`)}`));
    const from = matched ? sql`m JOIN entries e ON e.identifier = m.identifier` : sql`entries e WHERE ${liveAndFilteredSql(filter)}`;
    ctes.push(sql`base AS MATERIALIZED (SELECT ${columns} FROM ${from})`);
  }

  const selects: RawBuilder<unknown>[] = [];
  facets.forEach((facet, i) => {
    const r = sql.ref(`r${i}`);
    // counts: (value, n) per distinct value; entriesWith(values): the number of entries with any of them.
    let counts: RawBuilder<unknown>;
    let entriesWith: (values: RawBuilder<unknown>) => RawBuilder<unknown>;
    if (fast[i]) {
      const rows = sql`entry_facet_values v WHERE v.field = ${facet.field}${matched ? sql` AND v.entry_key IN (SELECT facet_key FROM m)` : sql``}`;
      counts = matched
        ? sql`SELECT v.value, count(*) AS n FROM ${rows} GROUP BY v.value`
        : sql`SELECT c.value, c.entries AS n FROM facet_value_counts c WHERE c.field = ${facet.field}`;
      entriesWith = (values) => sql`SELECT count(DISTINCT v.entry_key) FROM ${rows} AND v.value IN (${values})`;
    } else {
      // An entry counts once per distinct value (array_position finds an element's first occurrence).
      const column = sql.ref(`base.f${i}`);
      counts = sql`SELECT v.value, count(*) AS n FROM base CROSS JOIN LATERAL unnest(${column}) WITH ORDINALITY AS v(value, i)
              WHERE v.value IS NOT NULL AND array_position(${column}, v.value) = v.i
              GROUP BY v.value`;
      // The IN (uncorrelated subquery) is a hashed subplan; `&&` against an array of the values beyond
      // compares element by element and took seconds with 2000 publishers (bench/listing.ts).
      entriesWith = (values) =>
        sql`SELECT count(*) FROM base WHERE EXISTS (SELECT 1 FROM unnest(${column}) AS v(value) WHERE v.value IN (${values}))`;
    }
    ctes.push(sql`${r} AS (
        SELECT value, n, row_number() OVER (ORDER BY n DESC, value COLLATE "C" ASC) AS rank
        FROM (${counts}) b
        WHERE n >= ${facet.minCount}
      )`);
    // otherCount counts entries, not bucket memberships: an entry with two tags beyond the limit is one.
    // Single-valued: the sum of the counts beyond. Multi-valued: entries with any value beyond.
    const other = isMultiValuedField(facet.field)
      ? entriesWith(sql`SELECT value FROM ${r} WHERE rank > ${facet.limit}`)
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
      WITH ${sql.join(ctes, sql`, `)}
      ${sql.join(selects, sql` UNION ALL `)}`.execute(trx);
  });

  const out: Record<string, FacetResult> = {};
  for (const facet of facets) out[facet.name] = { buckets: [] };
  const sorted = [...result.rows].sort((a, b) => a.facet - b.facet || Number(a.rank ?? Infinity) - Number(b.rank ?? Infinity));
  for (const row of sorted) {
    const target = out[facets[row.facet].name];
    if (row.value === null) target.otherCount = Number(row.count);
    else target.buckets.push({ value: row.value, count: Number(row.count) });
  }
  return { resultType: 'facets', facets: out };
}
