/**
 * Liveness (docs/liveness.md): probes of what the registry lists against servers on loopback (an MCP server
 * over Streamable HTTP in JSON and SSE form, a dead port, a slow endpoint, an endpoint that is not MCP, A2A
 * cards served and broken, skill URLs that answer and that do not, stdio-only servers), the stored state as
 * `@liveness` in GET /agents, POST /search and POST /explore, the Registry-Liveness header, /metrics, the
 * portal's entry page, and the ranking: failing entries below live ones doing the same job, long-dead ones
 * out of /search by default, in `none` and `auto` alike.
 */
import { sql } from 'kysely';
import { loadConfig } from '../../src/config';
import { ingestManifest } from '../../src/ingest/ingest-manifest';
import { probeDueEntries, type LivenessUpkeepDeps } from '../../src/liveness';
import { normaliseFilter } from '../../src/search/query-filter';
import { matchText, scoreConfidence } from '../../src/search/relevance';
import { mcpLivenessHandshake } from '../../src/mcp/liveness-probe';
import { createHostLimiter, createHttpClient, type HostLimiter, type HttpClient } from '../../src/outbound';
import { fakeEmbedder } from '../helpers/fake-embedder';
import { HtmlPage } from '../helpers/html-page';
import { mcpServerRoute } from '../helpers/mcp-loopback';
import { freePort, json, startFakePeer, type FakePeer } from '../helpers/peers';
import { createTestCrawlClient, startPublisherServer, type PublisherServer } from '../helpers/publisher-server';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

// The probes' deadline: a loopback handshake takes a few ms, but a busy CI machine can stretch one past a second.
const TIMEOUT_MS = 2000;
const MCP = 'application/mcp-server-card+json';
const A2A = 'application/a2a-agent-card+json';
const SKILL = 'application/ai-skill';

let server: PublisherServer;
let registry: TestRegistry;
let http2: HttpClient;
let peer: FakePeer;
const timers = new Set<NodeJS.Timeout>();
/** Hosts the probes were scheduled under, in order. */
const scheduledHosts: string[] = [];

const id = (name: string) => `urn:air:probe.test:${name}`;

function entry(name: string, type: string, fields: Record<string, unknown>, description = `the ${name} endpoint for liveness`) {
  return { identifier: id(name), displayName: name, type, description, ...fields };
}

function card(name: string) {
  return {
    name,
    description: 'books rooms',
    url: 'http://agent.test/a2a',
    version: '1.0.0',
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'book', name: 'Book', description: 'books a room', tags: ['booking'] }],
  };
}

function recordingLimiter(inner: HostLimiter): HostLimiter {
  return {
    ...inner,
    schedule(host, task, signal) {
      scheduledHosts.push(host);
      return inner.schedule(host, task, signal);
    },
  };
}

