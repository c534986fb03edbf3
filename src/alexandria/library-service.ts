/**
 * The domain of the three Alexandria tools (search, get_resource, list_topics), written against the
 * `ResourceIndex` port so it runs over whatever store and search engine the registry core provides.
 * Shapes follow the FROZEN contract (docs/reference/alexandria-api-contract-v0.txt) field by field.
 * No transport code here: src/mcp adapts this service to MCP.
 */
import { randomBytes } from 'node:crypto';

import type { CatalogEntry } from './catalog-entry';
import { InvalidToolArgumentError, MalformedResourceIdError, ResourceNotFoundError } from './errors';
import { ALEXANDRIA_MEDIA_TYPE, alexandriaIdToUrn, catalogEntryToRecord, FILTER_PATHS } from './mapping';
import { type AlexandriaRecord, isResourceKind, parseAlexandriaId, RESOURCE_KINDS, type ResourceKind } from './record';
import { applySponsorshipRule } from './sponsorship';

// ---------------------------------------------------------------------------------------------------------
// The port the registry core implements over its store
// ---------------------------------------------------------------------------------------------------------

/**
 * Structured constraints in the ARD QueryModel sense: keys are entry field paths (`type`, `tags`,
 * `capabilities`, `metadata.kind`), values are alternatives. A key matches when the field (or, for an array
 * field, any element) equals one of its values; all keys must match.
 */
export type IndexFilter = Readonly<Record<string, readonly string[]>>;

export interface IndexSearchParams {
  text: string;
  filter: IndexFilter;
  /** Maximum number of entries to return. */
  limit: number;
}

export interface IndexSearchResult {
  /** Best first. `score` is the registry's relevance, 0-100; sponsorship must NOT influence it. */
  entries: Array<{ entry: CatalogEntry; score: number }>;
  /** Number of entries matching text + filter, regardless of `limit`. */
  total: number;
}

export interface ResourceIndex {
  search(params: IndexSearchParams): Promise<IndexSearchResult>;
  /** The stored entry with exactly this identifier, or null. Never a near match. */
  getEntry(identifier: string): Promise<CatalogEntry | null>;
  /** Counts per distinct value of `field` (for an array field, per element) over entries matching `filter`. */
  facetCounts(field: string, filter: IndexFilter): Promise<Array<{ value: string; count: number }>>;
}

// ---------------------------------------------------------------------------------------------------------
// Contract shapes
// ---------------------------------------------------------------------------------------------------------

export interface SearchLibraryInput {
  query: string;
  /** One of the library's topics; null/undefined = any (the contract's request example sends null). */
  topic?: string | null;
  kind?: ResourceKind | null;
  /** 1..50, default 10. */
  limit?: number | null;
}

export interface SearchResultItem {
  id: string;
  kind: ResourceKind;
  title: string;
  url: string;
  tags: string[];
  /** Absent when the record has no date (same convention as the record itself). */
  date?: string;
  description: string;
  /** Relevance 0..1, two decimals: the registry's 0-100 score / 100. */
  score: number;
  /** Present (true) only on sponsored records. */
  sponsored?: true;
}

export interface SearchLibraryResponse {
  results: SearchResultItem[];
  total: number;
  query_id: string;
}

export interface TopicCount {
  topic: string;
  entries: number;
}

export interface ListTopicsResponse {
  topics: TopicCount[];
}

// ---------------------------------------------------------------------------------------------------------

export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 50;
export const MAX_QUERY_LENGTH = 1000;
/**
 * How far `searchLibrary` widens its window to settle a tie at the window's edge (see there). The library
 * holds 180 records; a cap keeps a pathological tie from scanning a large store.
 */
export const MAX_SEARCH_WINDOW = 500;

export interface LibraryServiceOptions {
  index: ResourceIndex;
  /** The topic taxonomy in editorial order (the library file's `topics`). */
  topics: readonly string[];
  /** Source of `query_id`s; defaults to `q_` + 8 random hex digits. */
  newQueryId?: () => string;
}

/** Maps the registry's 0-100 relevance to the contract's 0..1 with two decimals (91.4 -> 0.91). */
export function toContractScore(registryScore: number): number {
  if (!Number.isFinite(registryScore)) throw new RangeError(`relevance score ${registryScore} is not finite`);
  const clamped = Math.min(100, Math.max(0, registryScore));
  return Math.round(clamped) / 100;
}

export function newQueryId(): string {
  return `q_${randomBytes(4).toString('hex')}`;
}

export class AlexandriaLibraryService {
  private readonly index: ResourceIndex;
  private readonly topics: readonly string[];
  private readonly makeQueryId: () => string;

  constructor(options: LibraryServiceOptions) {
    this.index = options.index;
    this.topics = [...options.topics];
    this.makeQueryId = options.newQueryId ?? newQueryId;
  }

  /** The allowed topics, in the library's order. */
  get topicTaxonomy(): readonly string[] {
    return this.topics;
  }

