// What federation keeps between requests: the peer HTTP clients, one circuit breaker per peer and
// the counters. Created once in AppContext; close() in destroy().
import type { RegistryConfig } from '../config';
import { CircuitBreakers } from './circuit-breaker';
import { FederationMetrics } from './metrics';
import { createPeerClients, type PeerClients } from './peer-client';
import { searchResponseValidator } from './peer-response';

export interface Federation {
  clients: PeerClients;
  breakers: CircuitBreakers;
  metrics: FederationMetrics;
  close(): Promise<void>;
}

export function createFederation(
  config: Pick<RegistryConfig, 'federationMaxConcurrency' | 'federationBreakerThreshold' | 'federationBreakerCooldownMs' | 'crawlAllowPrivate'>,
): Federation {
  searchResponseValidator();
  const clients = createPeerClients({ maxConcurrency: config.federationMaxConcurrency, allowPrivateDiscovered: config.crawlAllowPrivate });
  return {
    clients,
    breakers: new CircuitBreakers({ threshold: config.federationBreakerThreshold, cooldownMs: config.federationBreakerCooldownMs }),
    metrics: new FederationMetrics(),
    close: () => clients.close(),
  };
}
