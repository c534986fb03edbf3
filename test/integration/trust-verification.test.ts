/**
 * Trust manifests (ARD v0.91 §4.5): the publisher binding (§4.5.1) at ingestion and crawl, and the
 * verification (§4.5.2) of JWS signatures over the JCS form of an entry, with keys from did:web
 * documents and JWKS served by loopback publishers; the stored outcome as `@verification` in
 * POST /search, POST /explore and GET /agents, and in the Registry-Verification header of Retrieve.
 */
import { CompactSign, exportJWK, generateKeyPair, type JWK, type KeyLike } from 'jose';
import type { CatalogEntry } from '../../src/catalog/catalog-entry';
import { upsertSource } from '../../src/crawl';
import { ingestManifest } from '../../src/ingest/ingest-manifest';
import { signedPayload, verifyDueEntries, verifyEntry, type KeyFetchOptions } from '../../src/trust';
import { fakeEmbedder } from '../helpers/fake-embedder';
import { createTestCrawlClient, startPublisherServer, type PublisherServer } from '../helpers/publisher-server';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

const DOC_CAP = 4096;
const TIMEOUT_MS = 600;

let server: PublisherServer;
let registry: TestRegistry;
let keys: KeyFetchOptions;
let key1: { privateKey: KeyLike; jwk: JWK };
let key2: { privateKey: KeyLike; jwk: JWK };
const timers = new Set<NodeJS.Timeout>();

async function newKey() {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { privateKey, jwk: await exportJWK(publicKey) };
}

const did = (host: string) => `did:web:${host}%3A${server.port}`;

function didDocument(host: string, methods: Array<{ fragment: string; jwk: JWK; extra?: Record<string, unknown> }>) {
  const id = did(host);
  return {
    '@context': ['https://www.w3.org/ns/did/v1'],
    id,
    verificationMethod: methods.map((m) => ({
      id: `${id}#${m.fragment}`,
      type: 'JsonWebKey2020',
      controller: id,
      publicKeyJwk: m.jwk,
      ...m.extra,
    })),
    assertionMethod: methods.map((m) => `${id}#${m.fragment}`),
  };
}

function entryOf(
  host: string,
  name: string,
  trust: Record<string, unknown> | undefined,
  extra: Record<string, unknown> = {},
): CatalogEntry {
  return {
    identifier: `urn:air:${host}:tools:${name}`,
    displayName: `${name} tool`,
    type: 'application/mcp-server-card+json',
    url: `https://${host}/mcp/${name}.json`,
    description: `The ${name} tool of ${host}`,
    ...extra,
    ...(trust ? { trustManifest: trust } : {}),
  };
}

/** Signs the entry's JCS form (or `payload`) with `key`; detached unless `attached`. */
async function sign(
  entry: CatalogEntry,
  key: KeyLike,
  kid: string,
  options: { attached?: boolean; payload?: string; header?: Record<string, unknown> } = {},
): Promise<CatalogEntry> {
  const payload = options.payload ?? signedPayload(entry);
  const jws = await new CompactSign(Buffer.from(payload, 'utf8')).setProtectedHeader({ alg: 'ES256', kid, ...options.header }).sign(key);
  const [h, p, s] = jws.split('.');
  return { ...entry, trustManifest: { ...entry.trustManifest, signature: options.attached ? `${h}.${p}.${s}` : `${h}..${s}` } };
}

async function signedByDid(host: string, name: string, key: KeyLike, fragment = 'key-1', options: { attached?: boolean } = {}) {
  return sign(entryOf(host, name, { identity: did(host), identityType: 'did' }), key, `${did(host)}#${fragment}`, options);
}