  async searchLibrary(input: SearchLibraryInput): Promise<SearchLibraryResponse> {
    const { query, topic, kind, limit } = this.validateSearchInput(input);
    const filter: Record<string, string[]> = { [FILTER_PATHS.type]: [ALEXANDRIA_MEDIA_TYPE] };
    if (topic !== undefined) filter[FILTER_PATHS.topic] = [topic];
    if (kind !== undefined) filter[FILTER_PATHS.kind] = [kind];

    // The rule is applied to a window of the engine's best entries. If a shown sponsored result ties (on the
    // published score) with the window's last entry, an editorial entry with that same score may be just
    // outside the window and would then rank below it: widen the window until the tie is settled.
    let window = limit;
    for (;;) {
      const page = await this.index.search({ text: query, filter, limit: window });
      const ranked = applySponsorshipRule(page.entries.map(({ entry, score }) => toSearchResult(entry, score)));
      const shown = ranked.slice(0, limit);
      const windowExhausted = page.entries.length < window || page.entries.length >= page.total;
      const edge = ranked[ranked.length - 1]?.score;
      const tieAtEdge = shown.some((r) => r.sponsored === true && r.score === edge);
      if (windowExhausted || !tieAtEdge) {
        return { results: shown, total: page.total, query_id: this.makeQueryId() };
      }
      if (window >= MAX_SEARCH_WINDOW) {
        // Fail closed: rather than risk a sponsored result above an unseen editorial one, leave it out.
        const safe = ranked.filter((r) => !(r.sponsored === true && r.score === edge)).slice(0, limit);
        return { results: safe, total: page.total, query_id: this.makeQueryId() };
      }
      window = Math.min(window * 2, MAX_SEARCH_WINDOW);
    }
  }

  /** The full v1 record exactly as ingested. Unknown -> ResourceNotFoundError; malformed -> MalformedResourceIdError. */
  async getResource(id: string): Promise<AlexandriaRecord> {
    if (typeof id !== 'string') throw new MalformedResourceIdError(String(id), 'an id must be a string');
    parseAlexandriaId(id);
    const entry = await this.index.getEntry(alexandriaIdToUrn(id));
    if (entry === null) throw new ResourceNotFoundError(id);
    const record = catalogEntryToRecord(entry);
    if (record.id !== id) {
      // The store answered a different resource: an index bug, never something to hand to an agent.
      throw new Error(`index returned ${record.id} for ${id}`);
    }
    return record;
  }

  /**
   * All topics of the taxonomy with their live counts, zero counts included. Order: by count, highest first;
   * equal counts keep the taxonomy's editorial order (the contract's example lists memory before evals at 12).
   */
  async listTopics(): Promise<ListTopicsResponse> {
    const buckets = await this.index.facetCounts(FILTER_PATHS.topic, { [FILTER_PATHS.type]: [ALEXANDRIA_MEDIA_TYPE] });
    const counts = new Map(buckets.map((b) => [b.value, b.count]));
    const topics = this.topics.map((topic, position) => ({ topic, entries: counts.get(topic) ?? 0, position }));
    topics.sort((a, b) => b.entries - a.entries || a.position - b.position);
    return { topics: topics.map(({ topic, entries }) => ({ topic, entries })) };
  }

  private validateSearchInput(input: SearchLibraryInput): {
    query: string;
    topic?: string;
    kind?: ResourceKind;
    limit: number;
  } {
    if (typeof input !== 'object' || input === null) {
      throw new InvalidToolArgumentError('arguments', input, 'expected an object {query, topic?, kind?, limit?}');
    }
    const { query, topic, kind, limit } = input;
    if (typeof query !== 'string' || query.trim().length === 0) {
      throw new InvalidToolArgumentError('query', query, 'query must be a non-empty string');
    }
    if (query.length > MAX_QUERY_LENGTH) {
      throw new InvalidToolArgumentError('query', `${query.length} characters`, `query is at most ${MAX_QUERY_LENGTH} characters`);
    }
    const result: { query: string; topic?: string; kind?: ResourceKind; limit: number } = {
      query,
      limit: DEFAULT_SEARCH_LIMIT,
    };
    if (topic !== undefined && topic !== null) {
      if (typeof topic !== 'string' || !this.topics.includes(topic)) {
        throw new InvalidToolArgumentError('topic', topic, `topic must be one of: ${this.topics.join(', ')}`);
      }
      result.topic = topic;
    }
    if (kind !== undefined && kind !== null) {
      if (!isResourceKind(kind)) {
        throw new InvalidToolArgumentError('kind', kind, `kind must be one of: ${RESOURCE_KINDS.join(', ')}`);
      }
      result.kind = kind;
    }
    if (limit !== undefined && limit !== null) {
      if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
        throw new InvalidToolArgumentError('limit', limit, `limit must be an integer from 1 to ${MAX_SEARCH_LIMIT}`);
      }
      result.limit = limit;
    }
    return result;
  }
}

function toSearchResult(entry: CatalogEntry, registryScore: number): SearchResultItem {
  const record = catalogEntryToRecord(entry);
  // Field order follows the contract's example response.
  return {
    id: record.id,
    kind: record.kind,
    title: record.title,
    url: record.url,
    tags: record.tags,
    ...(record.date !== undefined ? { date: record.date } : {}),
    description: record.description,
    score: toContractScore(registryScore),
    ...(record.sponsored === true ? { sponsored: true as const } : {}),
  };
}
