import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { connectDatabase, type DatabaseHandle } from '../../src/db/connect';
import { migrateToLatest } from '../../src/db/migrate';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';

// Migration 0012 moves tag vectors written before it out of TOAST (docs/performance.md, "Vectors stored inline"). Rows
// written after it are inline from the start (search-storage.test.ts); this is a database upgraded from 0011.
let database: TestDatabase;
let handle: DatabaseHandle;
let upTo0011: string;
const MIGRATIONS = path.resolve(__dirname, '..', '..', 'db', 'migrations');

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await connectDatabase({ databaseUrl: database.url, dataDir: '' });
  upTo0011 = fs.mkdtempSync(path.join(os.tmpdir(), 'ard-migrations-'));
  for (const file of fs.readdirSync(MIGRATIONS).filter((f) => f.endsWith('.sql') && f < '0012')) {
    fs.copyFileSync(path.join(MIGRATIONS, file), path.join(upTo0011, file));
  }
});

afterAll(async () => {
  await handle.close();
  await database.drop();
  fs.rmSync(upTo0011, { recursive: true, force: true });
});

async function toastBytes(): Promise<number> {
  const rows = await sql<{
    bytes: string;
  }>`SELECT pg_relation_size(reltoastrelid) AS bytes FROM pg_class WHERE relname = 'tag_vectors'`.execute(handle.db);
  return Number(rows.rows[0].bytes);
}

/** Out-of-line chunks a current snapshot still sees: dead copies do not count, whether or not VACUUM could free them yet. */
async function liveToastChunks(): Promise<number> {
  const toast = await sql<{
    name: string;
  }>`SELECT reltoastrelid::regclass::text AS name FROM pg_class WHERE relname = 'tag_vectors'`.execute(handle.db);
  const [schema, table] = toast.rows[0].name.split('.');
  const rows = await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(`${schema}.${table}`)}`.execute(handle.db);
  return Number(rows.rows[0].n);
}

describe('migration 0012 on a database upgraded from 0011', () => {
  it('rewrites the existing tag vectors inline, values unchanged, and adds the live-tags index', async () => {
    expect(await migrateToLatest(handle.db, upTo0011)).not.toContain('0012_topic_label_reads.sql');
    const vector = (seed: number) => `[${Array.from({ length: 512 }, (_, i) => Math.sin(seed * 1000 + i).toFixed(6)).join(',')}]`;
    for (let i = 0; i < 40; i++) {
      await sql`INSERT INTO tag_vectors (model, tag, embedding) VALUES ('use-lite-512', ${`tag-${i}`}, ${vector(i)}::vector)`.execute(
        handle.db,
      );
    }
    const before = await sql<{
      tag: string;
      embedding: string;
    }>`SELECT tag, embedding::text AS embedding FROM tag_vectors ORDER BY tag`.execute(handle.db);
    expect(await toastBytes()).toBeGreaterThan(0); // 2,056-byte vectors went out of line before 0012

    expect(await liveToastChunks()).toBeGreaterThan(0);

    expect((await migrateToLatest(handle.db))[0]).toBe('0012_topic_label_reads.sql');
    // The old out-of-line copies are dead. VACUUM frees their pages only when no snapshot in the cluster can still see
    // them: a streaming replica's feedback or another database's long read can hold that back, so the live chunks count.
    expect(await liveToastChunks()).toBe(0);
    const after = await sql<{
      tag: string;
      embedding: string;
    }>`SELECT tag, embedding::text AS embedding FROM tag_vectors ORDER BY tag`.execute(handle.db);
    expect(after.rows).toEqual(before.rows);
    const index = await sql<{
      n: string;
    }>`SELECT count(*) AS n FROM pg_indexes WHERE indexname = 'facet_value_counts_live_tags_idx'`.execute(handle.db);
    expect(Number(index.rows[0].n)).toBe(1);
  });
});
