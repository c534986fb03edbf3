// Federation across real registries of this project on loopback (ARD §8): A indexes ToolHive, B the
// Docker MCP registry (37 identifiers in common with ToolHive), C the AgentFinder sample.
// A -> B, C and B -> A (a cycle), FEDERATION_MAX_HOPS 2 on both.
import { FINISH_RESERVE_MS } from '../../src/federation/federated-search';
import type { RegistryConfig } from '../../src/config';
import { withQueryCache } from '../../src/embedding/embedder';
import { UseLiteEmbedder } from '../../src/embedding/use-lite-embedder';
import { ingestManifest } from '../../src/ingest/ingest-manifest';
import { createOpenApiBackend } from '../../src/http/openapi';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';
import { freePort, json, keepOnlyManifest, resultItem, startFakePeer, type FakePeer } from '../helpers/peers';

const embedder = withQueryCache(new UseLiteEmbedder());
const api = createOpenApiBackend();
let a: TestRegistry;
let b: TestRegistry;
let c: TestRegistry;
const fakes: FakePeer[] = [];
const others: TestRegistry[] = [];

async function registry(port: number, config: Partial<RegistryConfig>, manifest?: string): Promise<TestRegistry> {
  const reg = await startTestRegistry({
    withDemoCorpus: manifest !== undefined,
    config: { port, publicUrl: `http://127.0.0.1:${port}/`, federationBudgetMs: 5000, ...config },
    context: { embedder },
  });
  if (manifest) await keepOnlyManifest(reg.ctx.db, manifest);
  return reg;
}

const urlOf = (port: number) => `http://127.0.0.1:${port}/`;

function expectValid(body: unknown) {
  expect(api.validateResponse(body, 'searchAgents', 200).errors ?? []).toEqual([]);
}

async function allPages(reg: TestRegistry, body: Record<string, unknown>, headers?: Record<string, string>) {
  const results: Array<{ identifier: string; score: number; source: string }> = [];
  let pageToken: string | undefined;
  let pages = 0;
  do {
    const res = await reg.post('/search', { ...body, ...(pageToken ? { pageToken } : {}) }, headers);
    expect(res.status).toBe(200);
    results.push(...res.body.results);
    pageToken = res.body.pageToken;
    pages++;
  } while (pageToken && pages < 200);
  return { results, pages };
}

const ids = (rs: Array<{ identifier: string }>) => rs.map((r) => r.identifier);

let portA: number;
let portB: number;
let portC: number;

beforeAll(async () => {
  await api.init();
  await embedder.embedOne('warm up the model before any budget runs');
  [portA, portB, portC] = [await freePort(), await freePort(), await freePort()];
  c = await registry(portC, { peers: [] }, 'agentfinder-sample-ai-catalog.first33.normalised.json');
  b = await registry(portB, { peers: [urlOf(portA)], federationMaxHops: 2 }, 'docker-mcp-ai-catalog.json');
  // A lists itself among its peers: it must never query itself.
  a = await registry(portA, { peers: [urlOf(portB), urlOf(portC), urlOf(portA)], federationMaxHops: 2 }, 'toolhive-ai-catalog.json');
}, 180_000);

afterAll(async () => {
  await Promise.all([a, b, c, ...others].filter(Boolean).map((r) => r.close()));
  await Promise.all(fakes.map((f) => f.close()));
});

