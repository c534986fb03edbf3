// GET /agents (ARD §7.4): deterministic browsing. A filter (list-filter.ts), a total order
// (order-by.ts) and keyset pages: the token carries the last row's sort key, so page 500 costs
// what page 1 costs (an index range scan from the key), and entries added between pages cause
// neither duplicates nor gaps. `total` counts every matching live entry.
import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { CatalogEntry } from '../catalog/catalog-entry';
import type { Database } from '../db/schema';
import { InvalidArgumentError } from '../errors';
import { checkPageSize, openPage, type PagePayload, type PageTokenCodec } from '../search/paging';
import { formatListFilter, parseListFilter } from './list-filter';
import { compileListFilter } from './list-filter-sql';
import { formatOrderBy, parseOrderBy, type OrderTerm, type SortField } from './order-by';

export const DEFAULT_LIST_PAGE_SIZE = 20;
export const MAX_LIST_PAGE_SIZE = 100;

export interface ListInput {
  filter?: string;
  orderBy?: string;
  pageSize?: number;
  pageToken?: string;
}

export interface ListOutput {
  items: CatalogEntry[];
  total: number;
  pageToken?: string;
}

export interface ListDeps {
  db: Kysely<Database>;
  pageTokens: PageTokenCodec;
}

/**
 * Each sortable field as a non-null expression over `entries` and how its key travels in a token
 * (text) and comes back (cast). Timestamps travel as UTC text with microseconds: a JS Date would
 * drop them and make a keyset skip or repeat rows. The expressions match db/migrations indexes.
 */
const SORT_SQL: Record<SortField, { expr: RawBuilder<unknown>; asText: RawBuilder<unknown>; cast: (v: string) => RawBuilder<unknown> }> = {
  displayName: textKey(sql`lower(entries.display_name)`),
  identifier: textKey(sql`entries.identifier`),
  type: textKey(sql`entries.type`),
  publisher: textKey(sql`entries.publisher`),
  version: textKey(sql`coalesce(entries.version, '')`),
  createdAt: timeKey(sql`entries.created_at`),
  updatedAt: timeKey(sql`entries.updated_at`),
};

function textKey(expr: RawBuilder<unknown>) {
  return { expr, asText: expr, cast: (v: string) => sql`${v}::text` };
}

function timeKey(expr: RawBuilder<unknown>) {
  return {
    expr,
    asText: sql`to_char(${expr} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
    cast: (v: string) => sql`${v}::timestamptz`,
  };
}

export async function listAgents(deps: ListDeps, input: ListInput): Promise<ListOutput> {
  const pageSize = checkPageSize(input.pageSize, { fallback: DEFAULT_LIST_PAGE_SIZE, max: MAX_LIST_PAGE_SIZE });
  const ast = parseListFilter(input.filter ?? '');
  const order = parseOrderBy(input.orderBy);
  const page = openPage(
    deps.pageTokens,
    { op: 'list', filter: formatListFilter(ast), orderBy: formatOrderBy(order), pageSize },
    input.pageToken,
  );
  const after = page.token ? readCursor(page.token, order.length) : null;

  const where = sql<SqlBool>`entries.deleted_at IS NULL AND ${compileListFilter(ast)}`;
  const keyset = after ? afterKeySql(order, after.key) : sql<SqlBool>`TRUE`;
  const orderSql = sql.join(order.map((t) => sql`${SORT_SQL[t.field].expr} ${sql.raw(t.direction)}`));
  const keyColumns = sql.join(order.map((t, i) => sql`${SORT_SQL[t.field].asText} AS ${sql.ref(`k${i}`)}`));

  const [found, count] = await Promise.all([
    sql<Record<string, string> & { entry: CatalogEntry }>`
      SELECT entries.entry, ${keyColumns} FROM entries
      WHERE ${where} AND ${keyset}
      ORDER BY ${orderSql}
      LIMIT ${pageSize + 1}`.execute(deps.db),
    countMatching(deps.db, where, formatListFilter(ast)),
  ]);

  const rows = found.rows.slice(0, pageSize);
  const last = rows[rows.length - 1];
  const more = found.rows.length > pageSize;
  const seen = (after?.seen ?? 0) + rows.length;
  const next = more
    ? page.next(
        seen,
        order.map((_, i) => last[`k${i}`]),
      )
    : undefined;
  return { items: rows.map((r) => r.entry), total: count, ...(next ? { pageToken: next } : {}) };
}

/**
 * How long a total is reused for the same filter. An exact count(*) reads every matching entry
 * (about 10 ms per 100k on an idle machine, far more under load: bench/listing.ts) while a keyset
 * page costs the same at any depth; responses already say `max-age=60`, so a total up to this old
 * is within what clients are told to expect.
 */
export const TOTAL_CACHE_MS = 5000;
const MAX_CACHED_TOTALS = 1000;
const totalCaches = new WeakMap<Kysely<Database>, Map<string, { total: number; at: number }>>();

async function countMatching(db: Kysely<Database>, where: RawBuilder<SqlBool>, canonicalFilter: string): Promise<number> {
  let cache = totalCaches.get(db);
  if (!cache) totalCaches.set(db, (cache = new Map()));
  const now = Date.now();
  const hit = cache.get(canonicalFilter);
  if (hit && now - hit.at < TOTAL_CACHE_MS) return hit.total;
  const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM entries WHERE ${where}`.execute(db);
  const total = Number(rows[0].n);
  if (cache.size >= MAX_CACHED_TOTALS) cache.delete(cache.keys().next().value as string);
  cache.set(canonicalFilter, { total, at: now });
  return total;
}

function readCursor(payload: PagePayload, terms: number): { key: string[]; seen: number } {
  const values = payload.x;
  if (!Array.isArray(values) || values.length !== terms || !values.every((v) => typeof v === 'string')) {
    throw new InvalidArgumentError('pageToken is invalid: it does not carry a position in this listing');
  }
  return { key: values as string[], seen: payload.o };
}

/**
 * Rows strictly after `key` in `order`. One direction for all terms: a row comparison, which the
 * (expr, identifier) indexes answer with a range scan. Mixed directions: the expanded form
 * (k1 > v1) OR (k1 = v1 AND k2 < v2) OR ...
 */
function afterKeySql(order: OrderTerm[], key: string[]): RawBuilder<SqlBool> {
  const exprs = order.map((t) => SORT_SQL[t.field].expr);
  const values = order.map((t, i) => SORT_SQL[t.field].cast(key[i]));
  if (order.every((t) => t.direction === order[0].direction)) {
    const op = sql.raw(order[0].direction === 'ASC' ? '>' : '<');
    return sql<SqlBool>`(${sql.join(exprs)}) ${op} (${sql.join(values)})`;
  }
  const alternatives = order.map((t, i) => {
    const equalBefore = exprs.slice(0, i).map((e, j) => sql`${e} = ${values[j]}`);
    const beyond = sql`${exprs[i]} ${sql.raw(t.direction === 'ASC' ? '>' : '<')} ${values[i]}`;
    return sql`(${sql.join([...equalBefore, beyond], sql` AND `)})`;
  });
  return sql<SqlBool>`(${sql.join(alternatives, sql` OR `)})`;
}
