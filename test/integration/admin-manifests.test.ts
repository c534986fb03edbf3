// POST /admin/manifests: what `ard-registry ingest <file>` sends to the server that owns the embedded folder,
// also open to an operator with ADMIN_TOKEN. Bodies up to the manifest limit, past the API's MAX_BODY_BYTES.
import fs from 'node:fs';
import path from 'node:path';
import { fakeEmbedder } from '../helpers/fake-embedder';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

const TOKEN = 'admin-token-for-tests';
const auth = { authorization: `Bearer ${TOKEN}` };
let registry: TestRegistry;
beforeAll(async () => {
  registry = await startTestRegistry({ withDemoCorpus: false, config: { adminToken: TOKEN }, context: { embedder: fakeEmbedder() } });
});
afterAll(async () => registry?.close());

describe('POST /admin/manifests', () => {
  it('loads a manifest larger than MAX_BODY_BYTES and answers its report; the entries are served at once', async () => {
    const entries = Array.from({ length: 60 }, (_, i) => ({
      identifier: `urn:air:big.example:agent:n${i}`,
      displayName: `Big agent ${i}`,
      type: 'application/a2a-agent-card+json',
      url: `https://big.example/agents/${i}.json`,
      description: `Agent ${i} ${'plans trips and books rooms. '.repeat(60)}`.slice(0, 1500),
    }));
    const manifest = { specVersion: '1.0', host: { displayName: 'Big', identifier: 'did:web:big.example' }, entries };
    expect(JSON.stringify(manifest).length).toBeGreaterThan(registry.ctx.config.maxBodyBytes);
    const res = await registry.post('/admin/manifests', { origin: 'file:big.json', manifest }, auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ origin: 'file:big.json', total: 60, added: 60, updated: 0, unchanged: 0, rejected: [] });
    expect((await registry.get(`/agents/${encodeURIComponent('urn:air:big.example:agent:n7')}`)).status).toBe(200);
  });

  it('reports rejected entries and refuses what is not a manifest with 400', async () => {
    const fixture = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', 'fixtures', 'noaa-weather-catalog.json'), 'utf8'));
    fixture.entries.push({ identifier: 'not-a-urn' });
    const res = await registry.post('/admin/manifests', { origin: 'file:noaa.json', manifest: fixture }, auth);
    expect(res.status).toBe(200);
    expect(res.body.added).toBe(1);
    expect(res.body.rejected).toEqual([expect.objectContaining({ index: 1, identifier: 'not-a-urn' })]);
    const bad = await registry.post('/admin/manifests', { origin: 'file:x.json', manifest: { entries: 'none' } }, auth);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      errorCode: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/^file:x\.json is not a valid ai-catalog manifest/),
    });
    const shapeless = await registry.post('/admin/manifests', { manifest: fixture }, auth);
    expect(shapeless.status).toBe(400);
    expect(shapeless.body.message).toMatch(/body must be \{origin: string/);
  });

  it('needs the admin token before it reads the body', async () => {
    const res = await registry.post('/admin/manifests', { origin: 'file:x.json', manifest: {} });
    expect(res.status).toBe(401);
    expect(res.body.errorCode).toBe('UNAUTHENTICATED');
  });
});