beforeAll(async () => {
  server = await startPublisherServer();
  key1 = await newKey();
  key2 = await newKey();
  const http = createTestCrawlClient((h) => h.endsWith('.test'), { timeoutMs: TIMEOUT_MS });
  keys = { http, timeoutMs: TIMEOUT_MS, maxBytes: DOC_CAP, scheme: 'http' };
  server.json('acme.test', '/.well-known/did.json', didDocument('acme.test', [{ fragment: 'key-1', jwk: key1.jwk }]));
  const past = new Date(Date.now() - 86400_000).toISOString();
  server.json(
    'expired.test',
    '/.well-known/did.json',
    didDocument('expired.test', [{ fragment: 'key-1', jwk: key1.jwk, extra: { expires: past } }]),
  );
  server.json(
    'revoked.test',
    '/.well-known/did.json',
    didDocument('revoked.test', [{ fragment: 'key-1', jwk: key1.jwk, extra: { revoked: past } }]),
  );
  server.json('nokey.test', '/.well-known/did.json', didDocument('nokey.test', [{ fragment: 'other', jwk: key2.jwk }]));
  const big = didDocument('big.test', [{ fragment: 'key-1', jwk: key1.jwk }]);
  server.json('big.test', '/.well-known/did.json', { ...big, padding: 'x'.repeat(DOC_CAP * 2) });
  server.route('slow.test', '/.well-known/did.json', (_req, res) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(didDocument('slow.test', [{ fragment: 'key-1', jwk: key1.jwk }])));
    }, TIMEOUT_MS * 3);
    timers.add(timer);
  });
  server.json('jwks.test', '/.well-known/jwks.json', { keys: [{ ...key1.jwk, kid: 'k1', alg: 'ES256', use: 'sig' }] });
  registry = await startTestRegistry({
    withDemoCorpus: false,
    config: { crawlAllowPrivate: true, trustPollMs: 0 },
    context: { embedder: fakeEmbedder(), crawlHttp: createTestCrawlClient((h) => h.endsWith('.test')) },
  });
});

afterAll(async () => {
  for (const timer of timers) clearTimeout(timer);
  await registry?.close();
  await keys?.http.close();
  await server?.close();
});

