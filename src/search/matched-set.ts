// The matched set of a query (ARD §7.1, §7.3): the entries that satisfy the filter and, when the
// query has text, whose relevance reaches RELEVANCE_CUTOFF (or, for a text with fewer than
// MINIMUM_MATCHES such entries, its best ones down to RELEVANCE_FLOOR). POST /search ranks it and POST /explore
// aggregates it, both from the ranking pipeline (relevance/pipeline.ts matchText), so an entry is in /search's results for a query
// exactly when /explore counts it for that query.
//
// With text, the set is bounded by hybrid retrieval (relevance/retrieval.ts: the candidates of each signal,
// filters applied inside every retrieval, not after a top-k cut), scored, then cut (relevance/scoring.ts matchThreshold).
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { filterToSql, type NormalisedFilter } from './query-filter';

/** Live entries (alias `e`) that satisfy the filter: the matched set of a query without text. */
export function liveAndFilteredSql(filter: NormalisedFilter): RawBuilder<SqlBool> {
  return sql<SqlBool>`(e.deleted_at IS NULL AND ${filterToSql(filter)})`;
}

/** `SELECT identifier` of a matched set already computed by matchText (a few hundred identifiers at most). */
export function matchedIdentifiersSql(identifiers: readonly string[]): RawBuilder<{ identifier: string }> {
  return sql<{ identifier: string }>`SELECT unnest(${[...identifiers]}::text[]) AS identifier`;
}