describe('federation auto across real registries (ARD §8)', () => {
  it('merges peers into one ranked list; each result names the registry it came from; duplicates appear once (ARD §8 auto)', async () => {
    const query = { query: { text: 'atlassian jira confluence' }, pageSize: 20 };
    const [auto, localA, localB] = await Promise.all([
      a.post('/search', query),
      a.post('/search', { ...query, federation: 'none' }),
      b.post('/search', { ...query, federation: 'none' }),
    ]);
    expect(auto.status).toBe(200);
    expectValid(auto.body);
    const results = auto.body.results as Array<{ identifier: string; score: number; source: string }>;
    // De-duplication: mcp-atlassian is in both ToolHive (A) and Docker (B); A's own copy wins.
    const atlassian = results.filter((r) => r.identifier === 'urn:air:github.com:sooperset:mcp-atlassian');
    expect(atlassian).toHaveLength(1);
    expect(atlassian[0]!.source).toBe(urlOf(portA));
    expect(new Set(ids(results)).size).toBe(results.length);
    // The local exact match is not buried: A's own first hit leads the merged list.
    expect(results[0]!.identifier).toBe(localA.body.results[0].identifier);
    // Sources: A's entries say A, B-only entries say B; each registry's order is kept inside the merge,
    // and scores never rise down the list. A second query makes sure B has entries A does not.
    const second = { query: { text: 'postgres database' }, pageSize: 20 };
    const [auto2, localA2, localB2] = await Promise.all([
      a.post('/search', second),
      a.post('/search', { ...second, federation: 'none' }),
      b.post('/search', { ...second, federation: 'none' }),
    ]);
    let bOnlyTotal = 0;
    for (const [merged, ownA, ownB] of [
      [results, localA.body.results, localB.body.results],
      [auto2.body.results, localA2.body.results, localB2.body.results],
    ] as Array<
      [Array<{ identifier: string; score: number; source: string }>, Array<{ identifier: string }>, Array<{ identifier: string }>]
    >) {
      const aIds = new Set(ids(ownA));
      const bOnly = merged.filter((r) => !aIds.has(r.identifier));
      bOnlyTotal += bOnly.length;
      for (const r of merged)
        expect(r.source).toBe(aIds.has(r.identifier) ? urlOf(portA) : ids(ownB).includes(r.identifier) ? urlOf(portB) : urlOf(portC));
      const fromA = ids(merged).filter((id) => aIds.has(id));
      expect(fromA).toEqual(ids(ownA).filter((id: string) => fromA.includes(id)));
      const fromB = ids(bOnly.filter((r) => r.source === urlOf(portB)));
      expect(fromB).toEqual(ids(ownB).filter((id: string) => fromB.includes(id)));
      const scores = merged.map((r) => r.score);
      expect([...scores].sort((x, y) => y - x)).toEqual(scores);
    }
    expect(bOnlyTotal).toBeGreaterThan(0);
    // A never asked itself.
    expect(Object.keys(a.ctx.federation.metrics.snapshot().peers).sort()).toEqual([urlOf(portB), urlOf(portC)].sort());
  });

  it('none searches only the local index (ARD §8 none)', async () => {
    const res = await a.post('/search', { query: { text: 'send a slack message' }, federation: 'none', pageSize: 30 });
    expect(res.status).toBe(200);
    expect(res.body.results.length).toBeGreaterThan(0);
    for (const r of res.body.results) expect(r.source).toBe(urlOf(portA));
    expect(res.body.referrals).toBeUndefined();
  });

  it('a cycle A -> B -> A terminates; a second hop result names the peer that answered, as B does not know C (loop protection)', async () => {
    // B asks A (hops left 1, visited B and A); A may not ask B back but asks C, with no hop left.
    const okCount = (reg: TestRegistry, peer: string) => reg.ctx.federation.metrics.snapshot().peers[peer]?.outcomes.ok ?? 0;
    const before = okCount(a, urlOf(portC));
    const aAskedB = okCount(a, urlOf(portB));
    const res = await b.post('/search', { query: { text: 'korean news agent' }, pageSize: 50 });
    expect(res.status).toBe(200);
    expectValid(res.body);
    const sources = new Set(res.body.results.map((r: { source: string }) => r.source));
    // C's entries reached B through A: A answered, and B knows no registry at C's URL, so A is their source.
    expect(sources.has(urlOf(portC))).toBe(false);
    expect(res.body.results.find((r: { displayName: string }) => r.displayName === 'Korean News Agent')?.source).toBe(urlOf(portA));
    expect(b.ctx.federation.metrics.snapshot().peers[urlOf(portA)]!.resolutions.source_replaced).toBeGreaterThan(0);
    expect(okCount(a, urlOf(portC))).toBe(before + 1);
    expect(okCount(a, urlOf(portB))).toBe(aAskedB); // A did not ask B back
    expect(okCount(b, urlOf(portA))).toBeGreaterThan(0);
  });

  it('a registry named in ARD-Federation-Visited, or a request with no hop left, is not queried (loop protection)', async () => {
    const snapshot = () => JSON.stringify(a.ctx.federation.metrics.snapshot().peers);
    const before = snapshot();
    const visited = await a.post(
      '/search',
      { query: { text: 'github issues' }, pageSize: 5 },
      { 'ARD-Federation-Visited': `${urlOf(portB)},${urlOf(portC)}` },
    );
    const noHop = await a.post('/search', { query: { text: 'github issues' }, pageSize: 5 }, { 'ARD-Federation-Hops': '0' });
    for (const res of [visited, noHop]) {
      expect(res.status).toBe(200);
      for (const r of res.body.results) expect(r.source).toBe(urlOf(portA));
    }
    expect(snapshot()).toBe(before);
  });

  it('pages through federated results without repeating or skipping any (ARD §7.2 pageToken)', async () => {
    const body = { query: { text: 'postgres database sql queries' }, pageSize: 10 };
    const [fed, la, lb, lc] = await Promise.all([
      allPages(a, body),
      allPages(a, { ...body, federation: 'none', pageSize: 100 }),
      allPages(b, { ...body, federation: 'none', pageSize: 100 }),
      allPages(c, { ...body, federation: 'none', pageSize: 100 }),
    ]);
    expect(fed.pages).toBeGreaterThan(2);
    const got = ids(fed.results);
    expect(new Set(got).size).toBe(got.length);
    const expected = new Set([...ids(la.results), ...ids(lb.results), ...ids(lc.results)]);
    expect(new Set(got)).toEqual(expected);
    const scores = fed.results.map((r) => r.score);
    expect([...scores].sort((x, y) => y - x)).toEqual(scores);
    // The same page asked twice is the same page.
    const first = await a.post('/search', body);
    const again = await a.post('/search', body);
    expect(ids(again.body.results)).toEqual(ids(first.body.results));
    expect(ids(first.body.results)).toEqual(got.slice(0, 10));
  });
});

