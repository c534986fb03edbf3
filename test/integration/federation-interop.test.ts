// Federation with peers no one here wrote (docs/federation.md): a hub indexing ToolHive federates with
// test peers that answer like the ARD reference registry, like a v0.91 registry, and like hostile
// ones. Each test asserts what the user of the hub sees.
import type { RegistryConfig } from '../../src/config';
import { withQueryCache } from '../../src/embedding/embedder';
import { UseLiteEmbedder } from '../../src/embedding/use-lite-embedder';
import { createOpenApiBackend } from '../../src/http/openapi';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';
import {
  NEVER_ANSWER,
  peerEntry,
  startHeaderIgnoringLoopPeer,
  startHtmlPeer,
  startRedirectingPeer,
  startReferenceLikePeer,
  startScriptedPeer,
  startV091LikePeer,
} from '../helpers/interop-peers';
import { freePort, keepOnlyManifest, type FakePeer } from '../helpers/peers';

const embedder = withQueryCache(new UseLiteEmbedder());
const api = createOpenApiBackend();
const peers: FakePeer[] = [];
const registries: TestRegistry[] = [];

type Result = { identifier: string; displayName?: string; score: number; source: string; [k: string]: unknown };

async function hub(config: Partial<RegistryConfig>, manifest: string): Promise<TestRegistry> {
  const port = await freePort();
  const reg = await startTestRegistry({
    withDemoCorpus: true,
    config: { port, publicUrl: `http://127.0.0.1:${port}/`, federationBudgetMs: 4000, requestTimeoutMs: 60_000, ...config },
    context: { embedder },
  });
  await keepOnlyManifest(reg.ctx.db, manifest);
  registries.push(reg);
  return reg;
}

async function peer(started: Promise<FakePeer>): Promise<FakePeer> {
  const p = await started;
  peers.push(p);
  return p;
}

function expectOrderedScores(results: Result[]) {
  const scores = results.map((r) => r.score);
  for (const s of scores) {
    expect(Number.isInteger(s)).toBe(true);
    expect(s).toBeGreaterThanOrEqual(0);
    expect(s).toBeLessThanOrEqual(100);
  }
  expect([...scores].sort((x, y) => y - x)).toEqual(scores);
}

const GRAFANA = 'urn:air:github.com:grafana:mcp-grafana';
const weatherEntries = [
  peerEntry('weather.example', 'storm-tracker', 'weather radar and storm alerts'),
  peerEntry('weather.example', 'tide-tables', 'tide and weather tables for harbours'),
];
const v091 = {
  complete: 'urn:air:v091.example:mcp:weather-now',
  missing: 'urn:air:v091.example:mcp:weather-gone',
  lying: 'urn:air:v091.example:mcp:weather-liar',
};

let h: TestRegistry;
let reference: FakePeer;
let v091Peer: FakePeer;
let hostile: FakePeer;
let html: FakePeer;
let redirecting: FakePeer;

