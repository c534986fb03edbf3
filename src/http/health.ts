// Liveness and readiness, for orchestrators. /healthz answers while the process can serve HTTP and
// never touches the database (a database outage must not get healthy processes restarted).
// /readyz checks the primary database with `SELECT 1` under a short deadline: 503 takes the process
// out of the load balancer until the database is back, or while it drains at shutdown. Replicas do not
// count: without them reads go to the primary (src/db/read-pool.ts), so the process still serves.
import { sql } from 'kysely';
import type { AppContext } from '../context';

export const READINESS_TIMEOUT_MS = 1000;

export interface Readiness {
  ready: boolean;
  problems: string[];
}

export async function checkReadiness(ctx: Pick<AppContext, 'db'>, draining: boolean): Promise<Readiness> {
  if (draining) return { ready: false, problems: ['the registry is shutting down'] };
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the database did not answer within ${READINESS_TIMEOUT_MS} ms`), READINESS_TIMEOUT_MS);
  });
  const probe = sql`SELECT 1`.execute(ctx.db).then(
    () => null,
    () => 'the database is unreachable',
  );
  try {
    const problem = await Promise.race([probe, deadline]);
    return problem === null ? { ready: true, problems: [] } : { ready: false, problems: [problem] };
  } finally {
    clearTimeout(timer);
  }
}