describe('referrals (ARD §8 referrals)', () => {
  let r: TestRegistry;
  beforeAll(async () => {
    const port = await freePort();
    r = await registry(port, { peers: [urlOf(portC), urlOf(port)] });
    others.push(r);
    await ingestManifest(
      { db: r.ctx.db, embedder },
      {
        specVersion: '1.0',
        entries: [
          {
            identifier: 'urn:air:travel.example:registry:flights',
            displayName: 'Travel Agent Finder',
            type: 'application/ai-registry+json',
            description: 'A registry of travel agents: flight booking, hotel reservations, trip planning.',
            url: urlOf(portC),
          },
          {
            identifier: 'urn:air:weather.example:registry:forecast',
            displayName: 'Weather Tools Registry',
            type: 'application/ai-registry',
            description: 'Registry of weather forecast and climate data MCP servers.',
            url: 'http://127.0.0.1:9/search',
          },
        ],
      },
      { origin: 'test:registries' },
    );
  });

  it('returns local results plus the known registries, most relevant first, never itself', async () => {
    const flights = await r.post('/search', { query: { text: 'book a flight to Tokyo' }, federation: 'referrals' });
    expect(flights.status).toBe(200);
    expectValid(flights.body);
    const referrals = flights.body.referrals as Array<{ identifier: string; displayName: string; type: string; url: string }>;
    expect(referrals[0]).toEqual({
      identifier: 'urn:air:travel.example:registry:flights',
      displayName: 'Travel Agent Finder',
      type: 'application/ai-registry+json',
      url: `${urlOf(portC)}search`,
    });
    expect(referrals.map((x) => x.identifier).sort()).toEqual([
      'urn:air:travel.example:registry:flights',
      'urn:air:weather.example:registry:forecast',
    ]);
    const weather = await r.post('/search', { query: { text: 'weather forecast for tomorrow' }, federation: 'referrals' });
    expect(weather.body.referrals[0]).toMatchObject({
      identifier: 'urn:air:weather.example:registry:forecast',
      url: 'http://127.0.0.1:9/search',
    });
    // Nothing was asked of any peer in referrals mode.
    expect(r.ctx.federation.metrics.snapshot().fanouts).toBe(0);
  });

  it('a configured peer without a catalog entry gets a synthesized identifier', async () => {
    const port = await freePort();
    const s = await registry(port, { peers: [urlOf(portB)] });
    others.push(s);
    const res = await s.post('/search', { query: { text: 'anything at all' }, federation: 'referrals' });
    expect(res.body.referrals).toEqual([
      {
        identifier: `urn:air:127.0.0.1:registry:${portB}`,
        displayName: `Peer registry 127.0.0.1:${portB}`,
        type: 'application/ai-registry+json',
        url: `${urlOf(portB)}search`,
      },
    ]);
  });

  it('a discovered peer on a private address is not contacted (SSRF policy; only PEERS are trusted)', async () => {
    const res = await r.post('/search', { query: { text: 'weather forecast' }, pageSize: 5 });
    expect(res.status).toBe(200);
    const weather = r.ctx.federation.metrics.snapshot().peers['http://127.0.0.1:9/']!;
    expect(weather.outcomes.network).toBe(1);
    expect(r.ctx.federation.metrics.snapshot().peers[urlOf(portC)]!.outcomes.ok).toBe(1);
  });
});