beforeAll(async () => {
  await api.init();
  await embedder.embedOne('warm up the model before any budget runs');
  reference = await peer(startReferenceLikePeer(weatherEntries));
  v091Peer = await peer(
    startV091LikePeer(
      [
        { identifier: v091.complete, score: 91 },
        { identifier: v091.missing, score: 85 },
        { identifier: v091.lying, score: 80 },
      ],
      (id) =>
        id === v091.complete
          ? {
              '@context': { acme: 'https://acme.example/ns#' },
              ...peerEntry('v091.example', 'weather-now', 'current weather conditions'),
              'acme:tier': 'gold',
            }
          : id === v091.lying
            ? peerEntry('v091.example', 'someone-else', 'an entry under another identifier')
            : undefined,
    ),
  );
  hostile = await peer(
    startScriptedPeer(() => [
      {
        identifier: 'urn:air:evil.example:mcp:flood-a',
        displayName: 'Flood A',
        type: 'application/mcp-server-card+json',
        url: 'https://evil.example/a',
        score: 100,
        source: 'https://evil.example/',
      },
      {
        identifier: GRAFANA,
        displayName: 'SPOOFED grafana',
        type: 'application/mcp-server-card+json',
        url: 'https://evil.example/grafana',
        score: 100,
        source: 'https://evil.example/',
      },
      {
        identifier: 'urn:air:evil.example:mcp:flood-b',
        displayName: 'Flood B',
        type: 'application/mcp-server-card+json',
        url: 'https://evil.example/b',
        score: 100,
        source: h.ctx.config.publicUrl,
      },
      {
        identifier: 'urn:air:evil.example:mcp:flood-a',
        displayName: 'Flood A again',
        type: 'application/mcp-server-card+json',
        url: 'https://evil.example/a2',
        score: 100,
      },
      {
        identifier: 'urn:air:evil.example:mcp:flood-c',
        displayName: 'Flood C',
        type: 'application/mcp-server-card+json',
        url: 'https://evil.example/c',
        score: 100,
        source: 'https://evil.example/',
      },
      {
        identifier: 'urn:air:evil.example:mcp:bad',
        displayName: 'Bad',
        type: 'application/mcp-server-card+json',
        url: 'javascript:alert(1)',
        data: {},
        score: 100,
      },
    ]),
  );
  html = await peer(startHtmlPeer());
  redirecting = await peer(startRedirectingPeer(reference.url));
  h = await hub(
    { peers: [reference.url, v091Peer.url, hostile.url, html.url, redirecting.url], federationBreakerThreshold: 3 },
    'toolhive-ai-catalog.json',
  );
}, 180_000);

afterAll(async () => {
  await Promise.all(registries.map((r) => r.close()));
  await Promise.all(peers.map((p) => p.close()));
});

describe('a peer that answers like the reference registry', () => {
  it('federates despite "pageToken": null, an unknown "total" and zero-result answers; it is never counted as failing', async () => {
    for (let i = 0; i < 4; i++) {
      const res = await h.post('/search', { query: { text: 'storm weather radar' }, pageSize: 10 });
      expect(res.status).toBe(200);
      const fromReference = (res.body.results as Result[]).filter((r) => r.source === reference.url);
      expect(fromReference.map((r) => r.identifier)).toContain('urn:air:weather.example:mcp:storm-tracker');
      expect(fromReference.find((r) => r.identifier === 'urn:air:weather.example:mcp:storm-tracker')).toMatchObject({
        displayName: 'storm tracker',
        description: 'weather radar and storm alerts',
      });
      expectOrderedScores(res.body.results);
    }
    const nothing = await h.post('/search', { query: { text: 'quantum chromodynamics lattice' }, pageSize: 10 });
    expect(nothing.status).toBe(200);
    const counters = h.ctx.federation.metrics.snapshot().peers[reference.url]!;
    expect(counters.outcomes.ok).toBe(5);
    expect(counters.outcomes.invalid_response).toBe(0);
    expect(counters.outcomes.circuit_open).toBe(0);
    expect(counters.tolerated.null_page_token).toBe(5);
    expect(counters.tolerated.unknown_top_level_field).toBe(5);
    expect(h.ctx.federation.breakers.state(reference.url)).toBe('closed');
    // ... and what was tolerated is in /metrics.
    const metrics = await h.get('/metrics');
    expect(metrics.body).toContain(`ard_federation_peer_tolerated{peer="${reference.url}",kind="null_page_token"} 5`);
    expect(metrics.body).toContain(`ard_federation_peer_calls{peer="${reference.url}",outcome="ok"} 5`);
  });
});

