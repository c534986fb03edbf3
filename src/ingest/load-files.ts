// Ingests manifest files (the CLI's `ingest <file>`, the demo corpus) with a progress callback.
import path from 'node:path';
import type { IngestDeps, IngestReport } from './ingest-manifest';
import { ingestManifest } from './ingest-manifest';
import { readManifestFile } from './manifest-source';
import { countLiveEntries } from '../catalog/entry-repository';
import { getSetting, setSetting } from '../db/settings';
import { readPrebuiltVectors, withPrebuiltVectors } from '../embedding/prebuilt-vectors';
import { loadAlexandriaLibrary } from '../alexandria';
import { DEMO_VECTORS_FILE, demoManifestPaths } from './demo-corpus';
import { ALEXANDRIA_LIBRARY_FILE, alexandriaManifest } from './alexandria-corpus';
import type { Logger } from '../logger';

export async function ingestFile(
  deps: IngestDeps,
  file: string,
  onProgress?: (done: number, total: number) => void,
): Promise<IngestReport> {
  const manifest = await readManifestFile(file);
  return ingestManifest(deps, manifest, { origin: `file:${file}`, onProgress });
}

/** Entries between two progress lines while the demo corpus is embedded. */
export const DEMO_PROGRESS_EVERY = 100;

/** registry_settings key: 'loading' while the demo corpus is being loaded, 'loaded' once it is complete. */
export const DEMO_CORPUS_STATE_SETTING = 'demo_corpus_state';

/**
 * Loads the demo corpus when the index is empty, or when an earlier load did not finish (a crash or a
 * kill -9 between two manifests: each manifest is one transaction). Returns the reports (none when it
 * was already there). Vectors come from the prebuilt file shipped beside the corpus where their text is
 * unchanged (prebuilt-vectors.ts), so a first start embeds little; `onProgress(indexed, of)` counts entries.
 */
export async function loadDemoCorpusUnlessLoaded(
  deps: IngestDeps,
  logger: Logger,
  onProgress?: (indexed: number, of: number) => void,
): Promise<IngestReport[]> {
  const state = await getSetting(deps.db, DEMO_CORPUS_STATE_SETTING);
  if (state !== 'loading' && (await countLiveEntries(deps.db)) > 0) return [];
  await setSetting(deps.db, DEMO_CORPUS_STATE_SETTING, 'loading');
  const started = Date.now();
  const prebuilt = readPrebuiltVectors(DEMO_VECTORS_FILE, deps.embedder);
  const embedder = withPrebuiltVectors(deps.embedder, prebuilt);
  const withPrebuilt: IngestDeps = { ...deps, embedder };
  const files = demoManifestPaths();
  const manifests = await Promise.all(files.map((file) => readManifestFile(file)));
  const library = await loadAlexandriaLibrary(ALEXANDRIA_LIBRARY_FILE);
  const of = manifests.reduce((n: number, m) => n + entryCount(m), 0) + library.records.length;
  logger.info(
    { manifests: files.length + 1, entries: of, prebuiltVectors: prebuilt?.size ?? 0 },
    state === 'loading' ? 'resuming the demo corpus load an earlier start did not finish' : 'empty index: loading the demo corpus',
  );
  const reports: IngestReport[] = [];
  let indexed = 0;
  onProgress?.(0, of);
  const load = async (name: string, run: (progress: (done: number, total: number) => void) => Promise<IngestReport>) => {
    const fileStarted = Date.now();
    const base = indexed;
    const log = progressLog(logger, name);
    const report = await run((done, total) => {
      log(done, total);
      onProgress?.(base + done, of);
    });
    indexed = base + report.total;
    onProgress?.(indexed, of);
    logger.info(
      { manifest: name, added: report.added, updated: report.updated, rejected: report.rejected.length, ms: Date.now() - fileStarted },
      'demo corpus manifest loaded',
    );
    reports.push(report);
  };
  for (const [i, file] of files.entries()) {
    await load(`${i + 1}/${files.length + 1} ${path.basename(file)}`, (progress) =>
      ingestManifest(withPrebuilt, manifests[i], { origin: `file:${file}`, onProgress: progress }),
    );
  }
  // The Alexandria library is part of the demo corpus: a schema v1 file mapped to catalog entries.
  await load(`${files.length + 1}/${files.length + 1} ${path.basename(ALEXANDRIA_LIBRARY_FILE)}`, (progress) =>
    ingestManifest(withPrebuilt, alexandriaManifest(library), { origin: `file:${ALEXANDRIA_LIBRARY_FILE}`, onProgress: progress }),
  );
  await setSetting(deps.db, DEMO_CORPUS_STATE_SETTING, 'loaded');
  const added = reports.reduce((n, r) => n + r.added, 0);
  logger.info({ added, embedded: embedder.misses, fromPrebuiltFile: embedder.hits, ms: Date.now() - started }, 'demo corpus loaded');
  return reports;
}

function entryCount(manifest: unknown): number {
  const entries = (manifest as { entries?: unknown } | null)?.entries;
  return Array.isArray(entries) ? entries.length : 0;
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
