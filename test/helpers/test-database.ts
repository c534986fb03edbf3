// Test databases on the real PostgreSQL + pgvector: each suite gets its own database, cloned from
// a template that global-setup fills once with the demo corpus (so suites do not re-embed it).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { TEMPLATE_DB } from './fixture-hash';

export { TEMPLATE_DB };

export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function adminQuery(text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A new database: empty (migrated by whoever connects first) or a copy of the demo-corpus template. */
export async function createTestDatabase(options: { withDemoCorpus?: boolean } = {}): Promise<TestDatabase> {
  const name = `ard_test_${randomBytes(6).toString('hex')}`;
  const template = options.withDemoCorpus ? ` TEMPLATE ${TEMPLATE_DB}` : '';
  await adminQuery(`CREATE DATABASE ${name}${template}`);
  return {
    name,
    url: databaseUrl(name),
    drop: async () => {
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** A transaction on a connection of its own that locks entries' rows as a concurrent write would, until it ends. */
export interface EntryRowLocks {
  /** Locks the row of `identifier` (FOR UPDATE), waiting for it when another transaction holds it. */
  hold(identifier: string): Promise<void>;
  /** Ends the transaction (rolled back) and closes the connection; safe to call more than once. */
  end(): Promise<void>;
}

export async function entryRowLocks(url: string): Promise<EntryRowLocks> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  let ended = false;
  return {
    async hold(identifier) {
      await client.query('SELECT 1 FROM entries WHERE identifier = $1 FOR UPDATE', [identifier]);
    },
    async end() {
      if (ended) return;
      ended = true;
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end();
    },
  };
}
