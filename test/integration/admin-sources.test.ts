/**
 * /admin/sources over real HTTP: bearer-token guard, register -> crawl -> report -> delete, the
 * scheduler picking a registered source up, and `ard-registry ingest <url>` / `sources` from the CLI.
 */
import { main } from '../../src/cli';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';
import { startPublisherServer, type PublisherServer } from '../helpers/publisher-server';
import { loadConfig } from '../../src/config';
import { startCrawlScheduler } from '../../src/crawl';

const TOKEN = 'test-admin-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

function catalog(names: string[]) {
  return {
    specVersion: '1.0',
    entries: names.map((name) => ({
      identifier: `urn:air:127.0.0.1:admin:${name}`,
      displayName: `Admin test ${name}`,
      type: 'application/ai-skill',
      url: `https://127.0.0.1/skills/${name}`,
      description: `A skill named ${name} for the admin flow`,
    })),
  };
}

describe('admin sources API', () => {
  let registry: TestRegistry;
  let off: TestRegistry;
  let server: PublisherServer;

  beforeAll(async () => {
    server = await startPublisherServer();
    const crawl = { ...loadConfig().crawl, hostDelayMs: 0, timeoutMs: 1500, pollMs: 100 };
    // The scheduler is started by hand in its own test, so on-demand crawls here never race it.
    registry = await startTestRegistry({
      withDemoCorpus: false,
      config: { adminToken: TOKEN, crawlAllowPrivate: true, crawl: { ...crawl, schedulerEnabled: false } },
    });
    off = await startTestRegistry({
      withDemoCorpus: false,
      config: { adminToken: null, adminAuthFailuresPerMinute: 5, crawl: { ...crawl, schedulerEnabled: false } },
    });
  });

  afterAll(async () => {
    await registry?.close();
    await off?.close();
    await server?.close();
  });

  /** Follows a crawl started with 202 until its source is no longer crawling; the view then. */
  async function crawlEnded(id: string) {
    for (let i = 0; i < 400; i++) {
      const view = await registry.get(`/admin/sources/${id}`, auth);
      if (!view.body.crawling) return view.body;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`source ${id} still crawling`);
  }

  it.each([
    ['no Authorization header', {}],
    ['a wrong token', { authorization: 'Bearer not-the-token' }],
    ['a token of another scheme', { authorization: `Basic ${TOKEN}` }],
  ])('answers 401 UNAUTHENTICATED to %s (ARD Appendix B)', async (_label, headers) => {
    const res = await registry.get('/admin/sources', headers as Record<string, string>);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ errorCode: 'UNAUTHENTICATED', message: expect.any(String) });
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const write = await registry.post('/admin/sources', { location: 'acme.com' }, headers as Record<string, string>);
    expect(write.status).toBe(401);
  });

  it('is off (401) when no ADMIN_TOKEN is configured, whatever the token', async () => {
    const res = await off.get('/admin/sources', auth);
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/no ADMIN_TOKEN/);
  });

  it('rejects a location that is neither a domain nor an http(s) URL', async () => {
    const res = await registry.post('/admin/sources', { location: 'ftp://x.test/catalog.json' }, auth);
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('INVALID_ARGUMENT');
  });

  it('registers a source, crawls it on demand, reports it, and deletes it (entries tombstoned)', async () => {
    server.json('127.0.0.1', '/catalog.json', catalog(['alpha', 'beta']));
    const location = `${server.origin('127.0.0.1')}/catalog.json`;
    const created = await registry.post('/admin/sources', { location, intervalSeconds: 7200 }, auth);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ location, intervalSeconds: 7200, trusted: false });
    const id = created.body.id as string;

    const crawled = await registry.post(`/admin/sources/${id}/crawl`, undefined, auth);
    expect(crawled.status).toBe(202);
    expect(crawled.headers.get('location')).toBe(`/admin/sources/${id}`);
    expect(crawled.body).toMatchObject({ id, crawling: true, crawlStarted: true });

    const one = await crawlEnded(id);
    expect(one.lastCrawl).toMatchObject({
      status: 'ok',
      httpStatus: 200,
      error: null,
      report: { status: 'ok', discoveredVia: 'url', counts: { added: 2, rejected: 0 } },
    });
    const list = await registry.get('/admin/sources', auth);
    expect(list.body.sources.map((s: { id: string }) => s.id)).toContain(id);

    const search = await registry.post('/search', { query: { text: 'admin test alpha skill' }, pageSize: 5 });
    expect(search.status).toBe(200);
    expect(JSON.stringify(search.body)).toContain('urn:air:127.0.0.1:admin:alpha');

    expect((await registry.post(`/admin/sources/${id}/crawl`, undefined, { authorization: 'Bearer nope' })).status).toBe(401);
    const del = await fetch(`${registry.url}/admin/sources/${id}`, { method: 'DELETE', headers: auth });
    expect(del.status).toBe(204);
    expect((await registry.get(`/admin/sources/${id}`, auth)).status).toBe(404);
    const rows = await registry.ctx.db
      .selectFrom('entries')
      .select(['identifier', 'deleted_at'])
      .where('identifier', 'like', 'urn:air:127.0.0.1:admin:%')
      .execute();
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.deleted_at instanceof Date)).toBe(true);
    expect((await registry.post('/admin/sources/999999/crawl', undefined, auth)).status).toBe(404);
  });

  it('answers 202 at once for a crawl longer than the request deadline; GET shows it running, then its result', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    server.route('127.0.0.1', '/held.json', (_req, res) => {
      void held.then(() => res.end(JSON.stringify(catalog(['held']))));
    });
    const created = await registry.post('/admin/sources', { location: `${server.origin('127.0.0.1')}/held.json` }, auth);
    const id = created.body.id as string;
    const started = Date.now();
    const crawled = await registry.post(`/admin/sources/${id}/crawl`, undefined, auth);
    expect(crawled.status).toBe(202);
    expect(Date.now() - started).toBeLessThan(registry.ctx.config.requestTimeoutMs);
    // A second request while it runs starts nothing and points at the same crawl (never a 503).
    const again = await registry.post(`/admin/sources/${id}/crawl`, undefined, auth);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ id, crawling: true, crawlStarted: false });
    const running = await registry.get(`/admin/sources/${id}`, auth);
    expect(running.body).toMatchObject({ crawling: true, lastCrawl: null });
    release();
    const done = await crawlEnded(id);
    expect(done.lastCrawl).toMatchObject({ status: 'ok', report: { counts: { added: 1 } } });
  });

  it.each([
    ['an unknown field', { location: 'acme.com', colour: 'red' }, /unknown field 'colour'/],
    ['port 0 in a URL', { location: 'http://acme.com:0/catalog.json' }, /port 0/],
    ['port 0 after a domain', { location: 'acme.com:0' }, /port 0/],
    ['an array body', [{ location: 'acme.com' }], /body must be/],
  ])('POST /admin/sources rejects %s with 400', async (_label, body, message) => {
    const res = await registry.post('/admin/sources', body, auth);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorCode: 'INVALID_ARGUMENT', message: expect.stringMatching(message) });
  });

  it.each([
    ['GET', '/admin/sources/%ff', 400],
    ['DELETE', '/admin/sources/%ff', 400],
    ['POST', '/admin/sources/abc/crawl', 404],
    ['GET', '/admin/sources/abc', 404],
    ['POST', '/admin/sources/99999999999999999999999/crawl', 404],
  ])('%s %s is a %d in the ARD error shape, never a 500', async (method, path, status) => {
    const res = await fetch(`${registry.url}${path}`, { method, headers: auth });
    expect(res.status).toBe(status);
    expect(await res.json()).toEqual({ errorCode: status === 404 ? 'NOT_FOUND' : 'INVALID_ARGUMENT', message: expect.any(String) });
  });

  it('matches admin paths exactly: /ADMIN/sources is not an admin route', async () => {
    const res = await registry.get('/ADMIN/sources', auth);
    expect(res.status).toBe(404);
    expect(res.body.errorCode).toBe('NOT_FOUND');
  });

  it('rate-limits failed authentication per client: 429 with Retry-After after ADMIN_AUTH_FAILURES_PER_MINUTE', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await off.get('/admin/sources', { authorization: `Bearer guess-${i}` })).status);
    // Five failures a minute on `off`, one of them made by the test that finds admin off.
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429, 429, 429]);
    const limited = await off.get('/admin/sources', auth);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ errorCode: 'RATE_LIMIT_EXCEEDED', message: expect.stringMatching(/failed admin authentications/) });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('the scheduler crawls a newly registered source, and /healthz answers meanwhile', async () => {
    const { ctx } = registry;
    const scheduler = startCrawlScheduler({ db: ctx.db, crawler: ctx.crawler, config: ctx.config.crawl, logger: ctx.logger });
    try {
      server.route('127.0.0.1', '/slow.json', (_req, res) => {
        setTimeout(() => res.end(JSON.stringify(catalog(['scheduled']))), 300);
      });
      const created = await registry.post('/admin/sources', { location: `${server.origin('127.0.0.1')}/slow.json` }, auth);
      expect(created.body.intervalSeconds).toBe(3600);
      let view = created.body;
      for (let i = 0; i < 100 && !view.lastCrawl; i++) {
        expect((await registry.get('/healthz')).status).toBe(200);
        await new Promise((r) => setTimeout(r, 50));
        view = (await registry.get(`/admin/sources/${created.body.id}`, auth)).body;
      }
      expect(view.lastCrawl).toMatchObject({ status: 'ok', report: { counts: { added: 1 } } });
    } finally {
      await scheduler.stop();
    }
  });

  it('ard-registry ingest <url> crawls into the configured database; sources lists the report', async () => {
    server.json('127.0.0.1', '/cli.json', catalog(['from-cli']));
    const saved = { ...process.env };
    const out: string[] = [];
    const spyOut = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
    const spyErr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
    try {
      Object.assign(process.env, {
        DATABASE_URL: registry.database.url,
        CRAWL_ALLOW_PRIVATE: 'true',
        CRAWL_HOST_DELAY_MS: '0',
        CRAWL_TIMEOUT_MS: '1500',
      });
      expect(await main(['ingest', `${server.origin('127.0.0.1')}/cli.json`])).toBe(0);
      expect(await main(['sources'])).toBe(0);
    } finally {
      spyOut.mockRestore();
      spyErr.mockRestore();
      process.env = saved;
    }
    const text = out.join('');
    expect(text).toMatch(/fetched http:\/\/127\.0\.0\.1:\d+\/cli\.json \(HTTP 200\): 1 entries/);
    expect(text).toMatch(/\/cli\.json: ok .*1 entries: 1 added, 0 updated, 0 unchanged, 0 removed, 0 rejected/);
    expect(text).toMatch(/\[\d+\] http:\/\/127\.0\.0\.1:\d+\/cli\.json every 3600s/);
    const row = await registry.ctx.db
      .selectFrom('entries')
      .select(['origin', 'source_id'])
      .where('identifier', '=', 'urn:air:127.0.0.1:admin:from-cli')
      .executeTakeFirst();
    expect(row?.origin).toBe(`${server.origin('127.0.0.1')}/cli.json`);
    expect(row?.source_id).not.toBeNull();
  });
});
