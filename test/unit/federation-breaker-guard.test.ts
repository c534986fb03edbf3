import { CircuitBreakers, CircuitOpenError } from '../../src/federation/circuit-breaker';
import { federationHeaders, InFlightQueries, queryFingerprint, readFederationHop } from '../../src/federation/loop-guard';
import { configuredPeer, mergePeers, normalisePeerBase } from '../../src/federation/peer-directory';

class CountedError extends Error {}
const fail = (error: Error) => () => Promise.reject(error);
const ok = () => Promise.resolve('answer');
// Cool-downs of 300 ms: an assertion that a circuit is still open must not lose to a busy machine's pause.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('CircuitBreakers (cockatiel)', () => {
  it('opens after the threshold, lets one trial through after the cool-down, closes on success', async () => {
    const b = new CircuitBreakers({ threshold: 2, cooldownMs: 300, countsAgainstPeer: (e) => e instanceof CountedError });
    await expect(b.execute('p', fail(new CountedError('down')))).rejects.toBeInstanceOf(CountedError);
    expect(b.state('p')).toBe('closed');
    await expect(b.execute('p', fail(new CountedError('down')))).rejects.toBeInstanceOf(CountedError);
    expect(b.state('p')).toBe('open');
    let called = 0;
    await expect(b.execute('p', async () => ++called)).rejects.toBeInstanceOf(CircuitOpenError);
    expect(called).toBe(0);
    await sleep(320);
    // Half-open: one trial; a second caller meanwhile is skipped, not queued behind it.
    let finishTrial: (v: string) => void = () => undefined;
    const trial = b.execute('p', () => new Promise<string>((resolve) => (finishTrial = resolve)));
    expect(b.state('p')).toBe('half-open');
    await expect(b.execute('p', ok)).rejects.toBeInstanceOf(CircuitOpenError);
    finishTrial('back');
    await expect(trial).resolves.toBe('back');
    expect(b.state('p')).toBe('closed');
    await expect(b.execute('p', ok)).resolves.toBe('answer');
  });

  it('a failed trial opens the circuit again; errors that do not count pass through uncounted', async () => {
    const b = new CircuitBreakers({ threshold: 1, cooldownMs: 300, countsAgainstPeer: (e) => e instanceof CountedError });
    await expect(b.execute('q', fail(new Error('refused: 400')))).rejects.toThrow('refused: 400');
    expect(b.state('q')).toBe('closed');
    await expect(b.execute('q', fail(new CountedError('down')))).rejects.toBeInstanceOf(CountedError);
    expect(b.state('q')).toBe('open');
    await sleep(320);
    await expect(b.execute('q', fail(new CountedError('still down')))).rejects.toBeInstanceOf(CountedError);
    expect(b.state('q')).toBe('open');
    await expect(b.execute('q', ok)).rejects.toBeInstanceOf(CircuitOpenError);
    // Circuits are per peer.
    await expect(b.execute('other', ok)).resolves.toBe('answer');
  });
});

describe('in-flight queries (loop guard without headers)', () => {
  it('holds a fingerprint while any wait on it lasts; text and filter make the fingerprint, not the page size', () => {
    const q = new InFlightQueries();
    const fp = queryFingerprint('weather', [{ path: 'type', values: ['application/mcp-server-card+json'] }]);
    expect(fp).toBe(queryFingerprint('weather', [{ path: 'type', values: ['application/mcp-server-card+json'] }]));
    expect(fp).not.toBe(queryFingerprint('weather', []));
    const first = q.hold(fp);
    const second = q.hold(fp);
    expect(q.has(fp)).toBe(true);
    first();
    first(); // releasing twice releases once
    expect(q.has(fp)).toBe(true);
    second();
    expect(q.has(fp)).toBe(false);
  });
});

describe('loop guard headers', () => {
  it('takes the smaller hop limit, parses the visited list and shrinks the budget for the way back', () => {
    const hop = readFederationHop(
      {
        'ard-federation-hops': '5',
        'ard-federation-visited': 'https://a.example/search, https://b.example/api,not a url',
        'ard-federation-budget-ms': '900',
      },
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
    const discovered = {
      baseUrl: 'https://b.example/',
      identifier: 'urn:air:b.example:registry:main',
      displayName: 'B',
      type: 'application/ai-registry',
      configured: false,
      text: 'B',
    };
    const peers = mergePeers(['https://me.example', 'https://b.example/'], [discovered], 'https://me.example/');
    expect(peers).toEqual([{ ...discovered, configured: true }]);
  });
});