beforeAll(async () => {
  server = await startPublisherServer();
  const deadPort = await freePort();
  server.route('mcp.test', '/mcp', mcpServerRoute('loopback-weather', { json: true }));
  server.route('mcpsse.test', '/mcp', mcpServerRoute('loopback-tides', { json: false }));
  server.route('slow.test', '/mcp', (_req, res) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    }, TIMEOUT_MS * 4);
    timers.add(timer);
  });
  server.route('html.test', '/mcp', (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>'));
  server.json('agent.test', '/card.json', card('Room booker'));
  const { skills: _skills, defaultOutputModes: _modes, ...broken } = card('Broken booker');
  server.json('broken.test', '/card.json', broken);
  server.route('skill.test', '/SKILL.md', (_req, res) => res.writeHead(200, { 'content-type': 'text/markdown' }).end('# skill'));
  server.route('skill.test', '/tides', (_req, res) => res.writeHead(200, { 'content-type': 'text/markdown' }).end('# tides'));
  peer = await startFakePeer((_req, res) => json(res, 200, { results: [] }));

  const client = createTestCrawlClient((h) => h.endsWith('.test'), { timeoutMs: TIMEOUT_MS });
  http2 = createTestCrawlClient((h) => h.endsWith('.test'), { timeoutMs: TIMEOUT_MS });
  registry = await startTestRegistry({
    withDemoCorpus: false,
    // The host delay at 0: the test's hosts are names for one loopback server.
    config: { crawlAllowPrivate: true, trustPollMs: 0, peers: [peer.url], crawl: { ...loadConfig().crawl, hostDelayMs: 0 } },
    context: { embedder: fakeEmbedder(), crawlHttp: client },
  });
  const o = (host: string, path: string) => `${server.origin(host)}${path}`;
  const manifest = {
    specVersion: '1.0',
    entries: [
      entry('mcp-json', MCP, { url: o('mcp.test', '/mcp'), metadata: { remoteUrl: o('mcp.test', '/mcp'), transport: 'streamable-http' } }),
      entry('mcp-sse-stream', MCP, { data: { name: 'tides', remotes: [{ type: 'streamable-http', url: o('mcpsse.test', '/mcp') }] } }),
      entry('mcp-dead-port', MCP, {
        url: `http://deadport.test:${deadPort}/mcp`,
        metadata: { remoteUrl: `http://deadport.test:${deadPort}/mcp` },
      }),
      entry('mcp-slow', MCP, {
        url: o('slow.test', '/mcp'),
        metadata: { remoteUrl: o('slow.test', '/mcp'), transport: 'streamable-http' },
      }),
      entry('mcp-not-mcp', MCP, { url: o('html.test', '/mcp'), metadata: { remoteUrl: o('html.test', '/mcp') } }),
      entry('mcp-stdio', MCP, { url: 'https://github.com/probe/stdio-server', metadata: { transport: 'stdio', image: 'probe/stdio' } }),
      entry('mcp-sse-transport', MCP, { url: o('mcp.test', '/sse'), metadata: { remoteUrl: o('mcp.test', '/sse'), transport: 'sse' } }),
      entry('a2a-card', A2A, { url: o('agent.test', '/card.json') }),
      entry('a2a-broken', A2A, { url: o('broken.test', '/card.json') }),
      entry('skill-ok', SKILL, { url: o('skill.test', '/SKILL.md') }),
      entry('skill-gone', SKILL, { url: o('gone.test', '/SKILL.md') }),
      entry('skill-inline', SKILL, { data: { instructions: 'inline' } }),
      // Two entries doing the same job: the one that fails sorts first by identifier.
      entry('tides-a-down', SKILL, { displayName: 'Tide tables', url: o('gone.test', '/tides') }, 'tide tables for harbour pilots'),
      entry('tides-b-live', SKILL, { displayName: 'Tide tables', url: o('skill.test', '/tides') }, 'tide tables for harbour pilots'),
    ],
  };
  const report = await ingestManifest({ db: registry.ctx.db, embedder: registry.ctx.embedder as never }, manifest, {
    origin: 'file:liveness.json',
  });
  expect(report.rejected).toEqual([]);
});

afterAll(async () => {
  for (const timer of timers) clearTimeout(timer);
  await registry?.close();
  await http2?.close();
  await peer?.close();
  await server?.close();
});

function deps(overrides: Partial<LivenessUpkeepDeps> = {}): LivenessUpkeepDeps {
  return {
    db: registry.ctx.db,
    http: http2,
    limiter: recordingLimiter(createHostLimiter({ minDelayMs: 0 })),
    mcpHandshake: mcpLivenessHandshake(http2),
    timeoutMs: TIMEOUT_MS,
    intervalSeconds: 3600,
    deadAfterSeconds: 3 * 86400,
    budget: 100,
    concurrency: 4,
    ...overrides,
  };
}

function header(value: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const member of (value ?? '').split(', ')) {
    const [k, v] = member.split('=');
    out[k] = v.replace(/^"|"$/g, '');
  }
  return out;
}

async function liveness(name: string): Promise<Record<string, string>> {
  const res = await registry.get(`/agents/${encodeURIComponent(id(name))}`);
  expect(res.status).toBe(200);
  return header(res.headers.get('registry-liveness'));
}

