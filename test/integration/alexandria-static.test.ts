// The Alexandria static transport (llms.txt, sitemap.xml, one JSON document per record) and the registry's
// own /.well-known/ai-catalog.json, on a real registry over real Postgres.
import { type AlexandriaLibrary, loadAlexandriaLibrary } from '../../src/alexandria';
import { validateCatalogEntry, validateManifestEnvelope } from '../../src/catalog/catalog-validator';
import { publicUrlHasIpHost, publisherForPublicUrl, registryIdentifier } from '../../src/catalog/registry-manifest';
import { recordPath } from '../../src/http/library-routes';
import { ALEXANDRIA_LIBRARY_FILE } from '../../src/ingest/alexandria-corpus';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

let registry: TestRegistry;
let library: AlexandriaLibrary;
beforeAll(async () => {
  registry = await startTestRegistry();
  library = await loadAlexandriaLibrary(ALEXANDRIA_LIBRARY_FILE);
});
afterAll(async () => {
  await registry.close();
});

const raw = async (path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${registry.url}${path}`, { headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
};

function expectCacheable(headers: Headers): string {
  expect(headers.get('cache-control')).toBe('public, max-age=300');
  const etag = headers.get('etag');
  expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
  return etag!;
}

describe('static v0 transport', () => {
  it('GET /llms.txt describes the library, the tools and how to reach them (text/plain, cacheable)', async () => {
    const res = await raw('/llms.txt');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expectCacheable(res.headers);
    expect(res.text.startsWith('# Alexandria')).toBe(true);
    expect(res.text).toContain('http://registry.test/mcp');
    expect(res.text).toMatch(/search\(query, topic\?, kind\?, limit\?\)/);
    expect(res.text).toContain('get_resource(id)');
    expect(res.text).toContain('list_topics()');
    expect(res.text).toContain('http://registry.test/sitemap.xml');
    expect(res.text).toContain('http://registry.test/library/arxiv/2210.03629.json');
    const recordLines = res.text.split('\n').filter((l) => l.startsWith('- [') && l.includes('](http://registry.test/library/'));
    expect(recordLines).toHaveLength(library.records.length);
    const topicLines = res.text.split('\n').filter((l) => /^- [a-z-]+: \d+$/.test(l));
    expect(topicLines).toHaveLength(24);
    expect(res.text).toContain(`- memory: ${library.records.filter((r) => r.tags.includes('memory')).length}`);
  });

  it('GET /sitemap.xml lists all 180 record URLs, and each URL returns the exact record', async () => {
    const res = await raw('/sitemap.xml');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expectCacheable(res.headers);
    expect(res.text).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">/,
    );
    const locs = [...res.text.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]!);
    expect(locs).toHaveLength(180);
    expect(new Set(locs).size).toBe(180);
    expect(locs.sort()).toEqual(library.records.map((r) => `http://registry.test/${recordPath(r.id)}`).sort());
    const byUrl = new Map(library.records.map((r) => [`http://registry.test/${recordPath(r.id)}`, r]));
    for (const loc of locs) {
      const record = byUrl.get(loc)!;
      const doc = await raw(new URL(loc).pathname);
      expect(doc.status).toBe(200);
      expect(doc.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(doc.text).toBe(JSON.stringify(record));
    }
  });

  it('record URLs are stable and readable: /library/<scheme>/<rest>.json', async () => {
    expect(recordPath('arxiv:2210.03629')).toBe('library/arxiv/2210.03629.json');
    expect(recordPath('github:letta-ai/letta')).toBe('library/github/letta-ai/letta.json');
    expect(recordPath('post:anthropic.com/building-effective-agents')).toBe('library/post/anthropic.com/building-effective-agents.json');
    expect(recordPath('arxiv:hep-th/9901001')).toBe('library/arxiv/hep-th/9901001.json');
    const res = await raw('/library/github/letta-ai/letta.json');
    expect(JSON.parse(res.text).id).toBe('github:letta-ai/letta');
  });

  it('If-None-Match with the current ETag answers 304 without a body; another ETag gets 200', async () => {
    for (const path of ['/library/arxiv/2210.03629.json', '/llms.txt', '/sitemap.xml', '/.well-known/ai-catalog.json']) {
      const first = await raw(path);
      const etag = expectCacheable(first.headers);
      const again = await raw(path);
      expect(again.headers.get('etag')).toBe(etag);
      const notModified = await raw(path, { 'if-none-match': etag });
      expect(notModified.status).toBe(304);
      expect(notModified.text).toBe('');
      expect((await raw(path, { 'if-none-match': `W/${etag}` })).status).toBe(304);
      expect((await raw(path, { 'if-none-match': '"something-else"' })).status).toBe(200);
    }
  });

  it('unknown record -> 404 NOT_FOUND, malformed -> 400 INVALID_ARGUMENT with the reason (ARD error shape)', async () => {
    const unknown = await registry.get('/library/arxiv/2210.03620.json');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      errorCode: 'NOT_FOUND',
      message: 'resource not found: "arxiv:2210.03620" is not in the Alexandria library',
    });
    const malformed = await registry.get('/library/arxiv/2210.03629v2.json');
    expect(malformed.status).toBe(400);
    expect(malformed.body.errorCode).toBe('INVALID_ARGUMENT');
    expect(malformed.body.message).toMatch(/^malformed resource id "arxiv:2210.03629v2": .*version suffix/);
    const noSuffix = await registry.get('/library/arxiv/2210.03629');
    expect(noSuffix.status).toBe(404);
    expect(noSuffix.body.errorCode).toBe('NOT_FOUND');
  });
});

