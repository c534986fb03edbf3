// Relevance of entries to a natural-language query, shared by POST /search (ranking) and
// POST /explore (the matched set): one definition, one cutoff (ARD §7.3).
//
// Two signals, each calibrated onto [0, 1] the same way for every query:
// - semantic: cosine similarity of the query and entry embeddings, mapped linearly from
//   SEMANTIC_FLOOR (unrelated text scores about this with USE-lite) to SEMANTIC_CEILING.
// - lexical: the IDF-weighted share of the query's lexemes that the entry contains. Words every
//   entry has ("server", "mcp") weigh little, rare ones (a product name) weigh a lot.
// relevance = 0.65 * max + 0.35 * min, so one signal's clear win survives the fusion.
// score = round(100 * relevance); entries under RELEVANCE_CUTOFF are not in the matched set.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../db/schema';
import type { Embedder } from '../embedding/embedder';
import { toVectorLiteral } from '../embedding/embedder';

export const SEMANTIC_FLOOR = 0.2;
export const SEMANTIC_CEILING = 0.75;
export const RELEVANCE_CUTOFF = 0.3;

export interface PreparedQuery {
  text: string;
  model: string;
  dimensions: number;
  vector: number[];
  lexemes: string[];
  idf: number[];
}

export interface QueryEmbedder extends Embedder {
  embedOne(text: string): Promise<number[]>;
}

export async function prepareQuery(db: Kysely<Database>, embedder: QueryEmbedder, text: string): Promise<PreparedQuery> {
  const [vector, lexical] = await Promise.all([embedder.embedOne(text), lexemeWeights(db, text)]);
  return { text, model: embedder.id, dimensions: embedder.dimensions, vector, ...lexical };
}

/** The query's distinct lexemes with their inverse document frequency over live entries. */
async function lexemeWeights(db: Kysely<Database>, text: string): Promise<{ lexemes: string[]; idf: number[] }> {
  const result = await sql<{ lexeme: string; df: string; n: string }>`
    WITH q AS (SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', ${text})))
    SELECT q.lexeme,
           (SELECT count(*) FROM entries WHERE deleted_at IS NULL AND search_doc @@ quote_literal(q.lexeme)::tsquery) AS df,
           (SELECT count(*) FROM entries WHERE deleted_at IS NULL) AS n
    FROM q`.execute(db);
  const lexemes: string[] = [];
  const idf: number[] = [];
  for (const row of result.rows) {
    const n = Number(row.n);
    const df = Number(row.df);
    lexemes.push(row.lexeme);
    // BM25's IDF, floored so a word in every entry still counts a little.
    idf.push(Math.max(0.05, Math.log(1 + (n - df + 0.5) / (df + 0.5))));
  }
  return { lexemes, idf };
}

/** OR of the query's lexemes, as a tsquery expression; NULL when the query has none. */
export function lexicalQuerySql(q: PreparedQuery): RawBuilder<unknown> {
  return sql`(SELECT to_tsquery('simple', string_agg(quote_literal(l), ' | ')) FROM unnest(${q.lexemes}::text[]) AS l)`;
}

export function vectorSql(q: PreparedQuery): RawBuilder<unknown> {
  return sql`${toVectorLiteral(q.vector)}::vector(${sql.raw(String(q.dimensions))})`;
}

/** `v.embedding` cast to the model's dimensions: the same expression the HNSW index is built on. */
export function embeddingColumnSql(q: PreparedQuery, alias = 'v'): RawBuilder<unknown> {
  return sql`${sql.ref(`${alias}.embedding`)}::vector(${sql.raw(String(q.dimensions))})`;
}

/** Lexical signal in [0, 1] for entries aliased `e`. */
export function lexicalSignalSql(q: PreparedQuery): RawBuilder<number> {
  const total = q.idf.reduce((a, b) => a + b, 0);
  if (total === 0) return sql<number>`0.0`;
  return sql<number>`(SELECT coalesce(sum(w.idf), 0) FROM unnest(${q.lexemes}::text[], ${q.idf}::float8[]) AS w(l, idf)
      WHERE e.search_doc @@ quote_literal(w.l)::tsquery) / ${total}::float8`;
}

/** Semantic signal in [0, 1] from a cosine distance expression. */
export function semanticSignalSql(distance: RawBuilder<unknown>): RawBuilder<number> {
  return sql<number>`least(1.0, greatest(0.0, ((1 - ${distance}) - ${SEMANTIC_FLOOR}) / ${SEMANTIC_CEILING - SEMANTIC_FLOOR}))`;
}

export function fuseSql(semantic: RawBuilder<number>, lexical: RawBuilder<number>): RawBuilder<number> {
  return sql<number>`(0.65 * greatest(${semantic}, ${lexical}) + 0.35 * least(${semantic}, ${lexical}))`;
}

export function toScore(relevance: number): number {
  return Math.max(0, Math.min(100, Math.round(relevance * 100)));
}
