// Where queries run when streaming replicas are configured (DATABASE_REPLICA_URL): a pool, in the shape Kysely's
// PostgresDialect takes, that hands out a connection of a healthy replica (round-robin) and the primary's when none
// is. A replica is healthy while it answers and its replay is at most `maxLagSeconds` behind the primary, checked
// every `checkMs`. A connection lost in the middle of a read (the replica stopped, or restarted) moves to the
// primary and runs the statement again there, with the read transaction it was part of: the caller sees no error.
import pg from 'pg';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type { Logger } from '../logger';
import { startPeriodicTask, type PeriodicTask } from '../periodic-task';

export interface ReplicaHealth {
  /** host:port of the replica (its URL without credentials or database). */
  name: string;
  up: boolean;
  /** Seconds the replica's replay is behind the primary at the last check (0 caught up); null: not measured. */
  lagSeconds: number | null;
  /** Why it is out of reads; null while it is up. */
  problem: string | null;
}

export interface ReadPoolSnapshot {
  replicas: ReplicaHealth[];
  /** Connections handed out since start, by pool: 'primary' or a replica's name. */
  served: Record<string, number>;
  /** Reads moved to the primary after their replica connection was lost or cancelled since start. */
  retriedOnPrimary: number;
}

export interface ReadPool extends PostgresPool {
  snapshot(): ReadPoolSnapshot;
  /** Checks every replica now (the timer does this every `checkMs`). */
  checkReplicas(): Promise<void>;
}

interface Replica {
  health: ReplicaHealth;
  pool: pg.Pool;
}

export interface ReadPoolOptions {
  primary: pg.Pool;
  /** Each replica's pool, named by host:port; ended by the read pool's `end()` (the primary's is not). */
  replicas: Array<{ name: string; pool: pg.Pool }>;
  maxLagSeconds: number;
  checkMs: number;
  logger?: Logger;
}

