// Probes what the registry lists, on a schedule and within a budget (docs/liveness.md): each tick probes at
// most `budget` due entries (never probed, changed since, or due again), `concurrency` at a time, each host
// through the crawl's host limiter, so no host is probed faster than its crawl delay. Runs in the background
// of every registry process, one process at a time (`exclusive`, src/db/exclusive-run.ts): the others skip
// the tick, so a publisher is not probed once per process.
import type { Kysely } from 'kysely';
import { inProcessRunner, type ExclusiveRunner } from '../db/exclusive-run';
import type { Database } from '../db/schema';
import type { Logger } from '../logger';
import type { HostLimiter } from '../outbound';
import { startPeriodicTask, type PeriodicTask } from '../periodic-task';
import { entriesDueForProbe, recordLiveness, type DueEntry, type LivenessRecord } from './liveness-repository';
import type { LivenessState, ProbeCounter } from './liveness-state';
import { nextLiveness, type LivenessTimes } from './next-liveness';
import { probeTargetOf, type ProbeTarget } from './probe-target';
import { probe, type ProbeDeps } from './probes';

export interface LivenessUpkeepDeps extends ProbeDeps, LivenessTimes {
  db: Kysely<Database>;
  /** The crawl's per-host limiter: probes and crawls of one host share its spacing (CRAWL_HOST_DELAY_MS, robots Crawl-delay). */
  limiter: HostLimiter;
  /** Entries probed per tick at most (LIVENESS_ROUND_BUDGET). */
  budget: number;
  /** Probes running at once (LIVENESS_CONCURRENCY). */
  concurrency: number;
  counter?: ProbeCounter;
  logger?: Logger;
  /** Who runs a tick when several processes share the database (DatabaseHandle.exclusive); default: this one. */
  exclusive?: ExclusiveRunner;
}

/** Entries read and written per statement. */
const BATCH = 500;

export type LivenessCounts = Record<LivenessState, number>;

/** Probes the entries due now, up to the budget; returns how many ended in each state. */
/** Counts of a tick that probed nothing. */
function noProbes(): LivenessCounts {
  return { live: 0, unreachable: 0, dead: 0, 'no-remote-endpoint': 0, unknown: 0 };
}

export async function probeDueEntries(
  deps: LivenessUpkeepDeps,
  options: { now?: () => Date; signal?: AbortSignal } = {},
): Promise<LivenessCounts> {
  const counts = noProbes();
  const now = options.now ?? (() => new Date());
  const seen = new Set<string>();
  let probed = 0;
  while (probed < deps.budget && !options.signal?.aborted) {
    const due = (await entriesDueForProbe(deps.db, now(), Math.min(BATCH, deps.budget - probed))).filter(
      (d) => !seen.has(`${d.identifier} ${d.contentHash}`),
    );
    if (due.length === 0) break;
    const records = await probeBatch(deps, interleaveHosts(due), now, options.signal);
    await recordLiveness(deps.db, records);
    for (const record of records) {
      counts[record.state]++;
      seen.add(`${record.identifier} ${record.contentHash}`);
    }
    probed += due.length;
  }
  return counts;
}

async function probeBatch(deps: LivenessUpkeepDeps, due: DueEntry[], now: () => Date, signal?: AbortSignal): Promise<LivenessRecord[]> {
  const records: LivenessRecord[] = [];
  let next = 0;
  const worker = async () => {
    while (next < due.length && !signal?.aborted) {
      const item = due[next++];
      const target = probeTargetOf(item.entry);
      try {
        const outcome =
          target.probe === 'none' ? null : await deps.limiter.schedule(hostOf(target), () => probe(target, deps, signal), signal);
        deps.counter?.count(target.probe, target.probe === 'none' ? target.reason : outcome?.ok ? 'success' : outcome!.reason);
        records.push(nextLiveness(item, target, outcome, now(), deps));
      } catch (error) {
        // Aborted (the registry is stopping): the entry stays due.
        if (!signal?.aborted) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, deps.concurrency) }, worker));
  return records;
}

function hostOf(target: Extract<ProbeTarget, { url: string }>): string {
  return new URL(target.url).host;
}

/**
 * The batch reordered so that consecutive entries are on different hosts (round robin over hosts, in first
 * appearance order): a host with many due entries waits on its spacing without holding every probe slot.
 */
export function interleaveHosts(due: DueEntry[]): DueEntry[] {
  const byHost = new Map<string, DueEntry[]>();
  for (const item of due) {
    const target = probeTargetOf(item.entry);
    const key = target.url === null ? '' : new URL(target.url).host;
    const list = byHost.get(key);
    if (list) list.push(item);
    else byHost.set(key, [item]);
  }
  const lists = [...byHost.values()];
  const out: DueEntry[] = [];
  for (let i = 0; out.length < due.length; i++) for (const list of lists) if (i < list.length) out.push(list[i]);
  return out;
}

export type LivenessUpkeep = PeriodicTask<LivenessCounts>;

/** Probes due entries every `pollMs` (LIVENESS_POLL_MS; the first time one `pollMs` after start); 0 disables it. */
export function startLivenessUpkeep(deps: LivenessUpkeepDeps, pollMs: number): LivenessUpkeep {
  const exclusive = deps.exclusive ?? inProcessRunner;
  const tick = async (signal: AbortSignal): Promise<LivenessCounts> => {
    const run = await exclusive('liveness', () => probeDueEntries(deps, { signal }));
    return run.ran ? run.result : noProbes();
  };
  return startPeriodicTask(tick, pollMs, {
    logger: deps.logger,
    done: (counts, logger) => {
      if (Object.values(counts).some((n) => n > 0)) logger.info({ ...counts }, 'entries probed');
    },
    failed: 'liveness upkeep could not probe entries',
  });
}
