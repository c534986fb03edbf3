// Applies db/migrations/*.sql in name order, once each, recorded in schema_migrations.
// An advisory lock serialises concurrent starts of several registry processes on one database.
import fs from 'node:fs';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { vacuumSearchStatistics } from './maintenance';
import type { Database } from './schema';

export const MIGRATIONS_DIR = path.resolve(__dirname, '..', '..', '..', 'db', 'migrations');
const LOCK_KEY = 4_210_771; // arbitrary, constant: "ard-registry migrations"

export async function migrateToLatest(db: Kysely<Database>, dir = resolveMigrationsDir()): Promise<string[]> {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.sql')).sort();
  const applied = await db.connection().execute(async (conn) => {
    await sql`SELECT pg_advisory_lock(${LOCK_KEY})`.execute(conn);
    try {
      await sql`CREATE TABLE IF NOT EXISTS schema_migrations (
        name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`.execute(conn);
      const done = new Set((await conn.selectFrom('schema_migrations').select('name').execute()).map((r) => r.name));
      const applied: string[] = [];
      for (const file of files) {
        if (done.has(file)) continue;
        const text = fs.readFileSync(path.join(dir, file), 'utf8');
        await conn.transaction().execute(async (trx) => {
          // A migration backfills whole tables (0003, 0005): not a request, so the pool's
          // statement_timeout (connect.ts) must not cancel it on a large registry.
          await sql`SET LOCAL statement_timeout = 0`.execute(trx);
          await sql.raw(text).execute(trx);
          await trx.insertInto('schema_migrations').values({ name: file }).execute();
        });
        applied.push(file);
      }
      return applied;
    } finally {
      await sql`SELECT pg_advisory_unlock(${LOCK_KEY})`.execute(conn);
    }
  });
  // A migration that rebuilds a search table (0021 refills lexeme_postings) leaves its visibility map empty:
  // until the next write's vacuum, the retrieval's index-only scans would read the heap as well.
  if (applied.length > 0) await vacuumSearchStatistics(db);
  return applied;
}

/** db/migrations, whether running from src/ (tsx, jest) or from dist/src (compiled). */
function resolveMigrationsDir(): string {
  for (const candidate of [path.resolve(__dirname, '..', '..', 'db', 'migrations'), MIGRATIONS_DIR]) {
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error(`db/migrations not found next to ${__dirname}`);
}
