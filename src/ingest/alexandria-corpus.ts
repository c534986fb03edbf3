// The Alexandria library (data/corpus/alexandria-library.json, schema v1 records) as ordinary catalog
// entries: every record goes through the reversible mapping (src/alexandria/mapping.ts) into one manifest,
// ingested like any other, so POST /search, the MCP tools and the static routes all read the same store.
import path from 'node:path';
import type { CatalogManifest } from '../catalog/catalog-entry';
import { loadAlexandriaLibrary, recordToCatalogEntry, type AlexandriaLibrary } from '../alexandria';
import { CORPUS_DIR } from './demo-corpus';
import { ingestManifest, type IngestDeps, type IngestReport } from './ingest-manifest';

export const ALEXANDRIA_LIBRARY_FILE = path.join(CORPUS_DIR, 'alexandria-library.json');

export function alexandriaManifest(library: AlexandriaLibrary): CatalogManifest {
  return {
    specVersion: '1.0',
    host: { displayName: 'Alexandria agent library' },
    entries: library.records.map(recordToCatalogEntry),
  };
}

/** Validates the library strictly (a bad record is a load error), maps and ingests every record. */
export async function ingestAlexandriaLibrary(
  deps: IngestDeps,
  file: string = ALEXANDRIA_LIBRARY_FILE,
  onProgress?: (done: number, total: number) => void,
): Promise<IngestReport> {
  const library = await loadAlexandriaLibrary(file);
  return ingestManifest(deps, alexandriaManifest(library), { origin: `file:${file}`, onProgress });
}
