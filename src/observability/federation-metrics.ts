// Exports the federation's own counters (src/federation/metrics.ts) at scrape time.
import type { Federation } from '../federation/federation-service';
import { PEER_OUTCOMES } from '../federation/metrics';
import { registerSnapshotGauge, type RegistryMetrics } from './metrics';

export function registerFederationMetrics(metrics: RegistryMetrics, federation: Federation): void {
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
}
