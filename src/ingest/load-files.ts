// Ingests manifest files (the CLI's `ingest <file>`, the demo corpus) with a progress callback.
import path from 'node:path';
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

/** Entries between two progress lines while the demo corpus is embedded (~1 s apart here). */
export const DEMO_PROGRESS_EVERY = 100;

/**
 * Loads the demo corpus when the index is empty; returns the reports (none when it was not empty).
 * It takes ~30 s on a first start, so it says what it does: one line per manifest and every
 * DEMO_PROGRESS_EVERY entries embedded.
 */
export async function loadDemoCorpusIfEmpty(deps: IngestDeps, logger: Logger): Promise<IngestReport[]> {
  if ((await countLiveEntries(deps.db)) > 0) return [];
  const files = demoManifestPaths();
  logger.info({ manifests: files.length }, 'empty index: loading the demo corpus (~20 s on first start; ~1 min when the model runs on TF.js)');
  const reports: IngestReport[] = [];
  const started = Date.now();
  for (const [i, file] of files.entries()) {
    const fileStarted = Date.now();
    const manifest = `${i + 1}/${files.length} ${path.basename(file)}`;
    const report = await ingestFile(deps, file, progressLog(logger, manifest));
    logger.info(
      { manifest, added: report.added, updated: report.updated, rejected: report.rejected.length, ms: Date.now() - fileStarted },
      'demo corpus manifest loaded',
    );
    reports.push(report);
  }
  // The Alexandria library is part of the demo corpus: a schema v1 file mapped to catalog entries.
  const libraryStarted = Date.now();
  const library = await ingestAlexandriaLibrary(deps, ALEXANDRIA_LIBRARY_FILE, progressLog(logger, path.basename(ALEXANDRIA_LIBRARY_FILE)));
  logger.info(
    { file: ALEXANDRIA_LIBRARY_FILE, added: library.added, updated: library.updated, rejected: library.rejected.length, ms: Date.now() - libraryStarted },
    'demo corpus: Alexandria library loaded',
  );
  reports.push(library);
  const added = reports.reduce((n, r) => n + r.added, 0);
  logger.info({ added, ms: Date.now() - started }, 'demo corpus loaded');
  return reports;
}

/** An onProgress callback that logs every DEMO_PROGRESS_EVERY entries embedded, and the last one. */
function progressLog(logger: Logger, manifest: string): (done: number, total: number) => void {
  let logged = 0;
  return (done, total) => {
    if (done - logged >= DEMO_PROGRESS_EVERY || (done === total && logged > 0)) {
      logged = done;
      logger.info({ manifest, embedded: done, of: total }, 'demo corpus: embedding entries');
    }
  };
}
