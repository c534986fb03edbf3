// Builds the template database with the demo corpus once, and again only when what it was built
// from (migrations, corpus, the code that indexes) changes: suites clone it in ~100 ms instead of
// re-embedding 430 entries each.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { ADMIN_URL, TEMPLATE_DB, adminQuery, databaseUrl } from './test-database';

const ROOT = path.resolve(__dirname, '..', '..');
const INPUTS = ['db/migrations', 'data/corpus', 'src/catalog', 'src/embedding', 'src/ingest'];

function inputsHash(): string {
  const hash = createHash('sha256');
  const walk = (p: string) => {
    const full = path.join(ROOT, p);
    if (!fs.existsSync(full)) return;
    if (fs.statSync(full).isDirectory()) for (const child of fs.readdirSync(full).sort()) walk(path.join(p, child));
    else hash.update(p).update(fs.readFileSync(full));
  };
  INPUTS.forEach(walk);
  return hash.digest('hex');
}

async function templateHash(): Promise<string | null> {
  const exists = await adminQuery('SELECT 1 FROM pg_database WHERE datname = $1', [TEMPLATE_DB]);
  if (exists.rowCount === 0) return null;
  const client = new pg.Client({ connectionString: databaseUrl(TEMPLATE_DB) });
  await client.connect();
  try {
    const row = await client.query("SELECT value FROM registry_settings WHERE key = 'test_fixture_hash'");
    return row.rows[0]?.value ?? null;
  } catch {
    return null;
  } finally {
    await client.end();
  }
}

export default async function globalSetup(): Promise<void> {
  try {
    await adminQuery('SELECT 1');
  } catch (error) {
    throw new Error(`tests need PostgreSQL with pgvector at ${ADMIN_URL} (set TEST_DATABASE_URL): ${(error as Error).message}`);
  }
  const wanted = inputsHash();
  if ((await templateHash()) === wanted) return;
  await adminQuery(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE ${TEMPLATE_DB}`);
  // Imported here so a suite that never needs the template does not pay for the model.
  const { createContext } = await import('../../src/context');
  const { loadConfig } = await import('../../src/config');
  const { loadDemoCorpusIfEmpty } = await import('../../src/ingest/load-files');
  const ctx = await createContext(loadConfig({ databaseUrl: databaseUrl(TEMPLATE_DB), logLevel: 'warn', loadDemoCorpus: false }));
  try {
    await loadDemoCorpusIfEmpty({ db: ctx.db, embedder: ctx.embedder }, ctx.logger);
    await ctx.db.insertInto('registry_settings').values({ key: 'test_fixture_hash', value: wanted }).execute();
  } finally {
    await ctx.destroy();
  }
}
