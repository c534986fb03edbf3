// A database for one test file, connected through the production code path: a copy of the demo-corpus template,
// or an empty one migrated to the latest schema. Registers the beforeAll/afterAll hooks that create, connect
// (and migrate), close and drop it.
import type { Kysely } from 'kysely';
import { connectDatabase, type DatabaseHandle } from '../../src/db/connect';
import { migrateToLatest } from '../../src/db/migrate';
import type { Database } from '../../src/db/schema';
import { createTestDatabase, type TestDatabase } from './test-database';

export interface SuiteDatabase {
  /** The Kysely handle (available inside tests, after beforeAll). */
  readonly db: Kysely<Database>;
  readonly url: string;
}

/** A copy of the demo-corpus template. */
export function useDemoCorpusDatabase(): SuiteDatabase {
  return useTestDatabase('useDemoCorpusDatabase', true);
}

/** A new empty database, migrated: for a test that writes the entries it reads. */
export function useMigratedTestDatabase(): SuiteDatabase {
  return useTestDatabase('useMigratedTestDatabase', false);
}

function useTestDatabase(name: string, withDemoCorpus: boolean): SuiteDatabase {
  let database: TestDatabase | undefined;
  let handle: DatabaseHandle | undefined;
  beforeAll(async () => {
    database = await createTestDatabase({ withDemoCorpus });
    handle = await connectDatabase({ databaseUrl: database.url, dataDir: '' });
    if (!withDemoCorpus) await migrateToLatest(handle.db);
  });
  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });
  return {
    get db() {
      if (!handle) throw new Error(`${name}: the database is ready only inside tests`);
      return handle.db;
    },
    get url() {
      if (!database) throw new Error(`${name}: the database is ready only inside tests`);
      return database.url;
    },
  };
}