describe('probes (ARD registry extension @liveness, docs/liveness.md)', () => {
  it('before any probe an entry is unknown and pending', async () => {
    expect(await liveness('mcp-json')).toEqual({ state: 'unknown', reason: 'pending' });
  });

  it('probes every entry once through the context and stores state, reason, latency and times', async () => {
    const counts = await registry.ctx.liveness.tick();
    expect(counts).toEqual({ live: 5, unreachable: 6, dead: 0, 'no-remote-endpoint': 2, unknown: 1 });
    expect(await registry.ctx.liveness.tick()).toEqual({ live: 0, unreachable: 0, dead: 0, 'no-remote-endpoint': 0, unknown: 0 });

    const mcp = await liveness('mcp-json');
    expect(mcp).toMatchObject({ state: 'live', probe: 'mcp-initialize' });
    expect(Number(mcp['latency-ms'])).toBeGreaterThanOrEqual(0);
    expect(Date.parse(mcp['last-success'])).toBe(Date.parse(mcp.checked));
    expect(await liveness('mcp-sse-stream')).toMatchObject({ state: 'live', probe: 'mcp-initialize' });
    expect(await liveness('mcp-dead-port')).toMatchObject({ state: 'unreachable', probe: 'mcp-initialize', reason: 'network' });
    expect(await liveness('mcp-slow')).toMatchObject({ state: 'unreachable', reason: 'timeout' });
    expect(await liveness('mcp-not-mcp')).toMatchObject({ state: 'unreachable', reason: 'mcp-handshake-failed' });
    expect(await liveness('mcp-stdio')).toMatchObject({ state: 'no-remote-endpoint', probe: 'none', reason: 'stdio-only' });
    expect(await liveness('mcp-sse-transport')).toMatchObject({ state: 'unknown', probe: 'none', reason: 'transport-unsupported' });
    expect(await liveness('a2a-card')).toMatchObject({ state: 'live', probe: 'a2a-card' });
    expect(await liveness('a2a-broken')).toMatchObject({ state: 'unreachable', probe: 'a2a-card', reason: 'card-missing-fields' });
    expect(await liveness('skill-ok')).toMatchObject({ state: 'live', probe: 'url' });
    const gone = await liveness('skill-gone');
    expect(gone).toMatchObject({ state: 'unreachable', probe: 'url', reason: 'http-status' });
    expect(gone['failing-since']).toBe(gone['last-failure']);
    expect(gone['last-success']).toBeUndefined();
    expect(await liveness('skill-inline')).toMatchObject({ state: 'no-remote-endpoint', reason: 'no-url' });
  });

  it('goes through the host limiter under each endpoint’s host, and through the SSRF guard of src/outbound', async () => {
    scheduledHosts.length = 0;
    // The same names on loopback, through a client that does not allow private addresses (production's policy).
    const guarded = createHttpClient({
      userAgent: 'ard-registry test',
      allowPrivateAddresses: false,
      totalTimeoutMs: TIMEOUT_MS,
      resolver: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    try {
      const counts = await probeDueEntries(deps({ http: guarded, mcpHandshake: mcpLivenessHandshake(guarded) }), {
        now: () => new Date(Date.now() + 86400_000),
      });
      expect(counts).toEqual({ live: 0, unreachable: 11, dead: 0, 'no-remote-endpoint': 2, unknown: 1 });
    } finally {
      await guarded.close();
    }
    expect(await liveness('mcp-json')).toMatchObject({ state: 'unreachable', reason: 'blocked-address' });
    expect(await liveness('a2a-card')).toMatchObject({ state: 'unreachable', reason: 'blocked-address' });
    expect(scheduledHosts).toHaveLength(11);
    expect(new Set(scheduledHosts.map((h) => h.split(':')[0]))).toEqual(
      new Set([
        'mcp.test',
        'mcpsse.test',
        'deadport.test',
        'slow.test',
        'html.test',
        'agent.test',
        'broken.test',
        'skill.test',
        'gone.test',
      ]),
    );
    // Back to the loopback states for the tests below: one success ends a run of failures.
    await probeDueEntries(deps(), { now: () => new Date(Date.now() + 2 * 86400_000) });
    const back = await liveness('mcp-json');
    expect(back).toMatchObject({ state: 'live' });
    expect(back['failing-since']).toBeUndefined();
    expect(back['last-failure']).toBeDefined();
  });

  it('counts probes by probe and outcome in /metrics', async () => {
    const res = await registry.get('/metrics');
    const text = String(res.body);
    const sample = (labels: string) => Number(new RegExp(`ard_liveness_probes_total\\{${labels}\\} (\\d+)`).exec(text)?.[1] ?? 0);
    expect(sample('probe="mcp-initialize",outcome="success"')).toBe(2);
    expect(sample('probe="mcp-initialize",outcome="timeout"')).toBe(1);
    expect(sample('probe="mcp-initialize",outcome="mcp-handshake-failed"')).toBe(1);
    expect(sample('probe="a2a-card",outcome="card-missing-fields"')).toBe(1);
    expect(sample('probe="url",outcome="http-status"')).toBe(2);
    expect(sample('probe="none",outcome="stdio-only"')).toBe(1);
  });
});

describe('@liveness in the filters, the facets, Retrieve and the portal', () => {
  it('GET /agents filters on @liveness and rejects an unknown state by name', async () => {
    const live = await registry.get(`/agents?filter=${encodeURIComponent('@liveness = live')}&pageSize=50`);
    expect(live.status).toBe(200);
    expect(live.body.items.map((a: { identifier: string }) => a.identifier).sort()).toEqual(
      ['a2a-card', 'mcp-json', 'mcp-sse-stream', 'skill-ok', 'tides-b-live'].map(id),
    );
    const quiet = await registry.get(`/agents?filter=${encodeURIComponent('@liveness = no-remote-endpoint,unknown')}&pageSize=50`);
    expect(quiet.body.items.map((a: { identifier: string }) => a.identifier).sort()).toEqual(
      ['mcp-sse-transport', 'mcp-stdio', 'skill-inline'].map(id),
    );
    const bad = await registry.get(`/agents?filter=${encodeURIComponent('@liveness = alive')}`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('expected live, unreachable, dead, no-remote-endpoint, unknown');
  });

  it('POST /search filters on @liveness and @liveness.reason; POST /explore counts @liveness as a facet', async () => {
    const found = await registry.post('/search', {
      query: { text: 'liveness endpoint', filter: { '@liveness': 'unreachable' } },
      pageSize: 50,
    });
    expect(found.status).toBe(200);
    const ids = found.body.results.map((r: { identifier: string }) => r.identifier).sort();
    expect(ids).toEqual(['a2a-broken', 'mcp-dead-port', 'mcp-not-mcp', 'mcp-slow', 'skill-gone'].map(id));
    const timeouts = await registry.post('/search', { query: { text: 'liveness endpoint', filter: { '@liveness.reason': 'timeout' } } });
    expect(timeouts.body.results.map((r: { identifier: string }) => r.identifier)).toEqual([id('mcp-slow')]);
    const bad = await registry.post('/search', { query: { text: 'x', filter: { '@liveness': 'up' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("query.filter['@liveness'] values must be live, unreachable, dead, no-remote-endpoint, unknown");
    const explore = await registry.post('/explore', {
      query: { filter: { publisher: 'probe.test' } },
      resultType: { facets: [{ field: '@liveness' }] },
    });
    expect(explore.status).toBe(200);
    expect(explore.body.facets['@liveness'].buckets).toEqual([
      { value: 'unreachable', count: 6 },
      { value: 'live', count: 5 },
      { value: 'no-remote-endpoint', count: 2 },
      { value: 'unknown', count: 1 },
    ]);
  });

  it('the portal’s entry page says whether the entry answers', async () => {
    const res = await registry.get(`/entry/${encodeURIComponent(id('mcp-json'))}`, { accept: 'text/html' });
    const page = new HtmlPage(String(res.body));
    expect(page.text(page.byId('liveness-heading'))).toBe('Liveness');
    expect(page.text(page.byClass('liveness')[0] ?? null)).toBe('Answering');
    expect(page.source).toContain('the MCP handshake (initialize) with its remote endpoint');
    const stdio = await registry.get(`/entry/${encodeURIComponent(id('mcp-stdio'))}`, { accept: 'text/html' });
    const stdioPage = new HtmlPage(String(stdio.body));
    expect(stdioPage.text(stdioPage.byClass('liveness')[0] ?? null)).toBe('No remote endpoint');
    expect(stdioPage.source).toContain('the server runs over stdio where it is installed');
  });
});

describe('ranking: failing entries below live ones, long-dead ones out of /search (LIVENESS_DEMOTION, LIVENESS_DROP_AFTER_SECONDS)', () => {
  const tides = { query: { text: 'tide tables for harbour pilots', filter: { publisher: 'probe.test' } }, pageSize: 2 };

  it('ranks the unreachable entry below the live one doing the same job, at (1 - 0.3) of its score, in none and in auto', async () => {
    for (const federation of ['none', 'auto']) {
      const res = await registry.post('/search', { ...tides, federation });
      expect(res.status).toBe(200);
      const [first, second] = res.body.results;
      expect([first.identifier, second.identifier]).toEqual([id('tides-b-live'), id('tides-a-down')]);
      // The same relevance r: 100r and 100r x 0.7, each rounded.
      expect(Math.abs(second.score - first.score * 0.7)).toBeLessThanOrEqual(1);
      expect(second.score).toBeLessThan(first.score);
    }
    expect(peer.requests.length).toBeGreaterThan(0);
  });

  it('leaves an entry dead for longer than LIVENESS_DROP_AFTER_SECONDS out of /search unless the filter names @liveness; /agents lists it', async () => {
    const manifest = {
      specVersion: '1.0',
      entries: [
        entry(
          'tides-c-dead',
          SKILL,
          { displayName: 'Tide tables', url: `${server.origin('gone.test')}/tides-c` },
          'tide tables for harbour pilots',
        ),
      ],
    };
    await ingestManifest({ db: registry.ctx.db, embedder: registry.ctx.embedder as never }, manifest, { origin: 'file:dead.json' });
    const day = 86400_000;
    // Failing since 20 days ago, dead (3 days of failures) since 16 days ago: past the 7-day default.
    await probeDueEntries(deps(), { now: () => new Date(Date.now() - 20 * day) });
    await probeDueEntries(deps(), { now: () => new Date(Date.now() - 16 * day) });
    const dead = await liveness('tides-c-dead');
    expect(dead).toMatchObject({ state: 'dead', reason: 'http-status' });
    expect(Date.parse(dead['failing-since'])).toBeLessThan(Date.parse(dead.checked));

    for (const federation of ['none', 'auto']) {
      const res = await registry.post('/search', { ...tides, pageSize: 10, federation });
      expect(res.body.results.map((r: { identifier: string }) => r.identifier)).toEqual([id('tides-b-live'), id('tides-a-down')]);
    }
    const asked = await registry.post('/search', {
      query: { ...tides.query, filter: { ...tides.query.filter, '@liveness': ['dead', 'live'] } },
    });
    expect(asked.body.results.map((r: { identifier: string }) => r.identifier)).toEqual([id('tides-b-live'), id('tides-c-dead')]);
    const listed = await registry.get(`/agents?filter=${encodeURIComponent('@liveness = dead')}`);
    expect(listed.body.items.map((a: { identifier: string }) => a.identifier)).toEqual([id('tides-c-dead')]);
  });
});

describe('ranking: verified entries optionally higher (TRUST_RANK_BOOST, ARD v0.91 §4.5.2)', () => {
  it('off by default; at 0.5 a verified entry ranks and scores at r + 0.5 x (1 - r) above its unverified twin', async () => {
    const manifest = {
      specVersion: '1.0',
      entries: ['berths-a-plain', 'berths-b-verified'].map((name) =>
        entry(name, SKILL, { displayName: 'Berth planner', data: { steps: 1 } }, 'plans berths for container ships'),
      ),
    };
    await ingestManifest({ db: registry.ctx.db, embedder: registry.ctx.embedder as never }, manifest, { origin: 'file:berths.json' });
    await sql`INSERT INTO entry_verification (identifier, content_hash, state, reason, method, detail, checked_at, next_check_at)
      SELECT identifier, content_hash, 'verified', NULL, 'jws+did:web', '', now(), now() + interval '1 day'
      FROM entries WHERE identifier = ${id('berths-b-verified')}`.execute(registry.ctx.db);
    const query = { query: { text: 'plans berths for container ships', filter: { publisher: 'probe.test' } }, pageSize: 2 };
    const plain = await registry.post('/search', query);
    expect(plain.body.results.map((r: { identifier: string }) => r.identifier)).toEqual([id('berths-a-plain'), id('berths-b-verified')]);
    expect(plain.body.results[0].score).toBe(plain.body.results[1].score);

    const boosted = await startTestRegistry({
      database: registry.database,
      config: { trustPollMs: 0, trustRankBoost: 0.5 },
      context: { embedder: fakeEmbedder() },
    });
    try {
      const res = await boosted.post('/search', query);
      const [first, second] = res.body.results;
      expect([first.identifier, second.identifier]).toEqual([id('berths-b-verified'), id('berths-a-plain')]);
      expect(second.score).toBe(plain.body.results[0].score);
      // The twins' text is one: the plain twin's relevance and score confidence are the verified one's.
      const [twin] = await matchText(
        { db: registry.ctx.db, embedder: registry.ctx.embedder },
        query.query.text,
        normaliseFilter(query.query.filter),
      );
      const r = twin.relevance;
      const confidence = scoreConfidence(twin.lexical, twin.agreement);
      expect(Math.abs(first.score - 100 * (r + 0.5 * (1 - r)) * confidence)).toBeLessThanOrEqual(1);
      expect(first.score).toBeLessThanOrEqual(100);
    } finally {
      await boosted.close();
    }
  });
});
