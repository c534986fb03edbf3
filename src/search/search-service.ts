// The search service: POST /search over this registry's own index (ARD §7.2), POST /explore's matched set,
// and the ranked list federation and the Alexandria tools read. Built once in the context (createContext)
// from the read pool, the embedder and the ranking settings; everything that searches calls it.
// Hybrid retrieval (vector + lexical candidates, filters applied inside both retrievals, not after a top-k
// cut), one relevance per entry (relevance/), a cutoff, a total order (relevance, then identifier) and
// offset pages carried in signed tokens.
import type { Kysely } from 'kysely';
import type { CatalogEntry } from '../catalog/catalog-entry';
import { getLiveEntries } from '../catalog/entry-repository';
import type { Database } from '../db/schema';
import { matchedTools } from './matched-tools';
import { exploreRegistry, type ExploreInput, type ExploreOutput } from './explore-service';
import { checkPageSize, openPage, type PageRequest, type PageTokenCodec } from './paging';
import { normaliseFilter, type NormalisedFilter, type QueryFilter } from './query-filter';
import { checkQueryText } from './query-text';
import type { QueryVocabulary } from './query-vocabulary';
import { collapseProducts, ProductKeyCache } from './product-collapse';
import {
  matchText,
  matchTextAt,
  withEnglishSenses,
  type EntryStateRanking,
  type Match,
  type MatchCache,
  type QueryEmbedder,
  type RankingDeps,
} from './relevance';

export interface RankedEntry {
  entry: CatalogEntry;
  relevance: number;
  score: number;
}

/** An entry of a page of a ranked list, with its rank (0-based) in the whole list. */
export interface PagedEntry extends RankedEntry {
  rank: number;
  /** The peer (base URL) the entry is mirrored from, its `source`; null for an own entry. */
  mirroredFrom: string | null;
  /** The entries of the same product left out of the list for this one, best first (product-collapse.ts). */
  collapsed: string[];
  /** The position (in entries.tools) of the tool whose vector raised the entry's cosine (Match.vectorTool). */
  vectorTool?: number;
}

export interface SearchInput {
  text: string;
  filter?: QueryFilter;
  pageSize?: number;
  pageToken?: string;
  /** One result per product (the default); false lists every matched entry (docs/api.md "One product, one result"). */
  collapse?: boolean;
}

