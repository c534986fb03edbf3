// Which of an entry's tools a query matched. An entry's tools are its `capabilities` (the tool names a catalog
// lists); they are in the lexical document already (ard_rank_doc, migration 0003: camelCase and `_./-` split into
// words, english-stemmed, weight B), so a query for an operation ranks the server that has the tool. This says
// which ones did it: a tool matches when one of its words shares a stemmed lexeme with the query, read by the same
// rule as the index, in one statement for a page of entries.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';

/** At most this many tools per entry are named: a query word common to many tool names ("file") matches them all. */
export const MAX_MATCHED_TOOLS = 5;

/**
 * The tools of each entry (by identifier) that share a word with the query text, most shared words first, then in
 * the entry's order; at most MAX_MATCHED_TOOLS.
 */
export async function matchedTools(db: Kysely<Database>, text: string, identifiers: readonly string[]): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  if (identifiers.length === 0) return found;
  const rows = await sql<{ identifier: string; tool: string }>`
    WITH q AS (
      SELECT array_agg(DISTINCT lexeme) AS lexemes
      FROM unnest(tsvector_to_array(to_tsvector('english', ${text}))) AS lexeme
    )
    SELECT identifier, tool FROM (
      SELECT e.identifier, c.tool,
             row_number() OVER (PARTITION BY e.identifier ORDER BY shared.n DESC, c.n) AS place
      FROM entries e
      CROSS JOIN q
      CROSS JOIN LATERAL unnest(e.capabilities) WITH ORDINALITY AS c(tool, n)
      CROSS JOIN LATERAL (
        SELECT count(*) AS n
        FROM unnest(tsvector_to_array(to_tsvector('english',
               regexp_replace(regexp_replace(c.tool, '([a-z0-9])([A-Z])', '\\1 \\2', 'g'), '[_./-]+', ' ', 'g')))) AS w
        WHERE w = ANY(q.lexemes)
      ) AS shared
      WHERE e.identifier = ANY(${identifiers}::text[]) AND e.deleted_at IS NULL AND shared.n > 0
    ) ranked
    WHERE place <= ${MAX_MATCHED_TOOLS}
    ORDER BY identifier, place`.execute(db);
  for (const row of rows.rows) found.set(row.identifier, [...(found.get(row.identifier) ?? []), row.tool]);
  return found;
}
