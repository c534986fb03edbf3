// What federation keeps between requests: the peer HTTP clients, one circuit breaker per peer, the
// queries in flight (loop guard), the score histories of calibration and the counters. Created once
// in AppContext; close() in destroy().
import type { RegistryConfig } from '../config';
import { CircuitBreakers } from './circuit-breaker';
import { InFlightQueries } from './loop-guard';
import { FederationMetrics } from './metrics';
import { createPeerClients, PeerSearchError, type PeerClients } from './peer-client';
import { partialEntryValidator } from './peer-response';
import { ScoreHistory } from './score-calibration';

export interface Federation {
  clients: PeerClients;
  breakers: CircuitBreakers;
  metrics: FederationMetrics;
  inFlight: InFlightQueries;
  /** Scores of this registry's own first pages (calibration's reference scale). */
  localScores: ScoreHistory;
  /** Scores of each peer's first pages, by base URL. */
  peerScores(baseUrl: string): ScoreHistory;
  /**
   * True the first time a query fingerprint is seen among the last RECORDED_QUERIES: only then are its
   * first pages' scores recorded, so a repeated query neither weighs more in calibration nor moves
   * its own ranking (the same page asked twice is the same page).
   */
  firstRecording(fingerprint: string): boolean;
  close(): Promise<void>;
}

/** Query fingerprints remembered so that a repeated query is recorded once for calibration. */
export const RECORDED_QUERIES = 1000;

export function createFederation(
  config: Pick<
    RegistryConfig,
    'federationMaxConcurrency' | 'federationBreakerThreshold' | 'federationBreakerCooldownMs' | 'crawlAllowPrivate'
  >,
): Federation {
  partialEntryValidator();
  const clients = createPeerClients({ maxConcurrency: config.federationMaxConcurrency, allowPrivateDiscovered: config.crawlAllowPrivate });
  const histories = new Map<string, ScoreHistory>();
  const recorded = new Set<string>();
  return {
    clients,
    breakers: new CircuitBreakers({
      threshold: config.federationBreakerThreshold,
      cooldownMs: config.federationBreakerCooldownMs,
      countsAgainstPeer: (error) => error instanceof PeerSearchError && error.countsAgainstPeer,
    }),
    metrics: new FederationMetrics(),
    inFlight: new InFlightQueries(),
    localScores: new ScoreHistory(),
    peerScores(baseUrl) {
      let h = histories.get(baseUrl);
      if (!h) histories.set(baseUrl, (h = new ScoreHistory()));
      return h;
    },
    firstRecording(fingerprint) {
      if (recorded.has(fingerprint)) return false;
      recorded.add(fingerprint);
      // A Set iterates in insertion order: the oldest goes first.
      if (recorded.size > RECORDED_QUERIES) recorded.delete(recorded.values().next().value as string);
      return true;
    },
    close: () => clients.close(),
  };
}
