import { ALEXANDRIA_MEDIA_TYPE } from '../../src/alexandria/mapping';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';
import { createOpenApiBackend } from '../../src/http/openapi';

let registry: TestRegistry;
const api = createOpenApiBackend();

beforeAll(async () => {
  registry = await startTestRegistry();
  await api.init();
});
afterAll(async () => {
  await registry.close();
});

function expectValidSearchResponse(body: unknown) {
  const validation = api.validateResponse(body, 'searchAgents', 200);
  expect(validation.errors ?? []).toEqual([]);
}

describe('POST /search (ARD §7.2)', () => {
  it('ranks the entry named in the query first and returns full entries with score and source', async () => {
    const res = await registry.post('/search', { query: { text: 'kubernetes cluster management' }, pageSize: 5 });
    expect(res.status).toBe(200);
    expectValidSearchResponse(res.body);
    expect(res.body.results.length).toBe(5);
    expect(res.body.results[0].displayName).toMatch(/kube|k8s/i);
    for (const r of res.body.results) {
      expect(Number.isInteger(r.score)).toBe(true);
      expect(r.score).toBeGreaterThanOrEqual(0);
      expect(r.score).toBeLessThanOrEqual(100);
      expect(r.source).toBe('http://registry.test/');
    }
    const scores = res.body.results.map((r: { score: number }) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('filter: OR within a key, AND across keys, a bare scalar is a one-element array (ARD §7.1)', async () => {
    const both = await registry.post('/search', {
      query: { text: 'database', filter: { tags: ['postgres', 'mysql'], type: 'application/mcp-server-card+json' } },
      pageSize: 100,
    });
    expect(both.status).toBe(200);
    expect(both.body.results.length).toBeGreaterThan(1);
    for (const r of both.body.results) {
      expect(r.type).toBe('application/mcp-server-card+json');
      expect(r.tags.some((t: string) => t === 'postgres' || t === 'mysql')).toBe(true);
    }
    const tags = new Set(both.body.results.flatMap((r: { tags: string[] }) => r.tags));
    expect(tags.has('postgres') && tags.has('mysql')).toBe(true);
  });

  it('filter: publisher is derived from the URN (ARD §7.1)', async () => {
    const res = await registry.post('/search', { query: { text: 'agent', filter: { publisher: 'a2aregistry.org' } }, pageSize: 50 });
    expect(res.status).toBe(200);
    expect(res.body.results.length).toBeGreaterThan(0);
    for (const r of res.body.results) expect(r.identifier.split(':')[2]).toBe('a2aregistry.org');
  });

  it('filter: metadata.* fields are filterable', async () => {
    const res = await registry.post('/search', { query: { text: 'github', filter: { 'metadata.category': 'devops' } }, pageSize: 50 });
    expect(res.status).toBe(200);
    expect(res.body.results.length).toBeGreaterThan(0);
    for (const r of res.body.results) expect(r.metadata.category).toBe('devops');
  });

  it('rejects an unsupported filter path with 400 naming it', async () => {
    const res = await registry.post('/search', { query: { text: 'x', filter: { colour: 'blue' } } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorCode: 'INVALID_ARGUMENT', message: expect.stringContaining("'colour'") });
  });

  it('pages continue the same ranked list with no duplicates or gaps', async () => {
    const all = await registry.post('/search', { query: { text: 'search the web' }, pageSize: 30 });
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await registry.post('/search', {
        query: { text: 'search the web' },
        pageSize: 30 / 3,
        ...(token ? { pageToken: token } : {}),
      });
      // pageSize must stay the same across pages: a 10-per-page walk over the 30-list
      expect(page.status).toBe(200);
      seen.push(...page.body.results.map((r: { identifier: string }) => r.identifier));
      token = page.body.pageToken;
    } while (token && seen.length < 30);
    expect(seen).toEqual(all.body.results.map((r: { identifier: string }) => r.identifier));
  });

  it('the last page carries no pageToken, and the pages together are the whole ranked list', async () => {
    const all = await registry.post('/search', { query: { text: 'kubernetes cluster' }, pageSize: 100 });
    expect(all.body.pageToken).toBeUndefined();
    const total = all.body.results.length;
    expect(total).toBeGreaterThan(5);
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await registry.post('/search', {
        query: { text: 'kubernetes cluster' },
        pageSize: 5,
        ...(token ? { pageToken: token } : {}),
      });
      expect(page.body.results.length).toBe(Math.min(5, total - seen.length));
      seen.push(...page.body.results.map((r: { identifier: string }) => r.identifier));
      token = page.body.pageToken;
      pages++;
    } while (token && pages < 50);
    expect(seen).toEqual(all.body.results.map((r: { identifier: string }) => r.identifier));
    expect(pages).toBe(Math.ceil(total / 5));
  });

  it('federation auto with no peer known answers page by page what none answers', async () => {
    const walk = async (federation: string) => {
      const out: Array<[string, number]> = [];
      let token: string | undefined;
      do {
        const page = await registry.post('/search', {
          query: { text: 'send messages to a team chat' },
          pageSize: 4,
          federation,
          ...(token ? { pageToken: token } : {}),
        });
        expect(page.status).toBe(200);
        out.push(...page.body.results.map((r: { identifier: string; score: number }) => [r.identifier, r.score] as [string, number]));
        token = page.body.pageToken;
      } while (token && out.length < 200);
      return out;
    };
    const none = await walk('none');
    expect(none.length).toBeGreaterThan(4);
    expect(await walk('auto')).toEqual(none);
  });

  it('without a type filter, library records keep their order and score under what they score when the type is chosen (SEARCH_TYPE_WEIGHTS default)', async () => {
    const text = 'knowledge graph memory';
    const chosen = await registry.post('/search', {
      query: { text, filter: { type: ALEXANDRIA_MEDIA_TYPE } },
      pageSize: 100,
      federation: 'none',
    });
    const scoreOf = new Map<string, number>(chosen.body.results.map((r: { identifier: string; score: number }) => [r.identifier, r.score]));
    expect(scoreOf.size).toBeGreaterThan(3);
    for (const federation of ['none', 'auto']) {
      const res = await registry.post('/search', { query: { text }, pageSize: 100, federation });
      const library = res.body.results.filter((r: { type: string }) => r.type === ALEXANDRIA_MEDIA_TYPE) as Array<{
        identifier: string;
        score: number;
      }>;
      expect(library.length).toBeGreaterThan(3);
      // One weight for every record: their order is the chosen type's, each below its score there (the exact
      // relevance x weight is pinned in search-storage.test.ts; the score's confidence reads the query's own
      // candidates, which the filter narrows).
      const chosenOrder = [...scoreOf.keys()].filter((id) => library.some((r) => r.identifier === id));
      expect(library.map((r) => r.identifier)).toEqual(chosenOrder);
      expect(library.every((r) => r.score < scoreOf.get(r.identifier)!)).toBe(true);
    }
  });

  it('rejects a tampered page token and one reused with another query (400)', async () => {
    const first = await registry.post('/search', { query: { text: 'weather forecast' }, pageSize: 2 });
    const token: string = first.body.pageToken;
    expect(token).toBeTruthy();
    const tampered = token.slice(0, 5) + (token[5] === 'A' ? 'B' : 'A') + token.slice(6);
    const bad = await registry.post('/search', { query: { text: 'weather forecast' }, pageSize: 2, pageToken: tampered });
    expect(bad.status).toBe(400);
    expect(bad.body.errorCode).toBe('INVALID_ARGUMENT');
    expect(bad.body.message).toMatch(/pageToken/);
    const other = await registry.post('/search', { query: { text: 'stock prices' }, pageSize: 2, pageToken: token });
    expect(other.status).toBe(400);
    expect(other.body.message).toMatch(/different query/);
  });

  it('validates the request against the OpenAPI document with messages naming the field', async () => {
    const missing = await registry.post('/search', { query: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ errorCode: 'INVALID_ARGUMENT', message: expect.stringContaining("'text'") });
    const extra = await registry.post('/search', { query: { text: 'x' }, colour: 1 });
    expect(extra.status).toBe(400);
    expect(extra.body.message).toContain("'colour'");
    const badJson = await registry.post('/search', '{"query":');
    expect(badJson.status).toBe(400);
    expect(badJson.body.errorCode).toBe('INVALID_ARGUMENT');
    const big = await registry.post('/search', { query: { text: 'x' }, pageSize: 101 });
    expect(big.status).toBe(400);
    expect(big.body.message).toMatch(/pageSize/);
  });

  it('answers unknown routes with NOT_FOUND in the ARD error shape', async () => {
    const res = await registry.get('/nope');
    expect(res.status).toBe(404);
    expect(res.body.errorCode).toBe('NOT_FOUND');
  });
});
