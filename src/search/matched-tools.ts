// Which of an entry's tools a query matched. An entry's tools are its `capabilities` (the tool names a catalog
// lists) and the tools of its card (entries.tools, migration 0019: name and description, inline or fetched by
// the crawler). Names are in the lexical document at weight B and tool descriptions at weight D, so a query
// for an operation ranks the server that has the tool; this says which ones did it. A tool matches when a word
// of its name or of its description shares a stemmed lexeme with the query, read by the same rule as the
// index (camelCase and `_./-` split into words, CJK text as bigrams: migration 0022), in one statement for a page
// of entries. The tool whose vector raised an entry's cosine (tool_vectors, Match.vectorTool: its sentence is the
// one nearest the query's meaning) is named too, though it may share no word with the query.
import { sql, type Kysely } from 'kysely';
import { PREPARED_STATEMENT } from '../db/prepared-statements';
import type { Database } from '../db/schema';

/** At most this many tools per entry are named: a query word common to many tool names ("file") matches them all. */
export const MAX_MATCHED_TOOLS = 5;

/**
 * The tools of each entry (by identifier) that share a word with the query text: those whose name shares most
 * words first, then those whose description shares most, then in the entry's order (capabilities, then the
 * card's other tools); then the tool at `vectorTools`' position (in entries.tools) for the entry, when not named
 * already (in the last place when the list is full); at most MAX_MATCHED_TOOLS.
 */
export async function matchedTools(
  db: Kysely<Database>,
  text: string,
  identifiers: readonly string[],
  vectorTools: ReadonlyMap<string, number> = new Map(),
): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  if (identifiers.length === 0) return found;
  const [rows, byVector] = await Promise.all([lexicalMatches(db, text, identifiers), vectorToolNames(db, vectorTools)]);
  for (const row of rows) found.set(row.identifier, [...(found.get(row.identifier) ?? []), row.tool]);
  for (const [identifier, tool] of byVector) {
    const named = found.get(identifier) ?? [];
    if (!named.includes(tool)) found.set(identifier, [...named.slice(0, MAX_MATCHED_TOOLS - 1), tool]);
  }
  return found;
}

/** The tools sharing a word with `text`, up to MAX_MATCHED_TOOLS per entry, in matchedTools' order. */
async function lexicalMatches(
  db: Kysely<Database>,
  text: string,
  identifiers: readonly string[],
): Promise<Array<{ identifier: string; tool: string }>> {
  const rows = await sql<{ identifier: string; tool: string }>`${PREPARED_STATEMENT}
    WITH q AS (
      SELECT array_agg(DISTINCT lexeme) AS lexemes
      FROM unnest(tsvector_to_array(to_tsvector('english', ard_cjk_bigrams(${text})))) AS lexeme
    )
    SELECT identifier, tool FROM (
      SELECT e.identifier, t.tool,
             row_number() OVER (PARTITION BY e.identifier ORDER BY by_name.n DESC, by_description.n DESC, t.n) AS place
      FROM entries e
      CROSS JOIN q
      CROSS JOIN LATERAL (
        SELECT c.tool, c.n,
               (SELECT d->>'description' FROM jsonb_array_elements(e.tools) AS d WHERE d->>'name' = c.tool LIMIT 1) AS description
        FROM unnest(e.capabilities) WITH ORDINALITY AS c(tool, n)
        UNION ALL
        SELECT d->>'name', cardinality(e.capabilities) + k, d->>'description'
        FROM jsonb_array_elements(e.tools) WITH ORDINALITY AS j(d, k)
        WHERE NOT (d->>'name' = ANY (e.capabilities))
      ) AS t
      CROSS JOIN LATERAL (
        SELECT count(*) AS n
        FROM unnest(tsvector_to_array(to_tsvector('english', ard_cjk_bigrams(
               regexp_replace(regexp_replace(t.tool, '([a-z0-9])([A-Z])', '\\1 \\2', 'g'), '[_./-]+', ' ', 'g'))))) AS w
        WHERE w = ANY(q.lexemes)
      ) AS by_name
      CROSS JOIN LATERAL (
        SELECT count(*) AS n
        FROM unnest(tsvector_to_array(to_tsvector('english', ard_cjk_bigrams(coalesce(t.description, ''))))) AS w
        WHERE w = ANY(q.lexemes)
      ) AS by_description
      WHERE e.identifier = ANY(${identifiers}::text[]) AND e.deleted_at IS NULL AND by_name.n + by_description.n > 0
    ) ranked
    WHERE place <= ${MAX_MATCHED_TOOLS}
    ORDER BY identifier, place`.execute(db);
  return rows.rows;
}

/** The names of the tools at the given positions of entries.tools, by identifier (none read when there are none). */
async function vectorToolNames(db: Kysely<Database>, positions: ReadonlyMap<string, number>): Promise<Map<string, string>> {
  if (positions.size === 0) return new Map();
  const rows = await sql<{ identifier: string; tool: string | null }>`
    SELECT e.identifier, e.tools -> p.position ->> 'name' AS tool
    FROM unnest(${[...positions.keys()]}::text[], ${[...positions.values()]}::int[]) AS p(identifier, position)
    JOIN entries e ON e.identifier = p.identifier`.execute(db);
  return new Map(rows.rows.flatMap((r) => (r.tool !== null ? [[r.identifier, r.tool] as const] : [])));
}
