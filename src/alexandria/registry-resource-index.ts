/**
 * The production `ResourceIndex`: the registry's own store and ranking engine. `search` is POST /search's
 * engine (the search service: same relevance, same cutoff, same filter compiler; only the returned entries
 * are read, as POST /search reads only its page), `getEntry` is the exact live-entry lookup, and
 * `facetCounts` is POST /explore's facet computation (the search service's explore).
 *
 * Sponsorship cannot influence the relevance: the ranked text (searchableText: name, description, tags,
 * capabilities) and the embeddings never read `metadata`, where `sponsored` lives.
 */
import type { Kysely } from 'kysely';

import { getLiveEntry, listLiveEntriesOfType } from '../catalog/entry-repository';
import type { Database } from '../db/schema';
import { MAX_FACET_LIMIT } from '../search/explore-service';
import { normaliseFilter, type QueryFilter } from '../search/query-filter';
import type { SearchService } from '../search/search-service';
import { AlexandriaLibraryService } from './library-service';
import type { IndexFilter, IndexSearchParams, IndexSearchResult, ResourceIndex } from './library-service';
import { ALEXANDRIA_MEDIA_TYPE, catalogEntryToRecord } from './mapping';
import type { AlexandriaLibrary, AlexandriaRecord } from './record';

export interface RegistryIndexDeps {
  /** The pool the search service reads. */
  db: Kysely<Database>;
  /** The registry's search service, so that the library's search is POST /search's. */
  search: SearchService;
}

export class RegistryResourceIndex implements ResourceIndex {
  constructor(private readonly deps: RegistryIndexDeps) {}

  async search(params: IndexSearchParams): Promise<IndexSearchResult> {
    const { matches, entries } = await this.deps.search.rank(params.text.trim(), normaliseFilter(toQueryFilter(params.filter)), {
      page: { offset: 0, size: params.limit },
    });
    return { entries: entries.map((r) => ({ entry: r.entry, score: r.score })), total: matches.length };
  }

  async getEntry(identifier: string) {
    return (await getLiveEntry(this.deps.db, identifier))?.entry ?? null;
  }

  /** Every value of `field` over the entries matching `filter` (up to explore's largest limit). */
  async facetCounts(field: string, filter: IndexFilter) {
    const { facets } = await this.deps.search.explore({ filter: toQueryFilter(filter), facets: [{ field, limit: MAX_FACET_LIMIT }] });
    return facets[field].buckets;
  }
}

function toQueryFilter(filter: IndexFilter): QueryFilter {
  return Object.fromEntries(Object.entries(filter).map(([path, values]) => [path, [...values]]));
}

/** Every stored Alexandria record (live entries of the Alexandria type), by identifier. */
export async function listStoredRecords(db: Kysely<Database>): Promise<Array<{ record: AlexandriaRecord; updatedAt: Date }>> {
  const rows = await listLiveEntriesOfType(db, ALEXANDRIA_MEDIA_TYPE);
  return rows.map(({ entry, updatedAt }) => ({ record: catalogEntryToRecord(entry), updatedAt }));
}

export interface RegistryLibrary {
  /** The library file as shipped (taxonomy, use cases, records as ingested). */
  library: AlexandriaLibrary;
  service: AlexandriaLibraryService;
}

/** The three tools' service over the registry's store; the taxonomy comes from the library file (loadAlexandriaLibrary). */
export function registryLibrary(library: AlexandriaLibrary, deps: RegistryIndexDeps): RegistryLibrary {
  const service = new AlexandriaLibraryService({ index: new RegistryResourceIndex(deps), topics: library.topics });
  return { library, service };
}
