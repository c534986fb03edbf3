// The demo corpus read straight from data/corpus, for counting independently of the database.
import fs from 'node:fs';
import type { CatalogEntry, HostInfo } from '../../src/catalog/catalog-entry';
import { demoManifestPaths } from '../../src/ingest/demo-corpus';
import { validateManifest } from '../../src/ingest/ingest-manifest';
import { ALEXANDRIA_LIBRARY_FILE, alexandriaManifest } from '../../src/ingest/alexandria-corpus';
import { validateAlexandriaLibrary } from '../../src/alexandria';

export interface CorpusEntry {
  entry: CatalogEntry;
  host: HostInfo | undefined;
}

/**
 * Valid entries of the demo corpus as the registry loads it: the demo manifests (a later manifest wins
 * for an identifier listed twice) and then the Alexandria library mapped to entries.
 */
export function loadCorpusEntries(): CorpusEntry[] {
  const byId = new Map<string, CorpusEntry>();
  const manifests = demoManifestPaths().map((file) => ({ file, manifest: JSON.parse(fs.readFileSync(file, 'utf8')) as unknown }));
  const library = validateAlexandriaLibrary(JSON.parse(fs.readFileSync(ALEXANDRIA_LIBRARY_FILE, 'utf8')));
  manifests.push({ file: ALEXANDRIA_LIBRARY_FILE, manifest: alexandriaManifest(library) });
  for (const { file, manifest } of manifests) {
    const { host, valid } = validateManifest(manifest, file);
    for (const entry of valid) byId.set(entry.identifier, { entry, host });
  }
  return [...byId.values()];
}

/** value -> number of entries having it (each entry counted once per distinct value). */
export function countBy(items: CorpusEntry[], values: (item: CorpusEntry) => unknown[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) {
    for (const v of new Set(
      values(item)
        .filter((x) => x !== undefined && x !== null)
        .map(String),
    )) {
      counts.set(v, (counts.get(v) ?? 0) + 1);
    }
  }
  return counts;
}

/** Buckets as /explore orders them: count descending, then value ascending (code-unit order). */
export function toBuckets(counts: Map<string, number>): Array<{ value: string; count: number }> {
  return [...counts.entries()]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}