describe('publisher authority binding (ARD v0.91 §4.5.1)', () => {
  it('rejects at file ingestion an entry whose trust domain is not its publisher or a parent of it, with the reason', async () => {
    const manifest = {
      specVersion: '1.0',
      entries: [
        entryOf('acme.test', 'squatter', { identity: 'spiffe://evil.test/svc' }),
        entryOf('api.acme.test', 'child', { identity: 'spiffe://acme.test/svc' }),
        entryOf('acme.test', 'parent-claim', { identity: 'did:web:api.acme.test' }),
        entryOf('acme.test', 'plain', undefined),
      ],
    };
    const report = await ingestManifest({ db: registry.ctx.db, embedder: registry.ctx.embedder as never }, manifest, {
      origin: 'file:binding.json',
    });
    expect(report.accepted.map((e) => e.identifier)).toEqual(['urn:air:api.acme.test:tools:child', 'urn:air:acme.test:tools:plain']);
    expect(report.rejected.map((r) => [r.index, r.reason.includes('§4.5.1')])).toEqual([
      [0, true],
      [2, true],
    ]);
    expect(report.rejected[0].reason).toContain("trust domain 'evil.test'");
  });

  it("TRUST_BINDING=flag stores the entry and the upkeep records it as failed 'binding-mismatch'", async () => {
    const flagged = entryOf('acme.test', 'flagged', { identity: `did:web:evil.test%3A${server.port}` });
    const report = await ingestManifest(
      { db: registry.ctx.db, embedder: registry.ctx.embedder as never, binding: 'flag' },
      { specVersion: '1.0', entries: [flagged] },
      { origin: 'file:flag.json' },
    );
    expect(report.rejected).toEqual([]);
    await verifyDueEntries({ db: registry.ctx.db, keys, recheckSeconds: 3600 });
    const res = await registry.get(`/agents/${encodeURIComponent(flagged.identifier)}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(flagged);
    expect(res.headers.get('registry-verification')).toMatch(/^state=failed, reason=binding-mismatch, checked="/);
  });

  it('rejects at crawl time, with the reason in the crawl report', async () => {
    server.json('crawl.test', '/.well-known/ard.json', {
      entries: [
        entryOf('crawl.test', 'ok', { identity: 'spiffe://crawl.test/ok' }),
        entryOf('crawl.test', 'bad', { identity: 'https://elsewhere.test/jwks' }),
      ],
    });
    const { row } = await upsertSource(registry.ctx.db, { location: `${server.origin('crawl.test')}/`, intervalSeconds: 3600 });
    const report = await registry.ctx.crawler.crawlNow(String(row.id));
    expect(report.error).toBeNull();
    expect(report.counts.rejected).toBe(1);
    expect(report.rejected[0]).toMatchObject({ identifier: 'urn:air:crawl.test:tools:bad' });
    expect(report.rejected[0].reason).toContain("names the trust domain 'elsewhere.test'");
  });
});

describe('verification of a JWS over the JCS form of the entry (ARD v0.91 §4.5.2)', () => {
  it('verifies a detached and an attached JWS with the did:web key', async () => {
    const detached = await verifyEntry(await signedByDid('acme.test', 'weather', key1.privateKey), { keys });
    expect(detached).toMatchObject({ state: 'verified', method: 'jws+did:web', reason: null });
    const attached = await verifyEntry(await signedByDid('acme.test', 'weather', key1.privateKey, 'key-1', { attached: true }), { keys });
    expect(attached).toMatchObject({ state: 'verified', method: 'jws+did:web' });
  });

  it('fails a tampered field: signature-invalid (detached), payload-mismatch (attached)', async () => {
    const detached = await signedByDid('acme.test', 'weather', key1.privateKey);
    expect(await verifyEntry({ ...detached, description: 'changed after signing' }, { keys })).toMatchObject({
      state: 'failed',
      reason: 'signature-invalid',
    });
    const attached = await signedByDid('acme.test', 'weather', key1.privateKey, 'key-1', { attached: true });
    expect(await verifyEntry({ ...attached, url: 'https://evil.test/mcp.json' }, { keys })).toMatchObject({
      state: 'failed',
      reason: 'payload-mismatch',
    });
  });

  it('fails a signature by another key than the one the DID document lists under that kid', async () => {
    const wrong = await signedByDid('acme.test', 'weather', key2.privateKey);
    expect(await verifyEntry(wrong, { keys })).toMatchObject({ state: 'failed', reason: 'signature-invalid', method: 'jws+did:web' });
  });

  it('fails an expired and a revoked key', async () => {
    expect(await verifyEntry(await signedByDid('expired.test', 'a', key1.privateKey), { keys })).toMatchObject({
      state: 'failed',
      reason: 'key-expired',
    });
    expect(await verifyEntry(await signedByDid('revoked.test', 'a', key1.privateKey), { keys })).toMatchObject({
      state: 'failed',
      reason: 'key-revoked',
    });
  });

  it('fails when the DID document does not list the key', async () => {
    expect(await verifyEntry(await signedByDid('nokey.test', 'a', key1.privateKey), { keys })).toMatchObject({
      state: 'failed',
      reason: 'key-not-found',
    });
  });

  it('fails a did:web identity whose host is not the publisher (binding)', async () => {
    const entry = await sign(entryOf('acme.test', 'x', { identity: did('evil.test') }), key1.privateKey, `${did('evil.test')}#key-1`);
    expect(await verifyEntry(entry, { keys })).toMatchObject({ state: 'failed', reason: 'binding-mismatch' });
  });

  it('fails an oversized and a slow DID document, through the outbound caps', async () => {
    expect(await verifyEntry(await signedByDid('big.test', 'a', key1.privateKey), { keys })).toMatchObject({
      state: 'failed',
      reason: 'did-document-too-large',
    });
    const started = Date.now();
    expect(await verifyEntry(await signedByDid('slow.test', 'a', key1.privateKey), { keys })).toMatchObject({
      state: 'failed',
      reason: 'did-document-timeout',
    });
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 3);
  });

  it('fails a signature over another canonicalisation of the entry (not RFC 8785 JCS)', async () => {
    const unsigned = entryOf('acme.test', 'weather', { identity: did('acme.test') });
    const plain = JSON.stringify(unsigned);
    expect(plain).not.toBe(signedPayload(unsigned));
    const detached = await sign(unsigned, key1.privateKey, `${did('acme.test')}#key-1`, { payload: plain });
    expect(await verifyEntry(detached, { keys })).toMatchObject({ state: 'failed', reason: 'not-canonical' });
    const attached = await sign(unsigned, key1.privateKey, `${did('acme.test')}#key-1`, { payload: plain, attached: true });
    expect(await verifyEntry(attached, { keys })).toMatchObject({ state: 'failed', reason: 'not-canonical' });
  });

  it('refuses alg none and HMAC, and a malformed signature', async () => {
    const entry = entryOf('acme.test', 'weather', { identity: did('acme.test') });
    const header = Buffer.from(JSON.stringify({ alg: 'HS256' })).toString('base64url');
    expect(
      await verifyEntry({ ...entry, trustManifest: { ...entry.trustManifest, signature: `${header}..c2ln` } }, { keys }),
    ).toMatchObject({ reason: 'algorithm-unsupported' });
    expect(await verifyEntry({ ...entry, trustManifest: { ...entry.trustManifest, signature: 'not a jws' } }, { keys })).toMatchObject({
      reason: 'signature-malformed',
    });
  });

  it('verifies with a JWKS on the trust domain, and fails one on another domain', async () => {
    const jwksUrl = `http://jwks.test:${server.port}/.well-known/jwks.json`;
    const attestation = (uri: string) => ({
      identity: 'spiffe://jwks.test/svc',
      attestations: [{ type: 'JWKS', uri, mediaType: 'application/jwk-set+json' }],
    });
    const good = await sign(entryOf('jwks.test', 'a', attestation(jwksUrl)), key1.privateKey, 'k1');
    expect(await verifyEntry(good, { keys })).toMatchObject({ state: 'verified', method: 'jws+jwks' });
    const off = await sign(
      entryOf('jwks.test', 'a', attestation(`http://acme.test:${server.port}/.well-known/jwks.json`)),
      key1.privateKey,
      'k1',
    );
    expect(await verifyEntry(off, { keys })).toMatchObject({ state: 'failed', reason: 'jwks-off-domain' });
  });

  it('says unverified, never verified, where nothing can be checked', async () => {
    expect(await verifyEntry(entryOf('acme.test', 'a', undefined), { keys })).toMatchObject({
      state: 'unverified',
      reason: 'no-trust-manifest',
    });
    expect(await verifyEntry(entryOf('acme.test', 'a', { identity: 'spiffe://acme.test/a' }), { keys })).toMatchObject({
      state: 'unverified',
      reason: 'unsigned',
    });
    const spiffeSigned = await sign(entryOf('acme.test', 'a', { identity: 'spiffe://acme.test/a' }), key1.privateKey, 'k');
    expect(await verifyEntry(spiffeSigned, { keys })).toMatchObject({ state: 'unverified', reason: 'framework-unsupported' });
  });
});