describe('GET /.well-known/ai-catalog.json (ARD §4.1, §7)', () => {
  it('is a valid ai-catalog manifest advertising this registry (application/ai-registry+json) and its MCP endpoint', async () => {
    const res = await registry.get('/.well-known/ai-catalog.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(validateManifestEnvelope(res.body)).toEqual([]);
    for (const entry of res.body.entries) expect(validateCatalogEntry(entry)).toEqual([]);
    const self = res.body.entries.find((e: { type: string }) => e.type === 'application/ai-registry+json');
    expect(self).toMatchObject({ identifier: 'urn:air:registry.test:registry:ard-registry', url: 'http://registry.test/' });
    const mcp = res.body.entries.find((e: { type: string }) => e.type === 'application/mcp-server-card+json');
    expect(mcp).toMatchObject({ identifier: 'urn:air:registry.test:mcp:alexandria', url: 'http://registry.test/mcp' });
    expect(mcp.capabilities).toEqual(['search', 'get_resource', 'list_topics']);
  });

  it('serves the same entries at /.well-known/ard.json (ARD v0.91 §5.1), the registry entry with representativeQueries', async () => {
    const [ard, legacy] = await Promise.all([registry.get('/.well-known/ard.json'), registry.get('/.well-known/ai-catalog.json')]);
    expect(ard.status).toBe(200);
    expect(ard.body.entries).toEqual(legacy.body.entries);
    expect(ard.body.specVersion).toBeUndefined();
    const self = ard.body.entries.find((e: { type: string }) => e.type === 'application/ai-registry+json');
    expect(self.representativeQueries.length).toBeGreaterThanOrEqual(2);
    expect(self.representativeQueries.length).toBeLessThanOrEqual(5);
  });

  it('tells an IP-address PUBLIC_URL host from a domain', () => {
    expect(
      ['http://127.0.0.1:8080/', 'http://[::1]:8080/', 'https://registry.example.com/', 'http://localhost:8080/'].map(publicUrlHasIpHost),
    ).toEqual([true, true, false, false]);
  });

  it('derives the URN publisher from the PUBLIC_URL host (port dropped, IPv6 made URN-safe)', () => {
    expect(registryIdentifier('http://localhost:8080/')).toBe('urn:air:localhost:registry:ard-registry');
    expect(registryIdentifier('https://Registry.Example.com/api/v1/')).toBe('urn:air:registry.example.com:registry:ard-registry');
    expect(publisherForPublicUrl('http://[::1]:8080/')).toBe('--1');
    expect(publisherForPublicUrl('http://127.0.0.1:8080/')).toBe('127.0.0.1');
  });
});
