// Background jobs that several registry processes on one database must not do twice at the same time: the
// liveness probes, the trust re-checks, each mirrored peer's feed. Crawls are split by leases on their rows
// (source-repository.ts); these jobs have no row to claim, so each run takes a session advisory lock named by
// the job, on a connection of the primary's pool held for the run: the process that gets it runs the job, the
// others skip that run. A process that dies drops its connection and, with it, the lock. The embedded
// database has one process by construction (its folder's lock): there the job just runs.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema';

/** What a run gave, or that another process was running the job. */
export type ExclusiveOutcome<T> = { ran: true; result: T } | { ran: false };

/** Runs `work` unless another process runs the job named `job` right now. */
export type ExclusiveRunner = <T>(job: string, work: () => Promise<T>) => Promise<ExclusiveOutcome<T>>;

/** The advisory lock namespace of these jobs (the first key of pg_try_advisory_lock(int, int)); arbitrary, constant. */
const JOB_LOCK_NAMESPACE = 4_210_772;

/** One process of those sharing `db` runs a job at a time (PostgreSQL). */
export function advisoryLockRunner(db: Kysely<Database>): ExclusiveRunner {
  return (job, work) =>
    db.connection().execute(async (conn) => {
      const { rows } = await sql<{ locked: boolean }>`SELECT pg_try_advisory_lock(${JOB_LOCK_NAMESPACE}, hashtext(${job})) AS locked`.execute(
        conn,
      );
      if (!rows[0]?.locked) return { ran: false };
      try {
        return { ran: true, result: await work() };
      } finally {
        // A connection lost meanwhile took the lock with it; the unlock's failure must not hide the job's outcome.
        await sql`SELECT pg_advisory_unlock(${JOB_LOCK_NAMESPACE}, hashtext(${job}))`.execute(conn).catch(() => undefined);
      }
    });
}

/** The embedded database's runner: one process, so the job runs (its own PeriodicTask keeps one run at a time). */
export const inProcessRunner: ExclusiveRunner = async (_job, work) => ({ ran: true, result: await work() });