describe('misbehaving peers and the time budget', () => {
  let m: TestRegistry;
  let good: FakePeer;
  let slow: FakePeer;
  const hold: Array<() => void> = [];

  beforeAll(async () => {
    good = await startFakePeer((_req, res) =>
      json(res, 200, {
        results: [
          resultItem('good-one', 90, 'https://upstream.example/registry/'),
          resultItem('good-two', 80),
          resultItem('relayed', 75, `${partial.url}search`),
        ],
      }),
    );
    slow = await startFakePeer((_req, res) => {
      hold.push(() => json(res, 200, { results: [resultItem('slow-one', 99)] }));
    });
    const err500 = await startFakePeer((_req, res) => json(res, 500, { errorCode: 'INTERNAL', message: 'boom' }));
    const notJson = await startFakePeer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"results": [');
    });
    const huge = await startFakePeer((_req, res) => {
      res.on('error', () => undefined);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"results": [');
      const item = JSON.stringify(resultItem('huge', 50));
      let sent = 0;
      const pump = () => {
        while (sent < 5 * 1024 * 1024) {
          sent += item.length + 1;
          if (!res.write(`${item},`)) return void res.once('drain', pump);
        }
        res.end(`${item}]}`);
      };
      pump();
    });
    const wrongSchema = await startFakePeer((_req, res) => json(res, 200, { hits: [{ id: 'x' }] }));
    const partial = await startFakePeer((_req, res) =>
      json(res, 200, { results: [resultItem('partial-valid', 70), { ...resultItem('partial-bad', 150), identifier: 'not a urn' }] }),
    );
    const downPort = await freePort();
    fakes.push(good, slow, err500, notJson, huge, wrongSchema, partial);
    const port = await freePort();
    m = await registry(
      port,
      {
        peers: [good.url, slow.url, urlOf(downPort), err500.url, notJson.url, huge.url, wrongSchema.url, partial.url],
        federationBudgetMs: 2000,
      },
      'agentfinder-sample-ai-catalog.first33.normalised.json',
    );
    others.push(m);
  });

  afterAll(() => {
    for (const release of hold) release();
  });

  it('leaves out slow, down, 500, non-JSON, huge and wrong-schema peers, keeps what arrived in time, and counts each failure', async () => {
    const res = await m.post('/search', { query: { text: 'flight booking agent peer server' }, pageSize: 50 });
    expect(res.status).toBe(200);
    expectValid(res.body);
    const byId = new Map<string, { source: string }>(
      res.body.results.map((r: { identifier: string; source: string }) => [r.identifier, r]),
    );
    // A source the peer writes for a registry this one does not know, or none, becomes the peer's URL.
    expect(byId.get('urn:air:peer.example:mcp:good-one')?.source).toBe(good.url);
    expect(byId.get('urn:air:peer.example:mcp:good-two')?.source).toBe(good.url);
    // A source naming a registry this one knows (another peer, here by its search route) is kept, normalised.
    expect(byId.get('urn:air:peer.example:mcp:relayed')?.source).toBe(m.ctx.config.peers[7]);
    expect(byId.has('urn:air:peer.example:mcp:partial-valid')).toBe(true);
    expect(byId.has('urn:air:peer.example:mcp:slow-one')).toBe(false);
    expect(byId.has('urn:air:peer.example:mcp:huge')).toBe(false);
    expect([...byId.keys()].some((id) => !id.startsWith('urn:air:peer.example'))).toBe(true); // local results too
    const peers = m.ctx.federation.metrics.snapshot().peers;
    const outcome = (url: string) =>
      Object.entries(peers[url]!.outcomes)
        .filter(([, n]) => n > 0)
        .map(([o]) => o);
    const cfg = m.ctx.config.peers;
    expect(outcome(good.url)).toEqual(['ok']);
    expect(outcome(slow.url)).toEqual(['timeout']);
    expect(outcome(cfg[2]!)).toEqual(['network']);
    expect(outcome(cfg[3]!)).toEqual(['http_status']);
    expect(outcome(cfg[4]!)).toEqual(['invalid_response']);
    expect(outcome(cfg[5]!)).toEqual(['too_large']);
    expect(outcome(cfg[6]!)).toEqual(['invalid_response']);
    expect(outcome(cfg[7]!)).toEqual(['ok']);
    expect(peers[cfg[7]!]!.droppedResults).toBe(1);
    // The loop-protection headers went out with the request.
    expect(good.requests[0]!.headers['ard-federation-hops']).toBe('0');
    expect(String(good.requests[0]!.headers['ard-federation-visited'])).toContain(m.ctx.config.publicUrl);
    expect((good.requests[0]!.body as { federation: string }).federation).toBe('none');
    // Page sizes never grow across hops: the peer is asked for what the caller asked.
    expect((good.requests[0]!.body as { pageSize: number }).pageSize).toBe(50);
  });
});