export interface SearchResultItem extends CatalogEntry {
  /** Registry extension: the entry's tools the query text matched (matched-tools.ts); [] when none. Not a term of the entry. */
  '@matchedTools': string[];
  score: number;
  source: string;
  /** The identifiers of the entries of the same product this result stands for (a registry extension). */
  '@collapsed'?: string[];
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

/** A search request checked: its text, page size, normalised filter and page (query key, token, offset). */
export interface OpenedSearch {
  text: string;
  pageSize: number;
  filter: NormalisedFilter;
  page: PageRequest;
  /** Whether entries of the same product collapse to the best one (SearchInput.collapse). */
  collapse: boolean;
}

/** The ranked list for a query (collapsed by product unless asked not to) and the entries of one page of it. */
export interface RankedPage {
  matches: Match[];
  entries: PagedEntry[];
}

/** A ranked list and one page of it with its entries as results (SearchService.rankResults). */
export interface RankedResults extends RankedPage {
  results: SearchResultItem[];
}

export interface RankOptions {
  /** [offset, offset + size) of the list; the whole list when absent. */
  page?: { offset: number; size: number };
  /** Entries of the same product collapse to the best one; default true. */
  collapse?: boolean;
}

export interface SearchService {
  /** POST /search over this registry's own index: one page of the matched set and the next page's token. */
  search(input: SearchInput): Promise<SearchOutput>;
  /** A search request's set-up: text and page size checked, filter normalised, its page; `op` keeps the tokens of different searches apart. */
  open(input: SearchInput, op: string): OpenedSearch;
  /**
   * The ranked list for a checked text and normalised filter, best first, one entry per product unless
   * `collapse` is false, and the entries of its `page` (the whole list without it), read for that page alone.
   */
  rank(text: string, filter: NormalisedFilter, options?: RankOptions): Promise<RankedPage>;
  /**
   * rank for one page, with the page's entries as results: score, source, the tools `text` matched
   * (`@matchedTools`), the product's other entries (pageResults).
   */
  rankResults(
    text: string,
    filter: NormalisedFilter,
    options: RankOptions & { page: { offset: number; size: number } },
  ): Promise<RankedResults>;
  /** POST /explore: facet counts over the matched set. */
  explore(input: ExploreInput): Promise<ExploreOutput>;
  /** Runs `work`, reporting its duration as `stage`. */
  timed<T>(stage: SearchStage, work: () => Promise<T>): Promise<T>;
}

export interface SearchServiceDeps {
  /** The pool queries run on: a healthy replica when replicas are configured, else the primary. */
  db: Kysely<Database>;
  embedder: QueryEmbedder;
  /** The query vocabulary (SEARCH_SYNONYMS_FILE, SEARCH_RELATED_WORDS_FILE); the bundled tables when absent. */
  vocabulary?: QueryVocabulary;
  /** SEARCH_TYPE_WEIGHTS; none when absent. */
  typeWeights?: Readonly<Record<string, number>>;
  /** LIVENESS_DEMOTION, LIVENESS_DROP_AFTER_SECONDS, TRUST_RANK_BOOST; the text alone ranks when absent. */
  entryStates?: EntryStateRanking;
  pageTokens: PageTokenCodec;
  /** This registry's public base URL, the `source` of its results. */
  publicUrl: string;
  timings?: SearchTimings;
  /** Ranked lists kept while the index does not change (SEARCH_MATCH_CACHE_SIZE); absent: every request ranks. */
  matchCache?: MatchCache;
}

export function createSearchService(deps: SearchServiceDeps): SearchService {
  const ranking: RankingDeps = {
    db: deps.db,
    embedder: deps.embedder,
    vocabulary: deps.vocabulary,
    typeWeights: deps.typeWeights,
    entryStates: deps.entryStates,
    timings: deps.timings,
    matchCache: deps.matchCache,
  };
  const productKeys = new ProductKeyCache();
  /** The ranked list, collapsed by product unless `collapse` is false (the keys kept per index generation). */
  const rankedList = async (text: string, filter: NormalisedFilter, collapse = true) => {
    const { matches, generation } = await matchTextAt(ranking, text, filter);
    return collapse ? collapseProducts(deps.db, matches, productKeys, generation) : { matches, collapsed: undefined };
  };
  const service: SearchService = {
    open(input, op) {
      const text = checkQueryText(input.text);
      const pageSize = checkPageSize(input.pageSize);
      const filter = normaliseFilter(input.filter);
      const collapse = input.collapse ?? true;
      // The uncollapsed list is another list: its tokens are not the collapsed one's (the key of a default request is unchanged).
      const query = collapse ? { op, text, filter, pageSize } : { op, text, filter, pageSize, collapse };
      return { text, pageSize, filter, collapse, page: openPage(deps.pageTokens, query, input.pageToken) };
    },

    async search(input) {
      const { text, pageSize, filter, page, collapse } = service.open(input, 'search');
      // Only the page's entries are read (the whole list's were ~4 ms at 10k, docs/performance.md). An entry
      // deleted between the match and the read leaves its page one short; the next page is unaffected.
      const { matches, results } = await service.rankResults(text, filter, { page: { offset: page.offset, size: pageSize }, collapse });
      const next = page.offset + pageSize < matches.length ? page.next(page.offset + pageSize) : undefined;
      return { results, ...(next ? { pageToken: next } : {}) };
    },

    async rank(text, filter, options = {}) {
      const { matches, collapsed } = await rankedList(text, filter, options.collapse);
      const { offset, size } = options.page ?? { offset: 0, size: matches.length };
      return { matches, entries: await entriesOfPage(deps.db, matches, offset, size, collapsed) };
    },

    async rankResults(text, filter, options) {
      const { matches, collapsed } = await rankedList(text, filter, options.collapse);
      const { offset, size } = options.page;
      return { matches, ...(await pageResults(deps.db, deps.publicUrl, text, matches, offset, size, collapsed)) };
    },

    explore(input) {
      return exploreRegistry({ db: deps.db, matches: (text, filter) => matchText(ranking, text, filter) }, input);
    },

    timed(stage, work) {
      return timed(deps.timings, stage, work);
    },
  };
  return service;
}

/** Runs `work`, reporting its duration as `stage` when timings are wanted. */
async function timed<T>(timings: SearchTimings | undefined, stage: SearchStage, work: () => Promise<T>): Promise<T> {
  if (!timings) return work();
  const start = performance.now();
  try {
    return await work();
  } finally {
    timings.observe(stage, (performance.now() - start) / 1000);
  }
}

/**
 * A page's entry as a result: the entry as stored plus `score`, `source` (this registry, or the peer a mirrored
 * entry comes from: docs/federation.md "Mirroring"), the tools the text matched (`@matchedTools`) and, when it
 * stands for others of its product, `@collapsed`.
 */
function searchResultOf(r: PagedEntry, publicUrl: string, matchedTools: string[]): SearchResultItem {
  return {
    ...r.entry,
    '@matchedTools': matchedTools,
    score: r.score,
    source: r.mirroredFrom ?? publicUrl,
    ...(r.collapsed.length > 0 ? { '@collapsed': r.collapsed } : {}),
  };
}

/**
 * The page matches[offset, offset + size) as results: its entries (entriesOfPage) and the tools `text` matched, read
 * at the same time (two statements on two connections rather than one after the other).
 */
export async function pageResults(
  db: Kysely<Database>,
  publicUrl: string,
  text: string,
  matches: Match[],
  offset: number,
  size: number,
  collapsed?: ReadonlyMap<string, string[]>,
): Promise<{ entries: PagedEntry[]; results: SearchResultItem[] }> {
  const slice = matches.slice(offset, offset + size);
  const [entries, tools] = await Promise.all([
    entriesOfPage(db, matches, offset, size, collapsed),
    // The words the ranking searched with: a Chinese query's English senses name the English tools it matched.
    matchedTools(
      db,
      withEnglishSenses(text).text,
      slice.map((m) => m.identifier),
      new Map(slice.flatMap((m) => (m.vectorTool !== undefined ? [[m.identifier, m.vectorTool]] : []))),
    ),
  ]);
  return { entries, results: entries.map((r) => searchResultOf(r, publicUrl, tools.get(r.entry.identifier) ?? [])) };
}

/**
 * The entries of matches[offset, offset + size), read for that page alone, each with its rank in the
 * whole list (an entry deleted or tombstoned since the match drops out; its rank is not reused) and the
 * entries of its product the list left out (`collapsed`, from collapseProducts).
 */
export async function entriesOfPage(
  db: Kysely<Database>,
  matches: Match[],
  offset: number,
  size: number,
  collapsed?: ReadonlyMap<string, string[]>,
): Promise<PagedEntry[]> {
  const slice = matches.slice(offset, offset + size);
  const entries = await getLiveEntries(
    db,
    slice.map((m) => m.identifier),
  );
  return slice.flatMap((m, i) => {
    const entry = entries.get(m.identifier);
    return entry
      ? [
          {
            entry: entry.entry,
            mirroredFrom: entry.mirroredFrom,
            relevance: m.relevance,
            score: m.score,
            rank: offset + i,
            collapsed: collapsed?.get(m.identifier) ?? [],
            ...(m.vectorTool !== undefined ? { vectorTool: m.vectorTool } : {}),
          },
        ]
      : [];
  });
}