describe('the outcome as data', () => {
  const rotating = 'rotate.test';

  it('stores the state, filters and facets on @verification, shows it on Retrieve, and re-verifies after a key rotation', async () => {
    server.json(rotating, '/.well-known/did.json', didDocument(rotating, [{ fragment: 'key-1', jwk: key1.jwk }]));
    const signedEntry = await signedByDid(rotating, 'forecast', key1.privateKey);
    const plain = entryOf(rotating, 'plain', undefined, { description: 'The forecast helper without trust' });
    const deps = { db: registry.ctx.db, embedder: registry.ctx.embedder as never };
    await ingestManifest(deps, { specVersion: '1.0', entries: [signedEntry, plain] }, { origin: 'file:rotate.json' });

    const before = await registry.get(`/agents/${encodeURIComponent(signedEntry.identifier)}`);
    expect(before.headers.get('registry-verification')).toBe('state=unverified, reason=pending');
    const counts = await verifyDueEntries({ db: registry.ctx.db, keys, recheckSeconds: 3600 });
    expect(counts.verified).toBeGreaterThanOrEqual(1);

    const after = await registry.get(`/agents/${encodeURIComponent(signedEntry.identifier)}`);
    expect(after.body).toEqual(signedEntry);
    expect(after.headers.get('registry-verification')).toMatch(/^state=verified, method=jws\+did:web, checked="\d{4}-/);

    const list = await registry.get(`/agents?filter=${encodeURIComponent(`publisherId = ${rotating} AND @verification = verified`)}`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((a: CatalogEntry) => a.identifier)).toEqual([signedEntry.identifier]);
    const notVerified = await registry.get(
      `/agents?filter=${encodeURIComponent(`publisherId = ${rotating} AND @verification != verified`)}`,
    );
    expect(notVerified.body.items.map((a: CatalogEntry) => a.identifier)).toEqual([plain.identifier]);
    const badState = await registry.get(`/agents?filter=${encodeURIComponent('@verification = trusted')}`);
    expect(badState.status).toBe(400);
    expect(badState.body.message).toContain('expected verified, unverified, failed');

    const search = await registry.post('/search', {
      query: { text: 'forecast tool', filter: { publisher: rotating, '@verification': 'verified' } },
    });
    expect(search.status).toBe(200);
    expect(search.body.results.map((r: CatalogEntry) => r.identifier)).toEqual([signedEntry.identifier]);
    const badSearch = await registry.post('/search', { query: { text: 'forecast', filter: { '@verification': 'yes' } } });
    expect(badSearch.status).toBe(400);

    const explore = await registry.post('/explore', {
      query: { filter: { publisher: rotating } },
      resultType: { facets: [{ field: '@verification' }, { field: '@verification.method' }] },
    });
    expect(explore.status).toBe(200);
    expect(explore.body.facets['@verification'].buckets).toEqual([
      { value: 'unverified', count: 1 },
      { value: 'verified', count: 1 },
    ]);
    expect(explore.body.facets['@verification.method'].buckets).toEqual([{ value: 'jws+did:web', count: 1 }]);

    // The publisher rotates: key-1 leaves the DID document. The scheduled re-check fails the old signature...
    server.json(rotating, '/.well-known/did.json', didDocument(rotating, [{ fragment: 'key-2', jwk: key2.jwk }]));
    await verifyDueEntries({ db: registry.ctx.db, keys, recheckSeconds: 3600 }, { now: new Date(Date.now() + 7200_000) });
    const rotated = await registry.get(`/agents/${encodeURIComponent(signedEntry.identifier)}`);
    expect(rotated.headers.get('registry-verification')).toMatch(/^state=failed, method=jws\+did:web, reason=key-not-found/);
    // ...and the entry re-signed with key-2 is verified as soon as it is ingested again.
    const resigned = await signedByDid(rotating, 'forecast', key2.privateKey, 'key-2');
    await ingestManifest(deps, { specVersion: '1.0', entries: [resigned, plain] }, { origin: 'file:rotate.json' });
    await verifyDueEntries({ db: registry.ctx.db, keys, recheckSeconds: 3600 });
    const reverified = await registry.get(`/agents/${encodeURIComponent(signedEntry.identifier)}`);
    expect(reverified.body).toEqual(resigned);
    expect(reverified.headers.get('registry-verification')).toMatch(/^state=verified, method=jws\+did:web/);
  });

  it('a 404 of Retrieve carries a short Cache-Control (ARD v0.91 §5.3.4)', async () => {
    const res = await registry.get(`/agents/${encodeURIComponent('urn:air:acme.test:tools:nothing-here')}`);
    expect(res.status).toBe(404);
    expect(res.headers.get('cache-control')).toBe('public, max-age=10, must-revalidate');
  });
});
