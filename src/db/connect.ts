// Chooses the database: PostgreSQL + pgvector when DATABASE_URL is set, else the embedded PGlite
// (with its pgvector and pg_trgm extensions) in DATA_DIR. Both go through Kysely's PostgresDialect
// over a pg.Pool, so the SQL is the same in production and in the default.
import fs from 'node:fs';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { PreparingClient } from './prepared-statements';
import type { Database } from './schema';

export interface DatabaseHandle {
  /** The primary: every write, and reads that must see them (ingestion, settings, migrations). */
  db: Kysely<Database>;
  /** Queries (search, explore, list, get): the read replica when one is configured, else `db`. */
  readDb: Kysely<Database>;
  kind: 'postgres' | 'embedded';
  /** Closes the pools (and the embedded database). */
  close(): Promise<void>;
}

export interface ConnectOptions {
  databaseUrl: string | null;
  /** A streaming replica of `databaseUrl`, opened read-only. */
  databaseReplicaUrl?: string | null;
  dataDir: string;
  poolSize?: number;
  /** Fail a query that has not started after this long waiting for a connection. */
  connectionTimeoutMs?: number;
  statementTimeoutMs?: number;
  /** Named prepared statements for the search path (default true; off behind poolers that cannot keep them). */
  preparedStatements?: boolean;
}

export async function connectDatabase(options: ConnectOptions): Promise<DatabaseHandle> {
  if (!options.databaseUrl) return connectEmbedded(options.dataDir, options.preparedStatements !== false);
  const db = postgresPool(options.databaseUrl, options);
  const replica = options.databaseReplicaUrl ? postgresPool(options.databaseReplicaUrl, options, { readOnly: true }) : null;
  return {
    db,
    readDb: replica ?? db,
    kind: 'postgres',
    close: async () => {
      await Promise.all([db.destroy(), replica?.destroy()]);
    },
  };
}

function postgresPool(url: string, options: ConnectOptions, mode: { readOnly?: boolean } = {}): Kysely<Database> {
  const pool = new pg.Pool({
    Client: options.preparedStatements === false ? pg.Client : PreparingClient,
    connectionString: url,
    // A query sent to the replica by mistake fails loudly instead of writing to the wrong server.
    ...(mode.readOnly ? { options: '-c default_transaction_read_only=on' } : {}),
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 3000,
    statement_timeout: options.statementTimeoutMs ?? 15000,
    // Keeps an idle pool from pinning a dead server's sockets after a database restart.
    idleTimeoutMillis: 30000,
  });
  // An idle client losing its connection (database restart) must not crash the process; nor may a
  // checked-out client between two queries, which pg reports as an 'error' event on the client
  // itself (found by test/integration/database-faults.test.ts: an unhandled 'error' killed jest).
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

async function connectEmbedded(dataDir: string, preparedStatements: boolean): Promise<DatabaseHandle> {
  fs.mkdirSync(dataDir, { recursive: true });
  const { PGlite } = await import('@electric-sql/pglite');
  const { vector } = await import('@electric-sql/pglite-pgvector');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
  const pglite = await PGlite.create(dataDir, { extensions: { vector, pg_trgm } });
  // PGlite is single-connection: one pooled client, queries queue behind each other.
  const pool = new pg.Pool({ ...createPgConfig(pglite), Client: preparedStatements ? PreparingClient : pg.Client, max: 1 } as pg.PoolConfig);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    readDb: db,
    kind: 'embedded',
    close: async () => {
      await db.destroy();
      await pglite.close();
    },
  };
}
