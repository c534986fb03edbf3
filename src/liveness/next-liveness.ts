// The stored liveness after a probe (or after finding nothing to probe), from the one before it. Pure: the
// upkeep calls it, tests pin the transitions (docs/liveness.md "States").
import type { LivenessRecord, StoredLiveness } from './liveness-repository';
import type { ProbeOutcome } from './liveness-state';
import type { ProbeTarget } from './probe-target';

export interface LivenessTimes {
  /** Seconds until an entry is probed again (LIVENESS_INTERVAL_SECONDS). */
  intervalSeconds: number;
  /** Failing for this long makes an entry dead (LIVENESS_DEAD_AFTER_SECONDS). */
  deadAfterSeconds: number;
}

export function nextLiveness(
  item: { identifier: string; contentHash: string; previous: StoredLiveness | null },
  target: ProbeTarget,
  outcome: ProbeOutcome | null,
  now: Date,
  times: LivenessTimes,
): LivenessRecord {
  // A failing run carries over only while the same endpoint is probed: a new URL starts afresh.
  const previous = item.previous && item.previous.target === target.url ? item.previous : null;
  const base = {
    identifier: item.identifier,
    contentHash: item.contentHash,
    probe: target.probe,
    target: target.url,
    checkedAt: now,
    nextProbeAt: new Date(now.getTime() + times.intervalSeconds * 1000),
    lastSuccessAt: previous?.lastSuccessAt ?? null,
    lastFailureAt: previous?.lastFailureAt ?? null,
    lastFailureReason: previous?.lastFailureReason ?? null,
    latencyMs: previous?.latencyMs ?? null,
  };
  if (target.probe === 'none' || outcome === null) {
    const reason = target.probe === 'none' ? target.reason : null;
    const state = reason === 'transport-unsupported' ? 'unknown' : 'no-remote-endpoint';
    const detail = target.probe === 'none' ? target.detail : '';
    return { ...base, state, reason, detail, failingSince: null, deadSince: null };
  }
  if (outcome.ok) {
    return {
      ...base,
      state: 'live',
      reason: null,
      detail: outcome.detail,
      latencyMs: outcome.latencyMs,
      lastSuccessAt: now,
      failingSince: null,
      deadSince: null,
    };
  }
  const failingSince = previous?.failingSince ?? now;
  const dead = now.getTime() - failingSince.getTime() >= times.deadAfterSeconds * 1000;
  return {
    ...base,
    state: dead ? 'dead' : 'unreachable',
    reason: outcome.reason,
    detail: outcome.detail,
    lastFailureAt: now,
    lastFailureReason: outcome.reason,
    failingSince,
    deadSince: dead ? (previous?.deadSince ?? now) : null,
  };
}
