// Builds the template database with the demo corpus once per version of what it is built from
// (fixture-hash.ts): suites clone it in ~100 ms instead of re-embedding 430 entries each.
import { randomBytes } from 'node:crypto';
import { TEMPLATE_DB, adminQuery, databaseUrl } from './test-database';
import { ADMIN_URL } from './test-database';
import { loadConfig } from '../../src/config';
import { createContext } from '../../src/context';
import { loadDemoCorpusUnlessLoaded } from '../../src/ingest/load-files';

export default async function globalSetup(): Promise<void> {
  // jest.config.js found no PostgreSQL and left out every suite that needs one (test-requirements.js).
  if (process.env.TEST_POSTGRES_AVAILABLE === '0') return;
  try {
    await adminQuery('SELECT 1');
  } catch (error) {
    throw new Error(`tests need PostgreSQL with pgvector at ${ADMIN_URL} (set TEST_DATABASE_URL): ${(error as Error).message}`);
  }
  if (await exists(TEMPLATE_DB)) return;
  // Built under a temporary name and renamed when complete: a concurrent or interrupted run never
  // leaves a half-filled template behind.
  const building = `ard_test_build_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${building}`);
  try {
    const ctx = await createContext(loadConfig({ databaseUrl: databaseUrl(building), logLevel: 'warn', loadDemoCorpus: false }));
    try {
      await loadDemoCorpusUnlessLoaded({ db: ctx.db, embedder: ctx.embedder }, ctx.logger);
    } finally {
      await ctx.destroy();
    }
    if (!(await exists(TEMPLATE_DB))) await adminQuery(`ALTER DATABASE ${building} RENAME TO ${TEMPLATE_DB}`);
  } finally {
    await adminQuery(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
  }
}

async function exists(name: string): Promise<boolean> {
  return ((await adminQuery('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount ?? 0) > 0;
}
