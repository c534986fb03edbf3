// Ingests manifest files (the CLI's `ingest <file>`, the demo corpus) with a progress callback.
import type { IngestDeps, IngestReport } from './ingest-manifest';
import { ingestManifest } from './ingest-manifest';
import { readManifestFile } from './manifest-source';
import { countLiveEntries } from '../catalog/entry-repository';
import { demoManifestPaths } from './demo-corpus';
import { ALEXANDRIA_LIBRARY_FILE, ingestAlexandriaLibrary } from './alexandria-corpus';
import type { Logger } from '../logger';

export async function ingestFile(
  deps: IngestDeps,
  file: string,
  onProgress?: (done: number, total: number) => void,
): Promise<IngestReport> {
  const manifest = await readManifestFile(file);
  return ingestManifest(deps, manifest, { origin: `file:${file}`, onProgress });
}

/** Loads the demo corpus when the index is empty; returns the reports (none when it was not empty). */
export async function loadDemoCorpusIfEmpty(deps: IngestDeps, logger: Logger): Promise<IngestReport[]> {
  if ((await countLiveEntries(deps.db)) > 0) return [];
  const reports: IngestReport[] = [];
  for (const file of demoManifestPaths()) {
    const started = Date.now();
    const report = await ingestFile(deps, file);
    logger.info(
      { file, added: report.added, updated: report.updated, rejected: report.rejected.length, ms: Date.now() - started },
      'demo corpus manifest loaded',
    );
    reports.push(report);
  }
  // The Alexandria library is part of the demo corpus: a schema v1 file mapped to catalog entries.
  const started = Date.now();
  const library = await ingestAlexandriaLibrary(deps, ALEXANDRIA_LIBRARY_FILE);
  logger.info(
    { file: ALEXANDRIA_LIBRARY_FILE, added: library.added, updated: library.updated, rejected: library.rejected.length, ms: Date.now() - started },
    'demo corpus: Alexandria library loaded',
  );
  reports.push(library);
  return reports;
}
