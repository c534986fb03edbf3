// Facet counts computed in the database: how many live entries carry each distinct value of a field,
// over the entries matching a structured filter. One definition for every caller (Alexandria's
// list_topics; POST /explore's facets can adopt it): array fields count per element (a GROUP BY over
// unnest), so an entry tagged [a, b] counts once for a and once for b.
import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../db/schema';
import { InvalidArgumentError } from '../errors';
import { filterToSql, type NormalisedFilter } from './query-filter';

/** Fields that can be counted, and the SQL over alias `e` that yields their values (one row per value). */
const FACET_COLUMNS: Record<string, { column: string; array: boolean }> = {
  type: { column: 'type', array: false },
  publisher: { column: 'publisher', array: false },
  version: { column: 'version', array: false },
  tags: { column: 'tags', array: true },
  capabilities: { column: 'capabilities', array: true },
};

const METADATA_KEY = /^[A-Za-z_@$][A-Za-z0-9_@$-]*$/;

export const FACETABLE_FIELDS = [...Object.keys(FACET_COLUMNS), 'metadata.<key>'];

export interface FacetCount {
  value: string;
  count: number;
}

export interface FacetCountOptions {
  /** An extra condition over alias `e` (for example "in the matched set of a query"); ANDed with the filter. */
  where?: RawBuilder<SqlBool>;
  /** Keep the `limit` most frequent values; default all. */
  limit?: number;
}

/**
 * Counts per distinct value of `field` over live entries matching `filter`, most frequent first, equal counts
 * by value (so the order is total and stable). Values that are NULL or absent are not counted.
 */
export async function countFacetValues(
  db: Kysely<Database>,
  field: string,
  filter: NormalisedFilter,
  options: FacetCountOptions = {},
): Promise<FacetCount[]> {
  const value = facetValueSql(field);
  const where = options.where ?? sql<SqlBool>`TRUE`;
  const limit = options.limit === undefined ? sql`` : sql`LIMIT ${options.limit}`;
  const rows = await sql<{ value: string; count: string }>`
    SELECT f.value, count(*) AS count
    FROM entries e CROSS JOIN LATERAL ${value} AS f(value)
    WHERE e.deleted_at IS NULL AND f.value IS NOT NULL AND ${filterToSql(filter)} AND ${where}
    GROUP BY f.value
    ORDER BY count(*) DESC, f.value ASC
    ${limit}`.execute(db);
  return rows.rows.map((r) => ({ value: r.value, count: Number(r.count) }));
}

/** A set-returning expression (one column) with the field's values for the entry `e`. */
function facetValueSql(field: string): RawBuilder<unknown> {
  const column = FACET_COLUMNS[field];
  if (column) {
    const ref = sql.ref(`e.${column.column}`);
    return column.array ? sql`unnest(${ref})` : sql`(SELECT ${ref})`;
  }
  const [root, key, ...rest] = field.split('.');
  if (root === 'metadata' && key !== undefined && rest.length === 0 && METADATA_KEY.test(key)) {
    // metadata values are flat scalars (catalog schema); ->> gives their text form.
    return sql`(SELECT e.entry -> 'metadata' ->> ${key})`;
  }
  throw new InvalidArgumentError(`'${field}' cannot be counted; facet fields: ${FACETABLE_FIELDS.join(', ')}`);
}
