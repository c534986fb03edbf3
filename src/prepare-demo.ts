// Builds the prepared demo database (src/ingest/prepared-demo-database.ts): a new embedded folder with every
// migration applied, the demo corpus loaded and the start's index jobs finished, closed cleanly and kept under
// .cache/demo-database/<key>/. `ard-registry prepare-demo` runs it; `npm ci` runs that through `prepare`.
import fs from 'node:fs';
import path from 'node:path';
import { countLiveEntries } from './catalog/entry-repository';
import type { RegistryConfig } from './config';
import { createContext, type AppContext } from './context';
import { readDataDirOwner } from './db/data-dir-lock';
import { loadDemoCorpusUnlessLoaded } from './ingest/load-files';
import { findPreparedDemoFolder, PACKAGE_ROOT, PREPARED_DEMO_DIR, preparedDemoKey } from './ingest/prepared-demo-database';
import type { Logger } from './logger';

export interface PreparedDemoDatabase {
  folder: string;
  /** False when a folder for this installation was already there. */
  built: boolean;
  /** Live entries in a folder built now; null when it was already there. */
  entries: number | null;
}

export async function prepareDemoDatabase(
  config: RegistryConfig,
  logger: Logger,
  where: { dir?: string; root?: string } = {},
): Promise<PreparedDemoDatabase> {
  const dir = where.dir ?? PREPARED_DEMO_DIR;
  const root = where.root ?? PACKAGE_ROOT;
  const existing = findPreparedDemoFolder(dir, root);
  if (existing) return { folder: existing, built: false, entries: null };
  const folder = path.join(dir, preparedDemoKey(root));
  const staging = path.join(dir, `building-${process.pid}`);
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  try {
    const entries = await withContext(config, staging, logger, async (ctx) => {
      await loadDemoCorpusUnlessLoaded({ db: ctx.db, embedder: ctx.embedder, glossary: ctx.glossary }, logger);
      await ctx.indexUpkeep.done;
      return countLiveEntries(ctx.db);
    });
    removeStaleFolders(dir, [path.basename(folder), path.basename(staging)]);
    try {
      fs.renameSync(staging, folder);
    } catch (error) {
      // Another build of the same inputs finished first: its folder is as good as this one.
      if (!fs.existsSync(path.join(folder, 'PG_VERSION'))) throw error;
    }
    return { folder, built: true, entries };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

async function withContext<T>(config: RegistryConfig, dataDir: string, logger: Logger, work: (ctx: AppContext) => Promise<T>): Promise<T> {
  const ctx = await createContext(
    { ...config, databaseUrl: null, databaseReplicaUrls: [], dataDir, loadDemoCorpus: true, preparedDemoDatabase: false, trustPollMs: 0 },
    { logger, owner: { command: 'prepare-demo' } },
  );
  try {
    return await work(ctx);
  } finally {
    await ctx.destroy();
  }
}

/**
 * Folders of other inputs, and staging folders of builds whose process is gone; a build still running holds
 * its staging folder's lock (src/db/data-dir-lock.ts) and keeps it. The staging folder's lock and pid file stay in the prepared folder: copies skip them
 * (src/db/connect.ts).
 */
function removeStaleFolders(dir: string, keep: string[]): void {
  for (const name of fs.readdirSync(dir)) {
    if (keep.includes(name) || (name.startsWith('building-') && readDataDirOwner(path.join(dir, name)) !== null)) continue;
    fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  }
}