describe('the budget covers the whole request', () => {
  it('with a peer that never answers, the response leaves within the budget and keeps what a real peer sent in time (ARD §8 auto)', async () => {
    const budget = 1000;
    const held: Array<() => void> = [];
    const silent = await startFakePeer((_req, res) => {
      held.push(() => json(res, 200, { results: [] }));
    });
    fakes.push(silent);
    const hub = await registry(await freePort(), {
      peers: [urlOf(portC), silent.url],
      federationBudgetMs: budget,
      federationBreakerThreshold: 100,
    });
    others.push(hub);
    const query = { query: { text: 'korean news and public data' }, pageSize: 10 };
    const ownC = await c.post('/search', { ...query, federation: 'none' });
    // The hub's first search pays for the model's first run and the pool's first connections (~1 s at load 10),
    // which no budget covers: the local search is waited for. The budget is measured on a warm hub.
    expect((await hub.post('/search', { ...query, federation: 'none' })).status).toBe(200);
    for (let round = 0; round < 2; round++) {
      const started = performance.now();
      const res = await hub.post('/search', query);
      const elapsed = performance.now() - started;
      expect(res.status).toBe(200);
      // The peers' deadline is the budget less what the merge and the answer need, counted from the
      // request's arrival: the whole request ends by the budget, and the silent peer was waited for
      // until that deadline (not given up on earlier).
      expect(elapsed).toBeLessThanOrEqual(budget);
      expect(elapsed).toBeGreaterThanOrEqual(budget - FINISH_RESERVE_MS);
      // C answered in time: its results are in (the hub has no index of its own), in C's order.
      const fromC = res.body.results.filter((r: { source: string }) => r.source === urlOf(portC));
      expect(fromC.length).toBeGreaterThan(0);
      expect(ids(fromC)).toEqual(ids(ownC.body.results).slice(0, fromC.length));
    }
    // The silent peer was told the time it had: at most the budget less the reserve.
    expect(silent.requests).toHaveLength(2);
    for (const r of silent.requests) {
      const told = Number(r.headers['ard-federation-budget-ms']);
      expect(told).toBeLessThanOrEqual(budget - FINISH_RESERVE_MS);
      expect(told).toBeGreaterThan(budget - FINISH_RESERVE_MS - 300);
    }
    expect(hub.ctx.federation.metrics.snapshot().peers[silent.url]!.outcomes.timeout).toBe(2);
    for (const release of held) release();
  });
});

describe('circuit breaker', () => {
  it('skips a peer after consecutive failures and lets it back in after the cool-down', async () => {
    let healthy = false;
    const flaky = await startFakePeer((_req, res) =>
      healthy ? json(res, 200, { results: [resultItem('flaky', 60)] }) : json(res, 503, { errorCode: 'UNAVAILABLE', message: 'down' }),
    );
    fakes.push(flaky);
    const reg = await registry(await freePort(), { peers: [flaky.url], federationBreakerThreshold: 2, federationBreakerCooldownMs: 1500 });
    others.push(reg);
    const search = () => reg.post('/search', { query: { text: 'flaky peer' } });
    await search();
    await search();
    expect(flaky.requests).toHaveLength(2);
    const skipped = await search();
    expect(skipped.status).toBe(200);
    expect(flaky.requests).toHaveLength(2); // open: not asked
    expect(reg.ctx.federation.metrics.snapshot().peers[flaky.url]!.outcomes.circuit_open).toBe(1);
    healthy = true;
    // The cool-down is long enough for a third search on a loaded machine to come before it ends.
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const recovered = await search();
    expect(flaky.requests).toHaveLength(3); // half-open trial
    expect(recovered.body.results.map((r: { identifier: string }) => r.identifier)).toContain('urn:air:peer.example:mcp:flaky');
    await search();
    expect(flaky.requests).toHaveLength(4); // closed again
  });
});
