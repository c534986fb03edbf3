// A new embedded folder starts as a copy of the prepared demo database (ard-registry prepare-demo, run by
// npm ci): migrated, the demo corpus indexed, searchable at once; the prepared folder itself never changes,
// and an existing folder is never replaced.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { countLiveEntries } from '../../src/catalog/entry-repository';
import { loadConfig, type RegistryConfig } from '../../src/config';
import { getSetting } from '../../src/db/settings';
import { DEMO_CORPUS_STATE_SETTING } from '../../src/ingest/load-files';
import { createLogger } from '../../src/logger';
import { prepareDemoDatabase, type PreparedDemoDatabase } from '../../src/prepare-demo';
import { startRegistry } from '../../src/server';
import { embeddedTestConfig } from '../helpers/embedded-config';

let prepared: PreparedDemoDatabase;
let dataDir: string;
let config: RegistryConfig;

/** Every file of a folder with its size and modification time. */
function fingerprint(folder: string): string[] {
  return (fs.readdirSync(folder, { recursive: true }) as string[])
    .map((name) => path.join(folder, name))
    .filter((file) => fs.statSync(file).isFile())
    .map((file) => `${path.relative(folder, file)} ${fs.statSync(file).size} ${fs.statSync(file).mtimeMs}`)
    .sort();
}

beforeAll(async () => {
  // Builds it when this installation has none yet (CI: npm ci has built it).
  prepared = await prepareDemoDatabase(loadConfig({ logLevel: 'silent' }), createLogger('silent'));
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ard-prepared-start-'));
  config = embeddedTestConfig(dataDir, { loadDemoCorpus: true });
}, 900_000);
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('the prepared demo database', () => {
  it('is a complete PostgreSQL folder without the lock or pid file of the process that built it', () => {
    expect(fs.existsSync(path.join(prepared.folder, 'PG_VERSION'))).toBe(true);
    expect(fs.existsSync(path.join(prepared.folder, 'postmaster.pid'))).toBe(false);
  });

  it('is what a new folder starts from: the corpus indexed and searchable, the prepared folder unchanged', async () => {
    const before = fingerprint(prepared.folder);
    const registry = await startRegistry(config);
    try {
      expect(registry.ctx.database.seeded).toBe(true);
      expect(await getSetting(registry.ctx.db, DEMO_CORPUS_STATE_SETTING)).toBe('loaded');
      expect(await countLiveEntries(registry.ctx.db)).toBeGreaterThan(500);
      expect((await fetch(`${registry.url}/readyz`)).status).toBe(200);
      const res = await fetch(`${registry.url}/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: { text: 'send a message to a slack channel' }, pageSize: 3 }),
      });
      const body = (await res.json()) as { results: Array<{ identifier: string }> };
      expect(res.status).toBe(200);
      expect(body.results.some((r) => /slack/i.test(r.identifier))).toBe(true);
      // A write to the new folder stays in it.
      await registry.ctx.db.deleteFrom('entries').where('identifier', '=', body.results[0].identifier).execute();
    } finally {
      await registry.stop();
    }
    expect(fingerprint(prepared.folder)).toEqual(before);
  }, 300_000);

  it('never replaces an existing folder', async () => {
    const registry = await startRegistry(config);
    try {
      expect(registry.ctx.database.seeded).toBe(false);
      const count = await countLiveEntries(registry.ctx.db);
      const copy = await startCopyCount(prepared.folder);
      expect(count).toBe(copy - 1); // the entry deleted above stays deleted
    } finally {
      await registry.stop();
    }
  }, 300_000);
});

/** Live entries of a fresh copy of the prepared folder. */
async function startCopyCount(folder: string): Promise<number> {
  const other = fs.mkdtempSync(path.join(os.tmpdir(), 'ard-prepared-copy-'));
  try {
    const registry = await startRegistry({ ...config, dataDir: other });
    try {
      expect(registry.ctx.database.seeded).toBe(true);
      expect(fs.existsSync(folder)).toBe(true);
      return await countLiveEntries(registry.ctx.db);
    } finally {
      await registry.stop();
    }
  } finally {
    fs.rmSync(other, { recursive: true, force: true });
  }
}
