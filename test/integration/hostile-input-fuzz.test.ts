// Property tests over every route and over the crawler's inputs (catalog bodies, headers, robots.txt,
// HTML), bounded in time (~30-60 s on a busy machine). Whatever arrives: no 5xx, no freeze of the event
// loop (perf_hooks.monitorEventLoopDelay, its figures printed), and no live entry lost.
import fc from 'fast-check';
import { monitorEventLoopDelay, PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';
import { loadConfig } from '../../src/config';
import { getSource, upsertSource } from '../../src/crawl';
import { anyJson, encodeAny, nastyString, queryString, searchBody } from '../helpers/arbitraries';
import { fakeEmbedder } from '../helpers/fake-embedder';
import { createTestCrawlClient, startPublisherServer, type PublisherServer } from '../helpers/publisher-server';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

/** A stall this long is a freeze (before the cuts, one 128 kB text froze the registry for 46 s). */
const FREEZE_MS = 1500;

const TOKEN = 'fuzz-admin-token';

let registry: TestRegistry;
let server: PublisherServer;
let delay: IntervalHistogram;
let gcObserver: PerformanceObserver;
const gcPauses: number[] = [];
/** The longest delay of this process's event loop while it does nothing: what a busy machine adds on its own. */
let idleStallMs = 0;

beforeAll(async () => {
  server = await startPublisherServer();
  const crawl = { ...loadConfig().crawl, hostDelayMs: 0, timeoutMs: 2000, schedulerEnabled: false };
  registry = await startTestRegistry({
    config: {
      rateLimitPerMinute: 0,
      adminToken: TOKEN,
      adminAuthFailuresPerMinute: 100_000,
      crawlAllowPrivate: true,
      requestTimeoutMs: 30_000,
      crawl,
    },
    context: { embedder: fakeEmbedder(), crawlHttp: createTestCrawlClient((h) => h.endsWith('.test')) },
  });
  delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  await new Promise((resolve) => setTimeout(resolve, 2000));
  delay.disable();
  idleStallMs = delay.max / 1e6;
  gcObserver = new PerformanceObserver((list) => gcPauses.push(...list.getEntries().map((e) => e.duration)));
  gcObserver.observe({ entryTypes: ['gc'] });
});

afterAll(async () => {
  gcObserver?.disconnect();
  await registry?.close();
  await server?.close();
});

async function liveCount(): Promise<number> {
  const row = await registry.ctx.db
    .selectFrom('entries')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Runs `body` with the event-loop delay measured and printed beside what the machine and the runtime cause on
 * their own (the idle process's longest delay, the longest garbage collection); fails on a freeze, a stall past
 * FREEZE_MS beyond that. The 100 ms target is a benchmark's (`npm run bench:hostile`, docs/ingestion.md): on this
 * shared machine a stall of a few hundred ms comes and goes with the load of the other test files.
 */
async function withoutStalls(body: () => Promise<void>): Promise<void> {
  delay.reset();
  gcPauses.length = 0;
  delay.enable();
  try {
    await body();
  } finally {
    delay.disable();
  }
  const stallMs = delay.max / 1e6;
  const allowance = Math.max(idleStallMs, ...gcPauses);
  process.stdout.write(
    `event-loop delay max ${stallMs.toFixed(1)} ms (idle ${idleStallMs.toFixed(1)} ms, longest GC ${Math.max(0, ...gcPauses).toFixed(1)} ms)\n`,
  );
  expect(stallMs).toBeLessThan(FREEZE_MS + allowance);
}

function expectClientOrSuccess(method: string, path: string, status: number, text: string) {
  if (status >= 500) throw new Error(`${method} ${path} answered ${status}: ${text.slice(0, 300)}`);
  if (status >= 400 && !path.startsWith('/mcp')) {
    const body = JSON.parse(text) as { errorCode?: unknown; message?: unknown };
    expect(typeof body.errorCode).toBe('string');
    expect(typeof body.message).toBe('string');
  }
}

/** A path segment as a hostile client sends it: encoded, raw, or with broken escapes. */
const segment = fc.oneof(
  nastyString.map(encodeAny),
  fc.constantFrom(
    '%',
    '%ff',
    '%fe%ff',
    '%2',
    '%00',
    '..',
    '%2e%2e',
    'a%2Fb',
    'urn:air:github.com:aliyun:alibabacloud-adb-mysql-mcp-server',
    '1',
    'abc',
  ),
);

const route = fc.oneof(
  fc.record({
    method: fc.constantFrom('GET', 'HEAD'),
    path: fc.constantFrom(
      '/healthz',
      '/readyz',
      '/metrics',
      '/llms.txt',
      '/sitemap.xml',
      '/.well-known/ai-catalog.json',
      '/agents',
      '/mcp',
    ),
  }),
  fc.record({ method: fc.constantFrom('GET', 'HEAD'), path: segment.map((s) => `/agents/${s}`) }),
  fc.record({ method: fc.constantFrom('GET', 'HEAD'), path: fc.tuple(segment, segment).map(([a, b]) => `/library/${a}/${b}.json`) }),
  fc.record({ method: fc.constantFrom('GET', 'HEAD', 'DELETE', 'POST'), path: segment.map((s) => `/admin/sources/${s}`) }),
  fc.record({ method: fc.constant('POST'), path: segment.map((s) => `/admin/sources/${s}/crawl`) }),
  fc.record({
    method: fc.constantFrom('POST', 'PUT', 'PATCH', 'OPTIONS'),
    path: fc.constantFrom('/search', '/explore', '/mcp', '/admin/sources', '/agents', '/ADMIN/sources', '/Search'),
  }),
);

const body = fc.oneof(
  searchBody.map((b) => JSON.stringify(b)),
  anyJson.map((b) => JSON.stringify(b) ?? 'null'),
  fc
    .record(
      {
        location: fc.oneof(nastyString, fc.constantFrom('http://x.test:0/', 'fuzz-other.test', 'ftp://x.test/')),
        intervalSeconds: anyJson,
        trusted: anyJson,
      },
      { requiredKeys: [] },
    )
    .map((b) => JSON.stringify(b)),
  fc
    .record({ resultType: fc.oneof(fc.constantFrom('tags', 'type', 'publisher'), nastyString), query: anyJson }, { requiredKeys: [] })
    .map((b) => JSON.stringify(b)),
  fc.constantFrom(
    '[]',
    '[{}]',
    '{',
    '\u0000',
    '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"x"}}}',
  ),
  fc.string({ unit: 'binary', maxLength: 200 }),
);

const headers = fc.record(
  {
    'content-type': fc.constantFrom(
      'application/json',
      'application/json; charset=latin1',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/ai-catalog+json',
      'multipart/form-data',
    ),
    'content-encoding': fc.constantFrom('gzip', 'br', 'deflate', 'identity', 'zstd', 'x-nonsense'),
    authorization: fc.oneof(
      fc.constant(`Bearer ${TOKEN}`),
      nastyString.map((s) => `Bearer ${s.replace(/[^\x21-\x7e]/g, '')}x`),
    ),
    accept: fc.constantFrom('application/json, text/event-stream', '*/*', 'text/html'),
  },
  { requiredKeys: [] },
);

describe('every route, hostile requests', () => {
  it('never answers 5xx, never stalls the event loop, never loses a live entry', async () => {
    const before = await liveCount();
    await withoutStalls(async () => {
      await fc.assert(
        fc.asyncProperty(
          route,
          fc.option(queryString, { nil: undefined }),
          fc.option(body, { nil: undefined }),
          headers,
          async ({ method, path }, query, payload, sent) => {
            // A numeric id would name a real source: deleting or re-crawling one is not hostile input.
            if (/^\/admin\/sources\/\d+(\/crawl)?$/.test(path)) return;
            const url = `${registry.url}${path}${query ? `?${query}` : ''}`;
            const withBody = payload !== undefined && method !== 'GET' && method !== 'HEAD';
            const res = await fetch(url, {
              method,
              headers: withBody ? sent : { authorization: sent.authorization ?? '' },
              body: withBody ? payload : undefined,
            });
            const text = await res.text();
            if (method !== 'HEAD') expectClientOrSuccess(method, path, res.status, text);
            else if (res.status >= 500) throw new Error(`HEAD ${path} answered ${res.status}`);
          },
        ),
        { numRuns: 400, interruptAfterTimeLimit: 25_000 },
      );
    });
    expect(await liveCount()).toBe(before);
  });
});

describe("the crawler's inputs: catalog bodies, headers, robots.txt and HTML", () => {
  const base = Array.from({ length: 5 }, (_, i) => ({
    identifier: `urn:air:fuzz.test:tools:t${i}`,
    displayName: `Fuzz tool ${i}`,
    type: 'application/ai-skill',
    url: `https://fuzz.test/skills/${i}`,
    description: `The fuzz tool number ${i}`,
  }));
  let sourceId = '';
  let served: { robots: string; status: number; headers: Record<string, string>; catalog: Buffer; home: string; wellKnown: boolean } = {
    robots: '',
    status: 200,
    headers: {},
    catalog: Buffer.from(JSON.stringify({ specVersion: '1.0', entries: base })),
    home: '',
    wellKnown: true,
  };

  beforeAll(async () => {
    server.route('fuzz.test', '/robots.txt', (_req, res) => res.end(served.robots));
    server.route('fuzz.test', '/.well-known/ai-catalog.json', (_req, res) => {
      if (!served.wellKnown) {
        res.writeHead(404);
        return res.end();
      }
      res.writeHead(served.status, { 'content-type': 'application/json', ...served.headers });
      res.end(served.catalog);
    });
    server.route('fuzz.test', '/catalog.json', (_req, res) => {
      res.writeHead(served.status, { 'content-type': 'application/json', ...served.headers });
      res.end(served.catalog);
    });
    server.route('fuzz.test', '/', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(served.home);
    });
    const { row } = await upsertSource(registry.ctx.db, { location: `${server.origin('fuzz.test')}/`, intervalSeconds: 3600 });
    sourceId = String(row.id);
    expect((await registry.ctx.crawler.crawlNow(sourceId)).counts.added).toBe(5);
  });

  /** A catalog body: the listed entries with fields replaced by anything (identifiers kept), or anything at all. */
  const catalogBody = fc.oneof(
    fc
      .array(
        fc.tuple(
          fc.constantFrom('displayName', 'type', 'url', 'description', 'tags', 'metadata', 'data', 'version', 'updatedAt', 'extra'),
          anyJson,
        ),
        { maxLength: 4 },
      )
      .map((changes) =>
        Buffer.from(JSON.stringify({ specVersion: '1.0', entries: base.map((e) => ({ ...e, ...Object.fromEntries(changes) })) })),
      ),
    // Never `entries: []`: a catalog that lists nothing any more rightly removes what it listed.
    fc.tuple(anyJson, fc.option(anyJson)).map(([entries, host]) =>
      Buffer.from(
        JSON.stringify({
          specVersion: '1.0',
          entries: Array.isArray(entries) && entries.length === 0 ? [1] : entries,
          ...(host === null ? {} : { host }),
        }),
      ),
    ),
    fc
      .array(anyJson, { maxLength: 6 })
      .map((entries) => Buffer.from(JSON.stringify({ specVersion: '1.0', entries: [...base, ...entries] }))),
    anyJson.map((value) => Buffer.from(JSON.stringify(value) ?? '')),
    fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
    fc.constantFrom(
      Buffer.from([0]),
      Buffer.from('\uFEFF{"specVersion":"1.0","entries":[1]}'),
      Buffer.from('{"specVersion":"1.0","entries":[{}]}'),
    ),
  );
  const robots = fc.oneof(
    fc.constant(''),
    fc
      .array(
        fc.oneof(
          fc.constantFrom(
            'User-agent: *',
            'User-agent: ard-registry',
            'Disallow: /',
            'Allow: /',
            'Disallow: /.well-known/',
            'Crawl-delay: 0',
            'Agentmap: /catalog.json',
            'Agentmap: %ff',
            'Sitemap: ::',
          ),
          nastyString,
        ),
        { maxLength: 8 },
      )
      .map((lines) => lines.join('\n')),
  );
  const html = fc.oneof(
    nastyString,
    fc
      .tuple(nastyString, fc.constantFrom('/catalog.json', '%ff', 'javascript:x', '', '//fuzz.test/catalog.json'))
      .map(([noise, href]) => `<html><head>${noise}<link rel="ai-catalog" href="${href}"><base href="${noise}"></head><body>${noise}`),
  );
  const responseHeaders = fc.record(
    {
      etag: fc.oneof(
        fc.constantFrom('"v1"', 'W/"x"', '*'),
        nastyString.map((s) => s.replace(/[^\x20-\x7e]/g, '')),
      ),
      'last-modified': fc.constantFrom('yesterday', 'Tue, 01 Dec 2026 00:00:00 GMT', ''),
      'content-type': fc.constantFrom('text/html', 'application/json', 'application/octet-stream'),
    },
    { requiredKeys: [] },
  );

  it('every crawl ends recorded with its lease released, the event loop free, and no base entry lost', async () => {
    await withoutStalls(async () => {
      await fc.assert(
        fc.asyncProperty(
          catalogBody,
          robots,
          html,
          responseHeaders,
          fc.constantFrom(200, 200, 200, 304, 404, 500, 503),
          fc.boolean(),
          async (catalog, robotsText, home, headers, status, wellKnown) => {
            served = { robots: robotsText, status, headers, catalog, home, wellKnown };
            const report = await registry.ctx.crawler.crawlNow(sourceId);
            expect(['ok', 'partial', 'failed', 'not-modified']).toContain(report.status);
            const source = await getSource(registry.ctx.db, sourceId);
            expect(source?.lease_until).toBeNull();
            expect(source?.last_status).toBe(report.status);
            // Every base identifier stays live: each body above lists them all, or is no readable catalog.
            const live = await registry.ctx.db
              .selectFrom('entries')
              .select('identifier')
              .where(
                'identifier',
                'in',
                base.map((e) => e.identifier),
              )
              .where('deleted_at', 'is', null)
              .execute();
            expect(live.map((r) => r.identifier).sort()).toEqual(base.map((e) => e.identifier).sort());
          },
        ),
        { numRuns: 80, interruptAfterTimeLimit: 25_000 },
      );
    });
  });
});
