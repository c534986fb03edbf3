// Counters of outbound peer searches, per peer: outcomes and latency of calls, what was tolerated
// in answers and why results were dropped, how results were resolved (completed through the peer's
// GET /agents/{identifier}, served from the local copy, source rewritten). src/observability exports
// `snapshot()` to /metrics (plain numbers, no prom-client dependency here).
import { DROP_REASONS, TOLERATED_KINDS, type DropReason, type ToleratedKind } from './peer-response';

export type PeerOutcome = 'ok' | 'timeout' | 'network' | 'http_status' | 'invalid_response' | 'too_large' | 'circuit_open';

export const PEER_OUTCOMES: readonly PeerOutcome[] = [
  'ok',
  'timeout',
  'network',
  'http_status',
  'invalid_response',
  'too_large',
  'circuit_open',
];

/** How a peer's result was resolved before the merge. */
export const RESOLUTIONS = ['completed', 'completion_failed', 'served_locally', 'source_replaced'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

export interface PeerCounters {
  outcomes: Record<PeerOutcome, number>;
  /** Results a peer sent that were dropped (any reason). */
  droppedResults: number;
  dropped: Record<DropReason, number>;
  tolerated: Record<ToleratedKind, number>;
  resolutions: Record<Resolution, number>;
  /** Latency of calls that got an answer (ok or not), in ms. */
  latencyMsSum: number;
  latencyCount: number;
  latencyMsMax: number;
  lastLatencyMs: number | null;
}

export interface FederationMetricsSnapshot {
  /** Federated searches (auto mode with at least one peer to ask). */
  fanouts: number;
  /** auto requests answered as `none` because the same query was in flight here (a loop). */
  loopsAnsweredLocally: number;
  peers: Record<string, PeerCounters>;
}

const zeros = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

export class FederationMetrics {
  private fanouts = 0;
  private loops = 0;
  private readonly peers = new Map<string, PeerCounters>();
  /** `<peer> <kind>` already logged: what a peer's answers tolerate is logged once per peer and kind. */
  private readonly logged = new Set<string>();

  countFanout(): void {
    this.fanouts++;
  }

  countLoop(): void {
    this.loops++;
  }

  record(peer: string, outcome: PeerOutcome, latencyMs?: number): void {
    const c = this.countersOf(peer);
    c.outcomes[outcome]++;
    if (latencyMs !== undefined) {
      c.latencyMsSum += latencyMs;
      c.latencyCount++;
      c.latencyMsMax = Math.max(c.latencyMsMax, latencyMs);
      c.lastLatencyMs = latencyMs;
    }
  }

  countDropped(peer: string, reason: DropReason, n = 1): void {
    if (n <= 0) return;
    const c = this.countersOf(peer);
    c.dropped[reason] += n;
    c.droppedResults += n;
  }

  countTolerated(peer: string, kind: ToleratedKind, n = 1): void {
    if (n > 0) this.countersOf(peer).tolerated[kind] += n;
  }

  countResolution(peer: string, resolution: Resolution, n = 1): void {
    if (n > 0) this.countersOf(peer).resolutions[resolution] += n;
  }

  /** True the first time `kind` is seen for `peer` (the caller logs it then, and only then). */
  firstSeen(peer: string, kind: string): boolean {
    const key = `${peer} ${kind}`;
    if (this.logged.has(key)) return false;
    this.logged.add(key);
    return true;
  }

  snapshot(): FederationMetricsSnapshot {
    const peers: Record<string, PeerCounters> = {};
    for (const [key, c] of this.peers) {
      peers[key] = {
        ...c,
        outcomes: { ...c.outcomes },
        dropped: { ...c.dropped },
        tolerated: { ...c.tolerated },
        resolutions: { ...c.resolutions },
      };
    }
    return { fanouts: this.fanouts, loopsAnsweredLocally: this.loops, peers };
  }

  private countersOf(peer: string): PeerCounters {
    let c = this.peers.get(peer);
    if (!c) {
      c = {
        outcomes: zeros(PEER_OUTCOMES),
        droppedResults: 0,
        dropped: zeros(DROP_REASONS),
        tolerated: zeros(TOLERATED_KINDS),
        resolutions: zeros(RESOLUTIONS),
        latencyMsSum: 0,
        latencyCount: 0,
        latencyMsMax: 0,
        lastLatencyMs: null,
      };
      this.peers.set(peer, c);
    }
    return c;
  }
}