describe('a peer in the v0.91 shape (ARD v0.91 §5.3.2, §5.3.4)', () => {
  it("completes identifier-only results through the peer's GET /agents/{identifier}, keeps the v0.91 shape when it cannot, drops a completion under another identifier", async () => {
    const res = await h.post('/search', { query: { text: 'weather conditions now' }, pageSize: 20 });
    expect(res.status).toBe(200);
    const byId = new Map((res.body.results as Result[]).map((r) => [r.identifier, r]));
    expect(byId.get(v091.complete)).toMatchObject({
      displayName: 'weather now',
      type: 'application/mcp-server-card+json',
      url: 'https://v091.example/weather-now',
      '@context': { acme: 'https://acme.example/ns#' },
      'acme:tier': 'gold',
      source: v091Peer.url,
    });
    // No complete entry to be had: the result stays in the shape v0.91 allows (identifier, score, source).
    const partial = byId.get(v091.missing)!;
    expect(Object.keys(partial).sort()).toEqual(['identifier', 'score', 'source']);
    expect(partial.source).toBe(v091Peer.url);
    expect(byId.has(v091.lying)).toBe(false);
    expectOrderedScores(res.body.results);
    // The identifier went out as one percent-encoded path segment.
    const gets = v091Peer.requests.filter((r) => r.body === undefined).length;
    expect(gets).toBeGreaterThanOrEqual(3);
    const counters = h.ctx.federation.metrics.snapshot().peers[v091Peer.url]!;
    expect(counters.resolutions.completed).toBeGreaterThanOrEqual(1);
    expect(counters.resolutions.completion_failed).toBeGreaterThanOrEqual(1);
    expect(counters.dropped.completion_invalid).toBeGreaterThanOrEqual(1);
    expect(counters.outcomes.ok).toBeGreaterThanOrEqual(1);
  });
});

describe('a hostile peer', () => {
  it('cannot spoof an entry this registry holds, name a source it has not proven, or buy the top with inflated scores', async () => {
    // Calibration learns from the peer's own answers: a few queries first, as a running registry would have seen.
    for (const text of ['dashboards and metrics', 'log search', 'alerting rules', 'incident timeline'])
      await h.post('/search', { query: { text }, pageSize: 10 });
    const query = { query: { text: 'weather forecast' }, pageSize: 30 };
    const res = await h.post('/search', query);
    expect(res.status).toBe(200);
    const results = res.body.results as Result[];
    // The held identifier is served from the local copy, whatever page: never the peer's name or source.
    expect(results.some((r) => r.displayName === 'SPOOFED grafana')).toBe(false);
    const grafana = results.find((r) => r.identifier === GRAFANA);
    if (grafana) {
      expect(grafana.source).toBe(h.ctx.config.publicUrl);
      expect(grafana.displayName).not.toContain('SPOOFED');
    }
    // Sources the peer wrote for itself (its own domain, or this registry's URL) are not believed.
    expect(results.some((r) => r.source === 'https://evil.example/')).toBe(false);
    for (const r of results.filter((x) => x.identifier.startsWith('urn:air:evil.example'))) expect(r.source).toBe(hostile.url);
    // Duplicates once; the invalid entry dropped with its reason.
    const ids = results.map((r) => r.identifier);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).not.toContain('urn:air:evil.example:mcp:bad');
    // Scores: on our scale (0-100 whatever the peer wrote), ordered.
    expectOrderedScores(results);
    expect(results.filter((r) => r.source === hostile.url).length).toBeGreaterThan(0);
    // A peer that calls everything 100 lands in the middle of our scale: below a strong match of ours.
    const strong = { query: { text: 'grafana dashboards' }, pageSize: 30 };
    const [fed, ownStrong] = await Promise.all([h.post('/search', strong), h.post('/search', { ...strong, federation: 'none' })]);
    expect(ownStrong.body.results[0]).toMatchObject({ identifier: GRAFANA });
    expect(fed.body.results[0]).toMatchObject({
      identifier: GRAFANA,
      source: h.ctx.config.publicUrl,
      score: ownStrong.body.results[0].score,
    });
    expect(fed.body.results[0].displayName).not.toContain('SPOOFED');
    const flood = (fed.body.results as Result[]).filter((r) => r.source === hostile.url);
    expect(flood.length).toBeGreaterThan(0);
    for (const r of flood) expect(r.score).toBeLessThan(ownStrong.body.results[0].score);
    expect(flood[0]!.score).toBeLessThan(80);
    expectOrderedScores(fed.body.results);
    const counters = h.ctx.federation.metrics.snapshot().peers[hostile.url]!;
    expect(counters.dropped.duplicate).toBeGreaterThan(0);
    expect(counters.dropped.fails_catalog_schema).toBeGreaterThan(0);
    expect(counters.resolutions.served_locally).toBeGreaterThan(0);
    expect(counters.resolutions.source_replaced).toBeGreaterThan(0);
  });

  it('a peer that answers HTML or redirects is left out and counted; the user still gets an answer', async () => {
    const res = await h.post('/search', { query: { text: 'kubernetes cluster' }, pageSize: 10 });
    expect(res.status).toBe(200);
    expect(res.body.results.length).toBeGreaterThan(0);
    const snapshot = h.ctx.federation.metrics.snapshot().peers;
    expect(snapshot[html.url]!.outcomes.invalid_response).toBeGreaterThan(0);
    expect(snapshot[redirecting.url]!.outcomes.http_status).toBeGreaterThan(0);
    expect(snapshot[html.url]!.outcomes.ok + snapshot[redirecting.url]!.outcomes.ok).toBe(0);
    // The redirect was not followed: the reference peer got no search from the redirecting peer's requests.
    expect(redirecting.requests.length).toBeGreaterThan(0);
  });
});

