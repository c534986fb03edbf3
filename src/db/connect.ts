// Chooses the database: PostgreSQL + pgvector when DATABASE_URL is set, else the embedded PGlite
// (with its pgvector and pg_trgm extensions) in DATA_DIR. Both go through Kysely's PostgresDialect
// over a pg.Pool, so the SQL is the same in production and in the default. The embedded folder has
// one owner: its lock (data-dir-lock.ts) is taken before PGlite opens it and released after it closes.
import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Logger } from '../logger';
import { advisoryLockRunner, inProcessRunner, type ExclusiveRunner } from './exclusive-run';
import { acquireDataDirLock, LOCK_FILE_NAME, type DataDirLock } from './data-dir-lock';
import { PreparingClient } from './prepared-statements';
import { createReadPool, replicaName, type ReadPool } from './read-pool';
import type { Database } from './schema';

export interface DatabaseHandle {
  /** The primary: every write, and reads that must see them (ingestion, settings, migrations). */
  db: Kysely<Database>;
  /** Queries (search, explore, list, get): a healthy replica when replicas are configured, else `db` (read-pool.ts). */
  readDb: Kysely<Database>;
  /** The replicas' health and what served the reads; null without replicas. */
  readPool: ReadPool | null;
  kind: 'postgres' | 'embedded';
  /** A new embedded folder that started as a copy of `ConnectOptions.seedFolder`. */
  seeded: boolean;
  /** The embedded folder's lock (null on PostgreSQL): who owns it, and how local commands reach it. */
  lock: DataDirLock | null;
  /** Runs a background job in one process of those sharing the database at a time (exclusive-run.ts). */
  exclusive: ExclusiveRunner;
  /** Closes the pools (and the embedded database). */
  close(): Promise<void>;
}

export interface ConnectOptions {
  databaseUrl: string | null;
  /** Streaming replicas of `databaseUrl`, opened read-only. */
  databaseReplicaUrls?: string[];
  /** A replica further behind than this serves no reads until it catches up (default 10). */
  replicaMaxLagSeconds?: number;
  /** How often the replicas are checked (default 2000). */
  replicaCheckMs?: number;
  logger?: Logger;
  dataDir: string;
  poolSize?: number;
  /** Fail a query that has not started after this long waiting for a connection. */
  connectionTimeoutMs?: number;
  statementTimeoutMs?: number;
  /** Named prepared statements for the search path (default true; off behind poolers that cannot keep them). */
  preparedStatements?: boolean;
  /** Written into the embedded folder's lock: what this process runs, and a server's local address and token. */
  owner?: { command: string; url?: string; adminToken?: string };
  /**
   * A new embedded folder starts as a copy of the closed PGlite folder this names instead of an empty database
   * (the prepared demo database, src/ingest/prepared-demo-database.ts); null = none. Asked only when the folder
   * is new (finding it hashes the installation); an existing folder is never touched.
   */
  seedFolder?: () => string | null;
}

/**
 * Longest wait for PGlite to open an existing folder. Opening takes 1-5 s on an idle 2-core machine and up to
 * ~30 s when it is shared by a dozen busy processes; a damaged folder has been seen to hang instead of
 * failing, which a supervisor never restarts. A new folder (initdb, slower) is not bounded.
 */
export const EMBEDDED_OPEN_TIMEOUT_MS = 60_000;

/** The embedded folder exists but PGlite cannot open it: the message says how to rebuild it. */
export class EmbeddedDatabaseBrokenError extends Error {
  override name = 'EmbeddedDatabaseBrokenError';
  constructor(
    readonly dataDir: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      `the embedded database in ${dataDir} cannot be opened (${reason}). Keep the folder aside and rebuild it: ` +
        `\`mv ${dataDir} ${dataDir}.broken && ard-registry serve\` starts on a new folder with the demo corpus, then ` +
        `\`ard-registry ingest <file|domain>...\` again for the manifests and sources that were loaded into it`,
      options,
    );
  }
}

export async function connectDatabase(options: ConnectOptions): Promise<DatabaseHandle> {
  if (!options.databaseUrl)
    return connectEmbedded(options.dataDir, options.preparedStatements !== false, options.owner ?? { command: 'embedded database' }, options.seedFolder ?? (() => null));
  const primary = postgresPool(options.databaseUrl, options);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: primary }) });
  const replicaUrls = options.databaseReplicaUrls ?? [];
  const readPool =
    replicaUrls.length === 0
      ? null
      : await createReadPool({
          primary,
          replicas: replicaUrls.map((url) => ({ name: replicaName(url), pool: postgresPool(url, options, { readOnly: true }) })),
          maxLagSeconds: options.replicaMaxLagSeconds ?? 10,
          checkMs: options.replicaCheckMs ?? 2000,
          logger: options.logger,
        });
  // The read pool ends with readDb (when it was used) or in close(); the primary's pool ends with `db`.
  const readDb = readPool ? new Kysely<Database>({ dialect: new PostgresDialect({ pool: readPool }) }) : null;
  return {
    db,
    readDb: readDb ?? db,
    readPool,
    kind: 'postgres',
    seeded: false,
    lock: null,
    exclusive: advisoryLockRunner(db),
    close: async () => {
      await readDb?.destroy();
      await readPool?.end();
      await db.destroy();
    },
  };
}

