// The registry's Prometheus metrics, served at GET /metrics. One Registry per AppContext (two
// registries in one process, as in tests, never share counters). Other modules add their own
// series through `ctx.metrics`: counters/histograms with `registers: [ctx.metrics.registry]`, or
// values they already keep (federation's per-peer counters, crawl results) through
// `registerSnapshotGauge`, which reads them at scrape time so the domain never imports prom-client.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ProbeCounter } from '../liveness';
import type { SearchTimings } from '../search/search-service';

export interface RegistryMetrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  searchStages: Histogram<'stage'>;
  /** What search-service receives: stage timings into `searchStages`. */
  searchTimings: SearchTimings;
  /** 1 for the bundled model's runtime in use (unset when the context was given an embedder). */
  bundledEmbeddingRuntime: Gauge<'runtime'>;
  livenessProbes: Counter<'probe' | 'outcome'>;
  /** What the liveness upkeep receives: one count per entry probed into `livenessProbes`. */
  probeCounter: ProbeCounter;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): RegistryMetrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const httpRequests = new Counter({
    name: 'ard_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'ard_http_request_duration_seconds',
    help: 'Time from request received to response finished, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const searchStages = new Histogram({
    name: 'ard_search_stage_duration_seconds',
    help: 'Time spent in each stage of a search: embedding the query, the SQL ranking, federation.',
    labelNames: ['stage'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const bundledEmbeddingRuntime = new Gauge({
    name: 'ard_bundled_embedding_runtime_info',
    help: "The bundled model's runtime, 1 for the one in use: onnxruntime, or tfjs (EMBEDDING_RUNTIME=tfjs, or onnxruntime-node did not load).",
    labelNames: ['runtime'] as const,
    registers: [registry],
  });
  const livenessProbes = new Counter({
    name: 'ard_liveness_probes_total',
    help: "Entries probed for liveness, by probe (mcp-initialize, a2a-card, url, none) and outcome (success, a failure's reason, or why nothing was probed).",
    labelNames: ['probe', 'outcome'] as const,
    registers: [registry],
  });
  return {
    registry,
    bundledEmbeddingRuntime,
    livenessProbes,
    probeCounter: { count: (probe, outcome) => livenessProbes.inc({ probe, outcome }) },
    httpRequests,
    httpDuration,
    searchStages,
    searchTimings: { observe: (stage, seconds) => searchStages.observe({ stage }, seconds) },
  };
}

export interface SnapshotSample<L extends string> {
  labels: Partial<Record<L, string | number>>;
  value: number;
}

/**
 * A gauge whose samples are read at scrape time from state another module keeps, e.g.
 * `registerSnapshotGauge(ctx.metrics, { name: 'ard_peer_healthy', help: '...', labelNames: ['peer'],
 *   read: () => peers.map((p) => ({ labels: { peer: p.url }, value: p.healthy ? 1 : 0 })) })`.
 */
export function registerSnapshotGauge<L extends string>(
  metrics: Pick<RegistryMetrics, 'registry'>,
  spec: { name: string; help: string; labelNames: readonly L[]; read: () => Array<SnapshotSample<L>> },
): Gauge<L> {
  return new Gauge<L>({
    name: spec.name,
    help: spec.help,
    labelNames: spec.labelNames,
    registers: [metrics.registry],
    collect() {
      this.reset();
      for (const sample of spec.read()) this.set(sample.labels, sample.value);
    },
  });
}