describe('loops without our headers', () => {
  it('a peer that asks us back with auto and ignores every header gets none at once; the loop ends after one round trip', async () => {
    // eslint-disable-next-line prefer-const -- the peer is built before the hub it asks back, and reads it lazily
    let loopHub: TestRegistry | undefined;
    const looper = await peer(
      startHeaderIgnoringLoopPeer(
        [peerEntry('loop.example', 'news-digest', 'a digest of korean news')],
        () => loopHub!.ctx.config.publicUrl,
      ),
    );
    loopHub = await hub({ peers: [looper.url] }, 'agentfinder-sample-ai-catalog.first33.normalised.json');
    const started = performance.now();
    const res = await loopHub.post('/search', { query: { text: 'korean news agent' }, pageSize: 10 });
    const elapsed = performance.now() - started;
    expect(res.status).toBe(200);
    expect(elapsed).toBeLessThan(3000);
    expect(looper.requests).toHaveLength(1);
    expect(loopHub.ctx.federation.metrics.snapshot().loopsAnsweredLocally).toBe(1);
    expect(loopHub.ctx.federation.metrics.snapshot().peers[looper.url]!.outcomes.ok).toBe(1);
    const results = res.body.results as Result[];
    expect(results.map((r) => r.identifier)).toContain('urn:air:loop.example:mcp:news-digest');
    // What the looper relayed from us is ours: our copy, our source.
    for (const r of results) expect([loopHub.ctx.config.publicUrl, looper.url]).toContain(r.source);
    expect(results.filter((r) => r.source === loopHub!.ctx.config.publicUrl).length).toBeGreaterThan(0);
    // Page size did not grow on our side: we asked the looper for what the user asked.
    expect((looper.requests[0]!.body as { pageSize: number }).pageSize).toBe(10);
  });
});

describe('completion within the budget', () => {
  it('a peer whose GET /agents/{identifier} never answers costs no more than the budget; its result keeps the v0.91 shape', async () => {
    const hanging = await peer(
      startV091LikePeer([{ identifier: 'urn:air:slow.example:mcp:weather-later', score: 70 }], () => NEVER_ANSWER),
    );
    const port = await freePort();
    const budget = 1500;
    const small = await startTestRegistry({
      withDemoCorpus: false,
      config: { port, publicUrl: `http://127.0.0.1:${port}/`, peers: [hanging.url], federationBudgetMs: budget },
      context: { embedder },
    });
    registries.push(small);
    const started = performance.now();
    const res = await small.post('/search', { query: { text: 'weather later' }, pageSize: 10 });
    const elapsed = performance.now() - started;
    expect(res.status).toBe(200);
    // Not held by the GET that never answers: the budget, plus what a loaded machine adds to the answer's way out.
    expect(elapsed).toBeLessThanOrEqual(budget + 500);
    expect(res.body.results).toEqual([
      { identifier: 'urn:air:slow.example:mcp:weather-later', score: expect.any(Number), source: hanging.url },
    ]);
    expect(small.ctx.federation.metrics.snapshot().peers[hanging.url]!.resolutions.completion_failed).toBe(1);
  });
});