/** A replica URL's name in logs and metrics: host and port, never the credentials. */
export function replicaName(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}`;
}

/**
 * Builds the read pool and checks the replicas once before it is used, so the first reads already know which
 * replicas answer.
 */
export async function createReadPool(options: ReadPoolOptions): Promise<ReadPool> {
  const replicas: Replica[] = options.replicas.map(({ name, pool }) => ({
    pool,
    health: { name, up: false, lagSeconds: null, problem: 'not checked yet' },
  }));
  const served: Record<string, number> = { primary: 0 };
  for (const r of replicas) served[r.health.name] = 0;
  let retriedOnPrimary = 0;
  let next = 0;
  let ended: Promise<void> | null = null;

  const setHealth = (replica: Replica, health: Omit<ReplicaHealth, 'name'>) => {
    if (health.up !== replica.health.up)
      options.logger?.[health.up ? 'info' : 'warn'](
        { replica: replica.health.name, lagSeconds: health.lagSeconds, problem: health.problem },
        health.up ? 'read replica back in service' : 'read replica out of service: reads go to the primary',
      );
    replica.health = { name: replica.health.name, ...health };
  };
  const takeOut = (replica: Replica, error: unknown) =>
    setHealth(replica, { up: false, lagSeconds: replica.health.lagSeconds, problem: `unreachable: ${describe(error)}` });

  const check = async () => {
    // The primary's position first: a replica that has replayed at least this far was caught up when asked.
    const primaryLsn = await options.primary
      .query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')
      .then((r) => parseLsn(r.rows[0]?.lsn ?? null))
      .catch(() => null);
    await Promise.all(
      replicas.map(async (replica) => {
        try {
          const { rows } = await replica.pool.query<ReplayRow>(REPLAY_POSITION_SQL);
          const lag = lagSeconds(rows[0], primaryLsn);
          const behind = lag !== null && lag > options.maxLagSeconds;
          setHealth(replica, { up: !behind, lagSeconds: lag, problem: behind ? `replay ${lag.toFixed(1)} s behind the primary` : null });
        } catch (error) {
          takeOut(replica, error);
        }
      }),
    );
  };
  const upkeep: PeriodicTask<void> = startPeriodicTask(() => check(), options.checkMs, {
    logger: options.logger,
    done: () => undefined,
    failed: 'read replica check failed',
  });
  await upkeep.tick();

  const onPrimary = async (): Promise<pg.PoolClient> => {
    const client = await options.primary.connect();
    served.primary++;
    return client;
  };

  return {
    async connect() {
      const healthy = replicas.filter((r) => r.health.up);
      for (let i = 0; i < healthy.length; i++) {
        const replica = healthy[(next + i) % healthy.length];
        try {
          const client = await replica.pool.connect();
          next = (next + i + 1) % healthy.length;
          served[replica.health.name]++;
          return new FailoverClient(client, replica, {
            takeOut,
            primary: async () => {
              retriedOnPrimary++;
              return onPrimary();
            },
          });
        } catch (error) {
          takeOut(replica, error);
        }
      }
      return onPrimary();
    },
    end() {
      // Once, whether Kysely's destroy or the handle's close comes first.
      ended ??= upkeep.stop().then(async () => {
        await Promise.all(replicas.map((r) => r.pool.end()));
      });
      return ended;
    },
    snapshot: () => ({ replicas: replicas.map((r) => ({ ...r.health })), served: { ...served }, retriedOnPrimary }),
    checkReplicas: async () => {
      await upkeep.tick();
    },
  };
}

interface ReplayRow {
  standby: boolean;
  replayed: string | null;
  since_replay: number | null;
}

// pg_last_xact_replay_timestamp() alone cannot tell "behind" from "nothing written lately": on an idle primary it
// goes stale while the replica is fully caught up. The replayed position against the primary's tells them apart.
const REPLAY_POSITION_SQL = `SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed,
  EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp())::float8 AS since_replay`;

/**
 * Seconds the replica is behind: 0 when it has replayed the primary's position of this check (or is not a standby
 * at all); else the age of its last replayed transaction, the time its data has not moved while the primary's has.
 * Null when the primary's position is unknown (the primary is down: the replica keeps serving what it has).
 */
function lagSeconds(row: ReplayRow | undefined, primaryLsn: bigint | null): number | null {
  if (!row || !row.standby) return 0;
  if (primaryLsn === null) return null;
  const replayed = parseLsn(row.replayed);
  if (replayed !== null && replayed >= primaryLsn) return 0;
  return Math.max(0, row.since_replay ?? Number.POSITIVE_INFINITY);
}

/** A pg_lsn ('16/B374D848': two hexadecimal halves) as one number. */
export function parseLsn(text: string | null): bigint | null {
  const match = text ? /^([0-9A-F]+)\/([0-9A-F]+)$/i.exec(text) : null;
  return match ? (BigInt(`0x${match[1]}`) << 32n) + BigInt(`0x${match[2]}`) : null;
}

/**
 * Whether a failed statement on a replica can run again on the primary: the connection is gone (a socket error,
 * SQLSTATE class 08, the server shutting down or starting) or the replica cancelled it for a conflict with the
 * WAL it replays (40001). `lost` also takes the replica out until a check finds it back.
 */
export function replicaFailure(error: unknown): 'lost' | 'conflict' | null {
  if (typeof error !== 'object' || error === null) return null;
  const { code, name, severity } = error as { code?: unknown; name?: unknown; severity?: unknown };
  // The server's errors (pg.DatabaseError) carry a severity and a SQLSTATE.
  if (error instanceof pg.DatabaseError || (typeof severity === 'string' && typeof code === 'string')) {
    const sqlState = typeof code === 'string' ? code : '';
    if (sqlState.startsWith('08') || ['57P01', '57P02', '57P03'].includes(sqlState)) return 'lost';
    return sqlState === '40001' ? 'conflict' : null;
  }
  // What node-postgres and the socket throw for a dead connection ('Connection terminated unexpectedly', ECONNRESET,
  // a client no longer queryable); programming errors stay errors. No `instanceof Error`: a socket's error can come
  // from another realm (found under jest, where an ECONNRESET escaped as a 503).
  return name === 'TypeError' || name === 'RangeError' ? null : 'lost';
}

function describe(error: unknown): string {
  const { code, message } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown };
  return typeof code === 'string' ? code : typeof message === 'string' ? message : String(error);
}

type Statement = [text: string, values: readonly unknown[] | undefined];

/**
 * A replica connection that moves to the primary when a statement fails with `replicaFailure`. The statements of
 * an open transaction are kept so that the transaction can be opened again on the primary (reads only: running
 * them twice changes nothing) before the failed one is sent.
 */
class FailoverClient implements PostgresPoolClient {
  private transaction: Statement[] | null = null;
  private onReplica = true;
  /** The replica connection was given up and no primary one could be had: nothing left to release. */
  private released = false;
  // One statement at a time, as pg queues them on a connection: a failover never races a statement sent after it.
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private client: pg.PoolClient,
    private readonly replica: Replica,
    private readonly fallback: { takeOut: (replica: Replica, error: unknown) => void; primary: () => Promise<pg.PoolClient> },
  ) {}

  // Kysely sends statements as (text, values) and streams as a cursor; a cursor is not moved (nothing here streams).
  query(...args: unknown[]): never {
    const [text, values] = args;
    if (typeof text !== 'string') return (this.client.query as (...a: unknown[]) => never)(...args);
    const result = this.queue.then(() => this.run(text, values as readonly unknown[] | undefined));
    this.queue = result.catch(() => undefined);
    return result as never;
  }

  private async run(text: string, values: readonly unknown[] | undefined): Promise<PostgresQueryResult<unknown>> {
    const verb = /^\s*(\w+)/.exec(text)?.[1]?.toLowerCase();
    if (verb === 'begin' || verb === 'start') this.transaction = [];
    this.transaction?.push([text, values]);
    try {
      return await this.send(this.client, text, values);
    } catch (error) {
      const failure = this.onReplica ? replicaFailure(error) : null;
      if (failure === null) throw error;
      if (failure === 'lost') this.fallback.takeOut(this.replica, error);
      return await this.retryOnPrimary(text, values);
    } finally {
      if (verb === 'commit' || verb === 'rollback' || verb === 'end') this.transaction = null;
    }
  }

  private async retryOnPrimary(text: string, values: readonly unknown[] | undefined) {
    const opened = this.transaction ?? [];
    // Dropped, not returned to the pool: it is dead, or holds the aborted transaction of a cancelled statement.
    this.client.release(true);
    this.onReplica = false;
    this.released = true;
    this.client = await this.fallback.primary();
    this.released = false;
    for (const [earlier, earlierValues] of opened.slice(0, -1)) await this.send(this.client, earlier, earlierValues);
    return this.send(this.client, text, values);
  }

  private async send(client: pg.PoolClient, text: string, values: readonly unknown[] | undefined) {
    return (await client.query(text, values as unknown[] | undefined)) as PostgresQueryResult<unknown>;
  }

  release(destroy?: boolean): void {
    if (!this.released) this.client.release(destroy);
  }
}
