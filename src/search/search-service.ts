// POST /search over this registry's own index (ARD §7.2): hybrid retrieval (vector + lexical
// candidates, filters applied inside both retrievals, not after a top-k cut), one relevance per
// entry (relevance.ts), a cutoff, a total order (relevance, then identifier) and offset pages
// carried in signed tokens.
import { sql, type Kysely } from 'kysely';
import type { CatalogEntry } from '../catalog/catalog-entry';
import type { Database } from '../db/schema';
import { InvalidArgumentError } from '../errors';
import { filterToSql, normaliseFilter, type NormalisedFilter, type QueryFilter } from './query-filter';
import { queryKey, type PageTokenCodec } from './page-token';
import {
  RELEVANCE_CUTOFF,
  embeddingColumnSql,
  fuseSql,
  lexicalQuerySql,
  lexicalSignalSql,
  prepareQuery,
  semanticSignalSql,
  toScore,
  vectorSql,
  type PreparedQuery,
  type QueryEmbedder,
} from './relevance';

/** Candidates taken from each retrieval; the ranked list never goes deeper than their union. */
export const CANDIDATES_PER_SIGNAL = 300;
export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;
export const MAX_QUERY_LENGTH = 2000;

export interface RankedEntry {
  entry: CatalogEntry;
  relevance: number;
  score: number;
}

export interface SearchInput {
  text: string;
  filter?: QueryFilter;
  pageSize?: number;
  pageToken?: string;
}

export interface SearchResultItem extends CatalogEntry {
  score: number;
  source: string;
}

export interface SearchOutput {
  results: SearchResultItem[];
  pageToken?: string;
}

/** The stages of a search whose duration is reported (federation: the fan-out to peers). */
export type SearchStage = 'embedding' | 'sql' | 'federation';

/** Receives stage durations (the HTTP layer feeds them to /metrics); the domain knows no metrics library. */
export interface SearchTimings {
  observe(stage: SearchStage, seconds: number): void;
}

export interface SearchDeps {
  db: Kysely<Database>;
  embedder: QueryEmbedder;
  pageTokens: PageTokenCodec;
  /** This registry's public base URL, the `source` of its results. */
  publicUrl: string;
  timings?: SearchTimings;
}

/** Runs `work`, reporting its duration as `stage` when timings are wanted. */
export async function timed<T>(timings: SearchTimings | undefined, stage: SearchStage, work: () => Promise<T>): Promise<T> {
  if (!timings) return work();
  const start = performance.now();
  try {
    return await work();
  } finally {
    timings.observe(stage, (performance.now() - start) / 1000);
  }
}

export function checkQueryText(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') throw new InvalidArgumentError('query.text must not be empty');
  if (trimmed.length > MAX_QUERY_LENGTH) {
    throw new InvalidArgumentError(`query.text is ${trimmed.length} characters long; at most ${MAX_QUERY_LENGTH} are allowed`);
  }
  return trimmed;
}

export function checkPageSize(pageSize: number | undefined): number {
  const size = pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw new InvalidArgumentError(`pageSize must be an integer from 1 to ${MAX_PAGE_SIZE}; got ${pageSize}`);
  }
  return size;
}

export async function searchIndex(deps: SearchDeps, input: SearchInput): Promise<SearchOutput> {
  const text = checkQueryText(input.text);
  const pageSize = checkPageSize(input.pageSize);
  const filter = normaliseFilter(input.filter);
  const key = queryKey({ op: 'search', text, filter, pageSize });
  const offset = input.pageToken ? deps.pageTokens.decode(input.pageToken, key).o : 0;
  // 'embedding' includes the query's lexeme statistics, fetched in parallel with the embedding.
  const prepared = await timed(deps.timings, 'embedding', () => prepareQuery(deps.db, deps.embedder, text));
  const ranked = await timed(deps.timings, 'sql', () => rankEntries(deps.db, prepared, filter));
  const page = ranked.slice(offset, offset + pageSize);
  const next = offset + pageSize < ranked.length ? deps.pageTokens.encode({ q: key, o: offset + pageSize }) : undefined;
  return {
    results: page.map((r) => ({ ...r.entry, score: r.score, source: deps.publicUrl })),
    ...(next ? { pageToken: next } : {}),
  };
}

/** The whole ranked list above the cutoff (at most the union of both candidate sets). */
export async function rankEntries(db: Kysely<Database>, q: PreparedQuery, filter: NormalisedFilter): Promise<RankedEntry[]> {
  const where = filterToSql(filter);
  const queryVector = vectorSql(q);
  const embedding = embeddingColumnSql(q);
  const tsquery = lexicalQuerySql(q);
  const relevance = fuseSql(semanticSignalSql(sql`coalesce(${embedding} <=> ${queryVector}, 1)`), lexicalSignalSql(q));
  const rows = await sql<{ entry: CatalogEntry; relevance: number }>`
    WITH vec AS (
      SELECT v.identifier FROM entry_vectors v JOIN entries e ON e.identifier = v.identifier
      WHERE v.model = ${q.model} AND v.field = 'doc' AND e.deleted_at IS NULL AND ${where}
      ORDER BY ${embedding} <=> ${queryVector}
      LIMIT ${CANDIDATES_PER_SIGNAL}
    ), lex AS (
      SELECT e.identifier FROM entries e
      WHERE e.deleted_at IS NULL AND e.search_doc @@ ${tsquery} AND ${where}
      ORDER BY ts_rank_cd(e.search_doc, ${tsquery}) DESC, e.identifier
      LIMIT ${CANDIDATES_PER_SIGNAL}
    ), cand AS (SELECT identifier FROM vec UNION SELECT identifier FROM lex),
    scored AS (
      SELECT e.identifier, e.entry, ${relevance} AS relevance
      FROM cand JOIN entries e ON e.identifier = cand.identifier
      LEFT JOIN entry_vectors v ON v.identifier = e.identifier AND v.model = ${q.model} AND v.field = 'doc'
    )
    SELECT entry, relevance FROM scored
    WHERE relevance >= ${RELEVANCE_CUTOFF}
    ORDER BY relevance DESC, identifier ASC`.execute(db);
  return rows.rows.map((r) => ({ entry: r.entry, relevance: Number(r.relevance), score: toScore(Number(r.relevance)) }));
}
