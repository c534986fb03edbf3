// Exports the federation's own counters (src/federation/metrics.ts) at scrape time.
import type { Federation } from '../federation/federation-service';
import type { MirrorFollower } from '../federation/mirror-follower';
import { PEER_OUTCOMES, RESOLUTIONS, type PeerCounters } from '../federation/metrics';
import { DROP_REASONS, TOLERATED_KINDS } from '../federation/peer-response';
import { registerSnapshotGauge, type RegistryMetrics } from './metrics';

export function registerFederationMetrics(metrics: RegistryMetrics, federation: Federation, mirror?: MirrorFollower): void {
  if (mirror) registerMirrorMetrics(metrics, mirror);
  registerSnapshotGauge(metrics, {
    name: 'ard_federation_fanouts',
    help: 'Federated searches (auto mode with at least one peer to ask) since start.',
    labelNames: [] as const,
    read: () => [{ labels: {}, value: federation.metrics.snapshot().fanouts }],
  });
  registerSnapshotGauge(metrics, {
    name: 'ard_federation_peer_calls',
    help: 'Outbound peer searches since start, by peer and outcome (ok, timeout, network, http_status, invalid_response, too_large, circuit_open).',
    labelNames: ['peer', 'outcome'] as const,
    read: () =>
      Object.entries(federation.metrics.snapshot().peers).flatMap(([peer, c]) =>
        PEER_OUTCOMES.map((outcome) => ({ labels: { peer, outcome }, value: c.outcomes[outcome] })),
      ),
  });
  registerSnapshotGauge(metrics, {
    name: 'ard_federation_peer_latency_ms_avg',
    help: 'Mean latency of answered peer searches since start, in milliseconds.',
    labelNames: ['peer'] as const,
    read: () =>
      Object.entries(federation.metrics.snapshot().peers)
        .filter(([, c]) => c.latencyCount > 0)
        .map(([peer, c]) => ({ labels: { peer }, value: c.latencyMsSum / c.latencyCount })),
  });
  registerSnapshotGauge(metrics, {
    name: 'ard_federation_loops_answered_locally',
    help: 'auto searches answered as none because the same query was already in flight here (a peer asked it back) since start.',
    labelNames: [] as const,
    read: () => [{ labels: {}, value: federation.metrics.snapshot().loopsAnsweredLocally }],
  });
  const perPeer = <L extends string, K extends string>(
    name: string,
    help: string,
    label: L,
    keys: readonly K[],
    count: (c: PeerCounters, key: K) => number,
  ) =>
    registerSnapshotGauge(metrics, {
      name,
      help,
      labelNames: ['peer', label] as const,
      read: () =>
        Object.entries(federation.metrics.snapshot().peers).flatMap(([peer, c]) =>
          keys.map((key) => ({ labels: { peer, [label]: key } as Record<'peer' | L, string>, value: count(c, key) })),
        ),
    });
  perPeer(
    'ard_federation_peer_results_dropped',
    'Peer results dropped since start, by peer and reason (not_an_object, invalid_identifier, fails_catalog_schema, duplicate, completion_invalid).',
    'reason',
    DROP_REASONS,
    (c, reason) => c.dropped[reason],
  );
  perPeer(
    'ard_federation_peer_tolerated',
    'Departures from the schema tolerated in peer answers since start, by peer and kind (unknown top-level fields, null pageToken, null fields, missing or out-of-range or misordered scores).',
    'kind',
    TOLERATED_KINDS,
    (c, kind) => c.tolerated[kind],
  );
  perPeer(
    'ard_federation_peer_results_resolved',
    "Peer results resolved before the merge since start, by peer and how: completed through the peer's GET /agents/{identifier} (or not), served from the local copy, source replaced by the peer's URL.",
    'resolution',
    RESOLUTIONS,
    (c, resolution) => c.resolutions[resolution],
  );
}

/** What the last sync of each mirrored peer did (docs/federation.md "Mirroring"). */
function registerMirrorMetrics(metrics: RegistryMetrics, mirror: MirrorFollower): void {
  const outcomes = ['added', 'updated', 'unchanged', 'removed', 'refused'] as const;
  registerSnapshotGauge(metrics, {
    name: 'ard_mirror_last_sync_changes',
    help: "Changes of a mirrored peer's feed in its last sync, by peer and outcome (added, updated, unchanged, removed, refused).",
    labelNames: ['peer', 'outcome'] as const,
    read: () =>
      [...mirror.lastReports().values()].flatMap((r) =>
        outcomes.map((outcome) => ({ labels: { peer: r.peer, outcome }, value: outcome === 'refused' ? r.refusedCount : r[outcome] })),
      ),
  });
  registerSnapshotGauge(metrics, {
    name: 'ard_mirror_last_sync_failed',
    help: "1 when the last sync of a mirrored peer's feed failed (unreachable, not a feed, too large, a cursor that does not advance), else 0.",
    labelNames: ['peer'] as const,
    read: () => [...mirror.lastReports().values()].map((r) => ({ labels: { peer: r.peer }, value: r.status === 'failed' ? 1 : 0 })),
  });
}
