/**
 * TEST DOUBLE of the `ResourceIndex` port: an in-memory index over catalog entries (in these tests, the real
 * library file mapped with recordToCatalogEntry). It ranks by naive word overlap, nothing like the production
 * engine; the production implementation over the registry store is the core's. Not a test file itself.
 */
import path from 'node:path';

import type { CatalogEntry } from '../../src/alexandria/catalog-entry';
import type { IndexFilter, IndexSearchParams, IndexSearchResult, ResourceIndex } from '../../src/alexandria/library-service';
import { recordToCatalogEntry } from '../../src/alexandria/mapping';
import { type AlexandriaLibrary, loadAlexandriaLibrary } from '../../src/alexandria/record';

export const LIBRARY_PATH = path.join(__dirname, '..', '..', 'data', 'corpus', 'alexandria-library.json');

export function loadShippedLibrary(): Promise<AlexandriaLibrary> {
  return loadAlexandriaLibrary(LIBRARY_PATH);
}

export type ScoreFunction = (entry: CatalogEntry, text: string) => number;

function tokens(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((t) => t.length > 1),
  );
}

/** 100 x the share of query words found in displayName, description, tags and capabilities. */
export const wordOverlapScore: ScoreFunction = (entry, text) => {
  const query = tokens(text);
  if (query.size === 0) return 0;
  const doc = tokens([entry.displayName, entry.description ?? '', ...(entry.tags ?? []), ...(entry.capabilities ?? [])].join(' '));
  let hits = 0;
  for (const t of query) if (doc.has(t)) hits += 1;
  return (100 * hits) / query.size;
};

function valueAt(entry: CatalogEntry, fieldPath: string): unknown {
  let current: unknown = entry;
  for (const part of fieldPath.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

export function matchesFilter(entry: CatalogEntry, filter: IndexFilter): boolean {
  return Object.entries(filter).every(([field, allowed]) => {
    const value = valueAt(entry, field);
    const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
    return values.some((v) => allowed.includes(String(v)));
  });
}

export class InMemoryResourceIndex implements ResourceIndex {
  readonly searchCalls: IndexSearchParams[] = [];
  private readonly byIdentifier: Map<string, CatalogEntry>;

  constructor(
    private readonly entries: readonly CatalogEntry[],
    private readonly score: ScoreFunction = wordOverlapScore,
  ) {
    this.byIdentifier = new Map(entries.map((e) => [e.identifier, e]));
  }

  static async overShippedLibrary(score?: ScoreFunction): Promise<{ index: InMemoryResourceIndex; library: AlexandriaLibrary }> {
    const library = await loadShippedLibrary();
    return { index: new InMemoryResourceIndex(library.records.map(recordToCatalogEntry), score), library };
  }

  async search(params: IndexSearchParams): Promise<IndexSearchResult> {
    this.searchCalls.push(params);
    const scored = this.entries
      .filter((e) => matchesFilter(e, params.filter))
      .map((entry) => ({ entry, score: this.score(entry, params.text) }))
      .filter((s) => s.score > 0)
      // Deterministic engine order: score, then identifier. Deliberately blind to sponsorship.
      .sort((a, b) => b.score - a.score || (a.entry.identifier < b.entry.identifier ? -1 : 1));
    return { entries: scored.slice(0, params.limit), total: scored.length };
  }

  async getEntry(identifier: string): Promise<CatalogEntry | null> {
    return this.byIdentifier.get(identifier) ?? null;
  }

  async facetCounts(field: string, filter: IndexFilter): Promise<Array<{ value: string; count: number }>> {
    const counts = new Map<string, number>();
    for (const entry of this.entries) {
      if (!matchesFilter(entry, filter)) continue;
      const value = valueAt(entry, field);
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
        counts.set(String(v), (counts.get(String(v)) ?? 0) + 1);
      }
    }
    return [...counts].map(([value, count]) => ({ value, count }));
  }
}

/** An index whose every call fails with an error carrying "internal" details that must never reach a client. */
export class FailingResourceIndex implements ResourceIndex {
  static readonly SECRET = 'connect ECONNREFUSED 10.0.0.7:5432 (password=hunter2)';
  async search(): Promise<IndexSearchResult> {
    throw new Error(FailingResourceIndex.SECRET);
  }
  async getEntry(): Promise<CatalogEntry | null> {
    throw new Error(FailingResourceIndex.SECRET);
  }
  async facetCounts(): Promise<Array<{ value: string; count: number }>> {
    throw new Error(FailingResourceIndex.SECRET);
  }
}
