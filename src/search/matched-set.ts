// The matched set of a query (ARD §7.1, §7.3): the entries that satisfy the filter and, when the
// query has text, whose relevance reaches RELEVANCE_CUTOFF. POST /search ranks it and POST /explore
// aggregates it, so both read this one builder: an entry is in /search's results for a query exactly
// when /explore counts it for that query.
//
// With text, the set is bounded by hybrid retrieval: the union of the CANDIDATES_PER_SIGNAL nearest
// vectors and the CANDIDATES_PER_SIGNAL best lexical matches (filters applied inside both retrievals,
// not after a top-k cut), scored, then cut at RELEVANCE_CUTOFF.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { filterToSql, type NormalisedFilter } from './query-filter';
import {
  RELEVANCE_CUTOFF,
  embeddingColumnSql,
  fuseSql,
  lexicalQuerySql,
  lexicalSignalSql,
  semanticSignalSql,
  vectorSql,
  type PreparedQuery,
} from './relevance';

/** Candidates taken from each retrieval; the matched set of a text query never goes beyond their union. */
export const CANDIDATES_PER_SIGNAL = 300;

export interface MatchedRow {
  identifier: string;
  /** In [0, 1]; null when the query has no text (nothing to rank by). */
  relevance: number | null;
}

/** Live entries (alias `e`) that satisfy the filter: the matched set of a query without text. */
export function liveAndFilteredSql(filter: NormalisedFilter): RawBuilder<SqlBool> {
  return sql<SqlBool>`(e.deleted_at IS NULL AND ${filterToSql(filter)})`;
}

/**
 * `SELECT identifier, relevance` of the matched set. Without a prepared query every live entry that
 * passes the filter is in it (relevance NULL).
 */
export function matchedSetSql(q: PreparedQuery | null, filter: NormalisedFilter): RawBuilder<MatchedRow> {
  const where = liveAndFilteredSql(filter);
  if (!q) return sql<MatchedRow>`SELECT e.identifier, NULL::float8 AS relevance FROM entries e WHERE ${where}`;
  const queryVector = vectorSql(q);
  const embedding = embeddingColumnSql(q);
  const tsquery = lexicalQuerySql(q);
  const relevance = fuseSql(semanticSignalSql(sql`coalesce(${embedding} <=> ${queryVector}, 1)`), lexicalSignalSql(q));
  return sql<MatchedRow>`
    WITH vec AS (
      SELECT v.identifier FROM entry_vectors v JOIN entries e ON e.identifier = v.identifier
      WHERE v.model = ${q.model} AND v.field = 'doc' AND ${where}
      ORDER BY ${embedding} <=> ${queryVector}
      LIMIT ${CANDIDATES_PER_SIGNAL}
    ), lex AS (
      SELECT e.identifier FROM entries e
      WHERE e.search_doc @@ ${tsquery} AND ${where}
      ORDER BY ts_rank_cd(e.search_doc, ${tsquery}) DESC, e.identifier
      LIMIT ${CANDIDATES_PER_SIGNAL}
    ), cand AS (SELECT identifier FROM vec UNION SELECT identifier FROM lex),
    scored AS (
      SELECT e.identifier, ${relevance} AS relevance
      FROM cand JOIN entries e ON e.identifier = cand.identifier
      LEFT JOIN entry_vectors v ON v.identifier = e.identifier AND v.model = ${q.model} AND v.field = 'doc'
    )
    SELECT identifier, relevance FROM scored WHERE relevance >= ${RELEVANCE_CUTOFF}`;
}
