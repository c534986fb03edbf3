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
    registry = await startTestRegistry({ withDemoCorpus: false, config: { adminToken: TOKEN, crawlAllowPrivate: true, crawl: { ...crawl, schedulerEnabled: false } } });
    off = await startTestRegistry({ withDemoCorpus: false, config: { adminToken: null, crawl: { ...crawl, schedulerEnabled: false } } });
  });

  afterAll(async () => {
    await registry?.close();
    await off?.close();
    await server?.close();
  });

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
    expect(crawled.status).toBe(200);
    expect(crawled.body).toMatchObject({ status: 'ok', discoveredVia: 'url', httpStatus: 200, counts: { added: 2, rejected: 0 } });

    const one = await registry.get(`/admin/sources/${id}`, auth);
    expect(one.body.lastCrawl).toMatchObject({ status: 'ok', httpStatus: 200, error: null, report: { counts: { added: 2 } } });
    const list = await registry.get('/admin/sources', auth);
    expect(list.body.sources.map((s: { id: string }) => s.id)).toContain(id);

    const search = await registry.post('/search', { query: { text: 'admin test alpha skill' }, pageSize: 5 });
    expect(search.status).toBe(200);
    expect(JSON.stringify(search.body)).toContain('urn:air:127.0.0.1:admin:alpha');

    expect((await registry.post(`/admin/sources/${id}/crawl`, undefined, { authorization: 'Bearer nope' })).status).toBe(401);
    const del = await fetch(`${registry.url}/admin/sources/${id}`, { method: 'DELETE', headers: auth });
    expect(del.status).toBe(204);
    expect((await registry.get(`/admin/sources/${id}`, auth)).status).toBe(404);
    const rows = await registry.ctx.db.selectFrom('entries').select(['identifier', 'deleted_at']).where('identifier', 'like', 'urn:air:127.0.0.1:admin:%').execute();
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.deleted_at instanceof Date)).toBe(true);
    expect((await registry.post('/admin/sources/999999/crawl', undefined, auth)).status).toBe(404);
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
      Object.assign(process.env, { DATABASE_URL: registry.database.url, CRAWL_ALLOW_PRIVATE: 'true', CRAWL_HOST_DELAY_MS: '0', CRAWL_TIMEOUT_MS: '1500' });
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
    const row = await registry.ctx.db.selectFrom('entries').select(['origin', 'source_id']).where('identifier', '=', 'urn:air:127.0.0.1:admin:from-cli').executeTakeFirst();
    expect(row?.origin).toBe(`${server.origin('127.0.0.1')}/cli.json`);
    expect(row?.source_id).not.toBeNull();
  });
});
