// Exports the read pool's state (src/db/read-pool.ts) at scrape time: which pool served the reads, and each
// replica's health and lag.
import type { ReadPool } from '../db/read-pool';
import { registerSnapshotGauge, type RegistryMetrics } from './metrics';

export function registerReadPoolMetrics(metrics: RegistryMetrics, readPool: ReadPool): void {
  registerSnapshotGauge(metrics, {
    name: 'ard_db_read_connections_served',
    help: "Read connections handed out since start, by pool: 'primary' or a replica's host:port.",
    labelNames: ['pool'] as const,
    read: () => Object.entries(readPool.snapshot().served).map(([pool, value]) => ({ labels: { pool }, value })),
  });
  registerSnapshotGauge(metrics, {
    name: 'ard_db_reads_retried_on_primary',
    help: 'Reads moved to the primary since start after their replica connection was lost or the replica cancelled them.',
    labelNames: [] as const,
    read: () => [{ labels: {}, value: readPool.snapshot().retriedOnPrimary }],
  });
  registerSnapshotGauge(metrics, {
    name: 'ard_db_replica_up',
    help: 'Whether a replica serves reads: 1 answering and within DATABASE_REPLICA_MAX_LAG_SECONDS, else 0.',
    labelNames: ['replica'] as const,
    read: () => readPool.snapshot().replicas.map((r) => ({ labels: { replica: r.name }, value: r.up ? 1 : 0 })),
  });
  registerSnapshotGauge(metrics, {
    name: 'ard_db_replica_lag_seconds',
    help: "Seconds a replica's replay was behind the primary at its last check (0 caught up).",
    labelNames: ['replica'] as const,
    read: () =>
      readPool
        .snapshot()
        .replicas.filter((r) => r.lagSeconds !== null && Number.isFinite(r.lagSeconds))
        .map((r) => ({ labels: { replica: r.name }, value: r.lagSeconds as number })),
  });
}
