// Keeps the verification of every live entry with a trust manifest current (ARD v0.91 §4.5.2): entries never checked or changed
// since their check first, then those whose re-check is due (keys rotate, are revoked or expire).
// Runs in the background of every registry process, one process at a time (`exclusive`,
// src/db/exclusive-run.ts): the others skip the tick.
import type { Kysely } from 'kysely';
import { inProcessRunner, type ExclusiveRunner } from '../db/exclusive-run';
import type { Database } from '../db/schema';
import type { Logger } from '../logger';
import { startPeriodicTask, type PeriodicTask } from '../periodic-task';
import type { KeyFetchOptions } from './key-sources';
import { verifyEntry } from './verify-entry';
import { entriesDueForVerification, recordVerifications } from './verification-repository';
import type { VerificationState } from './verification-outcome';

export interface TrustUpkeepDeps {
  db: Kysely<Database>;
  keys: KeyFetchOptions;
  /** Seconds until an entry's check is repeated (TRUST_RECHECK_SECONDS). */
  recheckSeconds: number;
  logger?: Logger;
  /** Who runs a tick when several processes share the database (DatabaseHandle.exclusive); default: this one. */
  exclusive?: ExclusiveRunner;
}

/** Entries read and checked per statement; network checks of one batch run this many at a time. */
const BATCH = 200;
const CONCURRENCY = 4;

export type VerificationCounts = Record<VerificationState, number>;

/** Counts of a tick that checked nothing. */
function noChecks(): VerificationCounts {
  return { verified: 0, unverified: 0, failed: 0 };
}

/** Checks every entry that is due now; returns how many ended in each state. */
export async function verifyDueEntries(
  deps: TrustUpkeepDeps,
  options: { now?: Date; signal?: AbortSignal } = {},
): Promise<VerificationCounts> {
  const counts = noChecks();
  const now = options.now ?? new Date();
  const seen = new Set<string>();
  for (;;) {
    if (options.signal?.aborted) break;
    const due = (await entriesDueForVerification(deps.db, now, BATCH)).filter((d) => !seen.has(`${d.identifier} ${d.contentHash}`));
    if (due.length === 0) break;
    const checkedAt = new Date();
    const nextCheckAt = new Date(checkedAt.getTime() + deps.recheckSeconds * 1000);
    const results = new Array(due.length);
    let next = 0;
    const cache = new Map<string, Promise<unknown>>();
    const worker = async () => {
      while (next < due.length && !options.signal?.aborted) {
        const i = next++;
        const outcome = await verifyEntry(due[i].entry, { keys: { ...deps.keys, signal: options.signal, cache }, now: checkedAt });
        results[i] = { identifier: due[i].identifier, contentHash: due[i].contentHash, outcome, checkedAt, nextCheckAt };
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const done = results.filter(Boolean);
    await recordVerifications(deps.db, done);
    for (const item of done) {
      counts[item.outcome.state as VerificationState]++;
      seen.add(`${item.identifier} ${item.contentHash}`);
    }
    if (due.length < BATCH) break;
  }
  return counts;
}

export type TrustUpkeep = PeriodicTask<VerificationCounts>;

/** Checks due entries every `pollMs` (the first time one `pollMs` after start); 0 disables it. */
export function startTrustUpkeep(deps: TrustUpkeepDeps, pollMs: number): TrustUpkeep {
  const exclusive = deps.exclusive ?? inProcessRunner;
  const tick = async (signal: AbortSignal): Promise<VerificationCounts> => {
    const run = await exclusive('trust', () => verifyDueEntries(deps, { signal }));
    return run.ran ? run.result : noChecks();
  };
  return startPeriodicTask(tick, pollMs, {
    logger: deps.logger,
    done: (counts, logger) => {
      if (counts.verified + counts.unverified + counts.failed > 0) logger.info({ ...counts }, 'trust manifests checked');
    },
    failed: 'trust upkeep could not check entries',
  });
}
