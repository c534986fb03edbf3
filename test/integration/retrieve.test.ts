import pg from 'pg';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';
import { loadCorpusEntries } from '../helpers/corpus';
import { createOpenApiBackend } from '../../src/http/openapi';

let registry: TestRegistry;
const api = createOpenApiBackend();
const corpus = loadCorpusEntries();
const known = corpus.find((c) => c.entry.identifier.split(':').length > 4)!.entry;

beforeAll(async () => {
  registry = await startTestRegistry();
  await api.init();
});
afterAll(async () => {
  await registry.close();
});

describe('GET /agents/{identifier} (ARD v0.91 §5.3.4, ADR-0010)', () => {
  it('returns the complete entry for a percent-encoded identifier, without search-only fields', async () => {
    const res = await registry.get(`/agents/${encodeURIComponent(known.identifier)}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(known);
    expect(res.body.score).toBeUndefined();
    expect(res.body.source).toBeUndefined();
    expect(api.validateResponse(res.body, 'getArdEntry', 200).errors ?? []).toEqual([]);
  });

  it('accepts literal ":" as well as %3A, and decodes exactly once (a double-encoded identifier is 400)', async () => {
    const literal = await registry.get(`/agents/${known.identifier}`);
    expect(literal.status).toBe(200);
    expect(literal.body.identifier).toBe(known.identifier);
    const mixed = await registry.get(`/agents/${known.identifier.replace(':', '%3a')}`);
    expect(mixed.status).toBe(200);
    const twice = await registry.get(`/agents/${encodeURIComponent(encodeURIComponent(known.identifier))}`);
    expect(twice.status).toBe(400);
    expect(twice.body.errorCode).toBe('INVALID_ARGUMENT');
  });

  it('is an exact, case-sensitive lookup: other case, prefixes and unknown identifiers are 404 NOT_FOUND', async () => {
    for (const id of [
      known.identifier.toUpperCase().replace('URN:AIR:', 'urn:air:'),
      known.identifier.slice(0, -1),
      'urn:air:example.com:agent:does-not-exist',
    ]) {
      const res = await registry.get(`/agents/${encodeURIComponent(id)}`);
      expect({ id, status: res.status, errorCode: res.body.errorCode }).toEqual({ id, status: 404, errorCode: 'NOT_FOUND' });
    }
  });

  it('answers 400 INVALID_ARGUMENT for a malformed identifier, including broken percent-encoding', async () => {
    for (const path of [
      '/agents/not-a-urn',
      '/agents/urn%3Aair%3A',
      `/agents/${encodeURIComponent('urn:air:acme.com:a/b')}`,
      '/agents/urn:air:acme.com:%E0%A4%A',
      '/agents/%zz',
    ]) {
      const res = await registry.get(path);
      expect({ path, status: res.status, errorCode: res.body.errorCode }).toEqual({ path, status: 400, errorCode: 'INVALID_ARGUMENT' });
      expect(res.body.message).toMatch(/identifier|percent-encoding/);
    }
  });

  it('sends a strong ETag and Cache-Control; If-None-Match gives 304 until the entry changes', async () => {
    const path = `/agents/${encodeURIComponent(known.identifier)}`;
    const first = await registry.get(path);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(first.headers.get('cache-control')).toContain('max-age=');
    const again = await registry.get(path, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect((await registry.get(path, { 'if-none-match': `"other", W/${etag}` })).status).toBe(304);
    expect((await registry.get(path, { 'if-none-match': '"other"' })).status).toBe(200);

    const client = new pg.Client({ connectionString: registry.database.url });
    await client.connect();
    try {
      await client.query(`UPDATE entries SET content_hash = 'changed' WHERE identifier = $1`, [known.identifier]);
      const changed = await registry.get(path, { 'if-none-match': etag });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(etag);
      await client.query(`UPDATE entries SET deleted_at = now() WHERE identifier = $1`, [known.identifier]);
      expect((await registry.get(path)).status).toBe(404);
    } finally {
      await client.end();
    }
  });
});
