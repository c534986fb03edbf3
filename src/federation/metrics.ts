// Counters of outbound peer searches, per peer, for logs today and /metrics later: the reliability
// engineer exports `snapshot()` (plain numbers, no prom-client dependency here).

export type PeerOutcome =
  | 'ok'
  | 'timeout'
  | 'network'
  | 'http_status'
  | 'invalid_response'
  | 'too_large'
  | 'circuit_open';

export const PEER_OUTCOMES: readonly PeerOutcome[] = ['ok', 'timeout', 'network', 'http_status', 'invalid_response', 'too_large', 'circuit_open'];

export interface PeerCounters {
  outcomes: Record<PeerOutcome, number>;
  /** Results a peer sent that failed the SearchResultItem schema and were dropped. */
  droppedResults: number;
  /** Latency of calls that got an answer (ok or not), in ms. */
  latencyMsSum: number;
  latencyCount: number;
  latencyMsMax: number;
  lastLatencyMs: number | null;
}

export interface FederationMetricsSnapshot {
  /** Federated searches (auto mode with at least one peer to ask). */
  fanouts: number;
  peers: Record<string, PeerCounters>;
}

export class FederationMetrics {
  private fanouts = 0;
  private readonly peers = new Map<string, PeerCounters>();

  countFanout(): void {
    this.fanouts++;
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

  countDropped(peer: string, n: number): void {
    if (n > 0) this.countersOf(peer).droppedResults += n;
  }

  snapshot(): FederationMetricsSnapshot {
    const peers: Record<string, PeerCounters> = {};
    for (const [key, c] of this.peers) peers[key] = { ...c, outcomes: { ...c.outcomes } };
    return { fanouts: this.fanouts, peers };
  }

  private countersOf(peer: string): PeerCounters {
    let c = this.peers.get(peer);
    if (!c) {
      const outcomes = Object.fromEntries(PEER_OUTCOMES.map((o) => [o, 0])) as Record<PeerOutcome, number>;
      c = { outcomes, droppedResults: 0, latencyMsSum: 0, latencyCount: 0, latencyMsMax: 0, lastLatencyMs: null };
      this.peers.set(peer, c);
    }
    return c;
  }
}
