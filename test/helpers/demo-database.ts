// A copy of the demo-corpus template for one test file, connected through the production code path:
// registers the beforeAll/afterAll hooks that create, connect, close and drop it.
import type { Kysely } from 'kysely';
import { connectDatabase, type DatabaseHandle } from '../../src/db/connect';
import type { Database } from '../../src/db/schema';
import { createTestDatabase, type TestDatabase } from './test-database';

export interface DemoDatabase {
  /** The Kysely handle (available inside tests, after beforeAll). */
  readonly db: Kysely<Database>;
  readonly url: string;
}

export function useDemoCorpusDatabase(): DemoDatabase {
  let database: TestDatabase | undefined;
  let handle: DatabaseHandle | undefined;
  beforeAll(async () => {
    database = await createTestDatabase({ withDemoCorpus: true });
    handle = await connectDatabase({ databaseUrl: database.url, dataDir: '' });
  });
  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });
  return {
    get db() {
      if (!handle) throw new Error('useDemoCorpusDatabase: the database is ready only inside tests');
      return handle.db;
    },
    get url() {
      if (!database) throw new Error('useDemoCorpusDatabase: the database is ready only inside tests');
      return database.url;
    },
  };
}
