// POST /search over this registry's own index (ARD §7.2): hybrid retrieval (vector + lexical
// candidates, filters applied inside both retrievals, not after a top-k cut), one relevance per
// entry (relevance.ts), a cutoff, a total order (relevance, then identifier) and offset pages
// carried in signed tokens.
import { sql, type Kysely } from 'kysely';
import type { CatalogEntry } from '../catalog/catalog-entry';
import type { Database } from '../db/schema';
import { InvalidArgumentError } from '../errors';
import { normaliseFilter, type NormalisedFilter, type QueryFilter } from './query-filter';
import { queryKey, type PageTokenCodec } from './page-token';
import { matchedSetSql } from './matched-set';
import { prepareQuery, toScore, type PreparedQuery, type QueryEmbedder } from './relevance';

export { CANDIDATES_PER_SIGNAL } from './matched-set';
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

export interface SearchDeps {
  db: Kysely<Database>;
  embedder: QueryEmbedder;
  pageTokens: PageTokenCodec;
  /** This registry's public base URL, the `source` of its results. */
  publicUrl: string;
}

export function checkQueryText(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') throw new InvalidArgumentError('query.text must not be empty');
  if (trimmed.length > MAX_QUERY_LENGTH) {
    throw new InvalidArgumentError(`query.text is ${trimmed.length} characters long; at most ${MAX_QUERY_LENGTH} are allowed`);
  }
  return trimmed;
}

/** pageSize or the default; 400 unless an integer from 1 to max. GET /agents passes its own bounds. */
export function checkPageSize(pageSize: number | undefined, bounds = { fallback: DEFAULT_PAGE_SIZE, max: MAX_PAGE_SIZE }): number {
  const size = pageSize ?? bounds.fallback;
  if (!Number.isInteger(size) || size < 1 || size > bounds.max) {
    throw new InvalidArgumentError(`pageSize must be an integer from 1 to ${bounds.max}; got ${pageSize}`);
  }
  return size;
}

export async function searchIndex(deps: SearchDeps, input: SearchInput): Promise<SearchOutput> {
  const text = checkQueryText(input.text);
  const pageSize = checkPageSize(input.pageSize);
  const filter = normaliseFilter(input.filter);
  const key = queryKey({ op: 'search', text, filter, pageSize });
  const offset = input.pageToken ? deps.pageTokens.decode(input.pageToken, key).o : 0;
  const ranked = await rankEntries(deps.db, await prepareQuery(deps.db, deps.embedder, text), filter);
  const page = ranked.slice(offset, offset + pageSize);
  const next = offset + pageSize < ranked.length ? deps.pageTokens.encode({ q: key, o: offset + pageSize }) : undefined;
  return {
    results: page.map((r) => ({ ...r.entry, score: r.score, source: deps.publicUrl })),
    ...(next ? { pageToken: next } : {}),
  };
}

/** The whole ranked list: the matched set (matched-set.ts) by relevance, then identifier. */
export async function rankEntries(db: Kysely<Database>, q: PreparedQuery, filter: NormalisedFilter): Promise<RankedEntry[]> {
  const rows = await sql<{ entry: CatalogEntry; relevance: number }>`
    WITH matched AS (${matchedSetSql(q, filter)})
    SELECT e.entry, m.relevance FROM matched m JOIN entries e ON e.identifier = m.identifier
    ORDER BY m.relevance DESC, m.identifier ASC`.execute(db);
  return rows.rows.map((r) => ({ entry: r.entry, relevance: Number(r.relevance), score: toScore(Number(r.relevance)) }));
}
