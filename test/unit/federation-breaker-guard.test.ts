import { CircuitBreakers } from '../../src/federation/circuit-breaker';
import { federationHeaders, readFederationHop } from '../../src/federation/loop-guard';
import { configuredPeer, mergePeers, normalisePeerBase } from '../../src/federation/peer-directory';

describe('CircuitBreakers', () => {
  it('opens after the threshold, lets one trial through after the cool-down, closes on success', () => {
    let now = 0;
    const b = new CircuitBreakers({ threshold: 2, cooldownMs: 100, now: () => now });
    expect(b.tryAcquire('p')).toBe(true);
    expect(b.onFailure('p')).toBe(false);
    expect(b.onFailure('p')).toBe(true);
    expect(b.tryAcquire('p')).toBe(false);
    now = 100;
    expect(b.state('p')).toBe('half-open');
    expect(b.tryAcquire('p')).toBe(true);
    expect(b.tryAcquire('p')).toBe(false); // one trial at a time
    expect(b.onFailure('p')).toBe(true); // the trial failed: open again
    expect(b.tryAcquire('p')).toBe(false);
    now = 200;
    expect(b.tryAcquire('p')).toBe(true);
    b.onSuccess('p');
    expect(b.state('p')).toBe('closed');
    expect(b.tryAcquire('p')).toBe(true);
  });
});

describe('loop guard headers', () => {
  it('takes the smaller hop limit, parses the visited list and shrinks the budget for the way back', () => {
    const hop = readFederationHop(
      { 'ard-federation-hops': '5', 'ard-federation-visited': 'https://a.example/search, https://b.example/api,not a url', 'ard-federation-budget-ms': '900' },
      { maxHops: 2, budgetMs: 1500 },
    );
    expect(hop).toEqual({ hopsLeft: 2, visited: ['https://a.example/', 'https://b.example/api/'], budgetMs: 850 });
    expect(readFederationHop({ 'ard-federation-hops': '0' }, { maxHops: 2, budgetMs: 1500 }).hopsLeft).toBe(0);
    expect(readFederationHop({ 'ard-federation-hops': '-1' }, { maxHops: 2, budgetMs: 1500 }).hopsLeft).toBe(2);
    expect(federationHeaders(0, ['https://a.example/'], 812.7)).toEqual({
      'ard-federation-hops': '0',
      'ard-federation-visited': 'https://a.example/',
      'ard-federation-budget-ms': '812',
    });
  });
});

describe('peer directory', () => {
  it('normalises base URLs, synthesizes configured peers and never lists itself', () => {
    expect(normalisePeerBase('https://finder.example/api/v1/search?x=1#f')).toBe('https://finder.example/api/v1/');
    expect(normalisePeerBase('ftp://x.example/')).toBeNull();
    expect(configuredPeer('https://finder.example/api/v1/')).toMatchObject({
      identifier: 'urn:air:finder.example:registry:api-v1',
      displayName: 'Peer registry finder.example/api/v1',
      configured: true,
    });
    const discovered = { baseUrl: 'https://b.example/', identifier: 'urn:air:b.example:registry:main', displayName: 'B', type: 'application/ai-registry', configured: false };
    const peers = mergePeers(['https://me.example', 'https://b.example/'], [discovered], 'https://me.example/');
    expect(peers).toEqual([{ ...discovered, configured: true }]);
  });
});
