// POST /search over this registry's own index (ARD §7.2): hybrid retrieval (vector + lexical
// candidates, filters applied inside both retrievals, not after a top-k cut), one relevance per
// entry (relevance.ts), a cutoff, a total order (relevance, then identifier) and offset pages
// carried in signed tokens.
import type { Kysely } from 'kysely';
import type { CatalogEntry } from '../catalog/catalog-entry';
import { getLiveEntries } from '../catalog/entry-repository';
import type { Database } from '../db/schema';
import { InvalidArgumentError } from '../errors';
import { normaliseFilter, type NormalisedFilter, type QueryFilter } from './query-filter';
import { queryKey, type PageTokenCodec } from './page-token';
import type { QueryVocabulary } from './query-vocabulary';
import { findMatches, matchText, type Match, type PreparedQuery, type QueryEmbedder, type RankingOptions } from './relevance';

export { CANDIDATES_PER_SIGNAL } from './relevance';
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
  /** SEARCH_TYPE_WEIGHTS (RankingOptions.typeWeights); none when absent. */
  typeWeights?: Readonly<Record<string, number>>;
  /** The query vocabulary (RankingOptions.vocabulary); the bundled tables when absent. */
  vocabulary?: QueryVocabulary;
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
  // Only the page's entries are read (the whole list's were ~4 ms at 10k, docs/performance.md). An entry
  // deleted between the match and the read leaves its page one short; the next page is unaffected.
  const matches = await matchText(deps.db, deps.embedder, text, filter, { typeWeights: deps.typeWeights, vocabulary: deps.vocabulary }, deps.timings);
  const page = await entriesOfPage(deps.db, matches, offset, pageSize);
  const next = offset + pageSize < matches.length ? deps.pageTokens.encode({ q: key, o: offset + pageSize }) : undefined;
  return {
    results: page.map((r) => ({ ...r.entry, score: r.score, source: deps.publicUrl })),
    ...(next ? { pageToken: next } : {}),
  };
}

/**
 * The whole matched set for a query text (relevance.ts: the cutoff, minimum matches), best first: matchText
 * (the lexical retrieval overlapping the query embedding), then the matched entries. Stage durations go to
 * `deps.timings`.
 */
export async function rankText(deps: Pick<SearchDeps, 'db' | 'embedder' | 'timings' | 'typeWeights' | 'vocabulary'>, text: string, filter: NormalisedFilter): Promise<RankedEntry[]> {
  const matches = await matchText(deps.db, deps.embedder, text, filter, { typeWeights: deps.typeWeights, vocabulary: deps.vocabulary }, deps.timings);
  return entriesOfPage(deps.db, matches, 0, matches.length);
}

/** The whole matched set (at most the union of the candidate sets), best first. */
export async function rankEntries(
  db: Kysely<Database>,
  q: PreparedQuery,
  filter: NormalisedFilter,
  options: RankingOptions = {},
): Promise<RankedEntry[]> {
  const matches = await findMatches(db, q, filter, options);
  return entriesOfPage(db, matches, 0, matches.length);
}

/** A page of a ranked list: its entries with their rank (0-based) in the whole list. */
export interface PagedEntry extends RankedEntry {
  rank: number;
}

/**
 * The entries of matches[offset, offset + size), read for that page alone, each with its rank in the
 * whole list (an entry deleted or tombstoned since the match drops out; its rank is not reused).
 */
export async function entriesOfPage(db: Kysely<Database>, matches: Match[], offset: number, size: number): Promise<PagedEntry[]> {
  const slice = matches.slice(offset, offset + size);
  const entries = await getLiveEntries(db, slice.map((m) => m.identifier));
  return slice.flatMap((m, i) => {
    const entry = entries.get(m.identifier);
    return entry ? [{ entry, relevance: m.relevance, score: m.score, rank: offset + i }] : [];
  });
}