function postgresPool(url: string, options: ConnectOptions, mode: { readOnly?: boolean } = {}): pg.Pool {
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
  return pool;
}

async function connectEmbedded(
  dataDir: string,
  preparedStatements: boolean,
  owner: NonNullable<ConnectOptions['owner']>,
  seedFolder: () => string | null,
): Promise<DatabaseHandle> {
  const lock = acquireDataDirLock(dataDir, owner);
  try {
    const { pglite, pgConfig, seeded } = await openPglite(dataDir, seedFolder);
    // PGlite is single-connection: one pooled client, queries queue behind each other.
    const pool = new pg.Pool({ ...pgConfig, Client: preparedStatements ? PreparingClient : pg.Client, max: 1 } as pg.PoolConfig);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return {
      db,
      readDb: db,
      readPool: null,
      kind: 'embedded',
      seeded,
      lock,
      exclusive: inProcessRunner,
      close: async () => {
        try {
          await db.destroy();
          await pglite.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/**
 * Creates the database files of a new folder beside it and moves them in only when complete, PG_VERSION
 * last: a process killed during initdb (tens of seconds on a busy machine) leaves a folder that is
 * initialized again at the next start, never a half-written one that cannot open.
 */
async function initializeFolder(dataDir: string, create: (folder: string) => Promise<{ close(): Promise<void> }>): Promise<void> {
  const staging = `${dataDir.replace(/[\\/]+$/, '')}.initializing-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  const pglite = await create(staging);
  await pglite.close();
  // Leftovers of an interrupted move: everything but the lock file goes before the complete set comes in.
  for (const name of fs.readdirSync(dataDir)) if (name !== LOCK_FILE_NAME) fs.rmSync(path.join(dataDir, name), { recursive: true, force: true });
  const names = fs.readdirSync(staging).sort((a, b) => Number(a === 'PG_VERSION') - Number(b === 'PG_VERSION'));
  for (const name of names) fs.renameSync(path.join(staging, name), path.join(dataDir, name));
  fs.rmSync(staging, { recursive: true, force: true });
}

/** Files of an embedded folder that belong to the process that had it open: never part of a copy. */
const PROCESS_FILES = new Set([LOCK_FILE_NAME, 'postmaster.pid']);

/** Copies a closed folder's database files (not its lock or pid file) into `folder`. */
function copyFolder(from: string, folder: string): Promise<{ close(): Promise<void> }> {
  fs.cpSync(from, folder, { recursive: true, filter: (source) => !PROCESS_FILES.has(path.basename(source)) || path.dirname(source) !== from });
  return Promise.resolve({ close: async () => undefined });
}

async function openPglite(dataDir: string, findSeedFolder: () => string | null) {
  const { PGlite } = await import('@electric-sql/pglite');
  const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
  const { vector } = await import('@electric-sql/pglite-pgvector');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const existed = fs.existsSync(path.join(dataDir, 'PG_VERSION'));
  const seedFolder = existed ? null : findSeedFolder();
  const seeded = seedFolder !== null;
  if (!existed)
    await initializeFolder(dataDir, (folder) =>
      seedFolder ? copyFolder(seedFolder, folder) : PGlite.create(folder, { extensions: { vector, pg_trgm } }),
    );
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    if (!existed) return;
    timer = setTimeout(
      () => reject(new EmbeddedDatabaseBrokenError(dataDir, `it did not open within ${EMBEDDED_OPEN_TIMEOUT_MS / 1000} s`)),
      EMBEDDED_OPEN_TIMEOUT_MS,
    );
    timer.unref();
  });
  const opening = PGlite.create(dataDir, { extensions: { vector, pg_trgm } });
  try {
    const pglite = await Promise.race([opening, timeout]);
    // A folder PGlite half-opens answers its first query with an abort: check before anyone relies on it.
    await Promise.race([pglite.query('SELECT 1'), timeout]);
    return { pglite, pgConfig: createPgConfig(pglite), seeded };
  } catch (error) {
    opening.then((p) => p.close()).catch(() => undefined);
    if (error instanceof EmbeddedDatabaseBrokenError) throw error;
    if (!existed) throw error;
    throw new EmbeddedDatabaseBrokenError(dataDir, (error as Error).message || String(error), { cause: error });
  } finally {
    clearTimeout(timer);
  }
}
