/**
 * Query `@context` and IRI-resolved filter keys (ARD v0.91 §5.3.1): a namespaced filter key matches
 * entries by IRI whatever prefix their author chose; core terms resolve through the base context; a
 * 0.5.0 query without `@context` is unchanged. POST /explore's facet fields (§5.3.3: "same syntax as
 * filter keys") resolve the same way and are answered under the name the client asked for.
 */
import { ingestManifest } from '../../src/ingest/ingest-manifest';
import { fakeEmbedder } from '../helpers/fake-embedder';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

let registry: TestRegistry;
const OKF = 'https://openknowledgeformat.org/ns#';

const entry = (name: string, extra: Record<string, unknown>) => ({
  identifier: `urn:air:vocab.test:tools:${name}`,
  displayName: `${name} ledger tool`,
  type: 'application/mcp-server-card+json',
  url: `https://vocab.test/${name}.json`,
  description: 'Accounting ledger reports for finance teams',
  tags: ['finance'],
  ...extra,
});

beforeAll(async () => {
  registry = await startTestRegistry({ withDemoCorpus: false, config: { trustPollMs: 0 }, context: { embedder: fakeEmbedder() } });
  await ingestManifest(
    { db: registry.ctx.db, embedder: registry.ctx.embedder as never },
    {
      specVersion: '1.0',
      entries: [
        entry('okf-prefix', { '@context': { okf: OKF }, 'okf:taxonomy': ['us-gaap', 'ifrs'] }),
        entry('other-prefix', {
          '@context': ['https://agenticresourcediscovery.org/context/v1', { openknowledge: OKF }],
          'openknowledge:taxonomy': 'us-gaap',
        }),
        entry('term-defined', { '@context': { taxonomy: `${OKF}taxonomy` }, taxonomy: 'us-gaap' }),
        entry('same-prefix-other-iri', { '@context': { okf: 'https://elsewhere.test/vocab#' }, 'okf:taxonomy': 'us-gaap' }),
        entry('no-context', { 'okf:taxonomy': 'us-gaap' }),
      ],
    },
    { origin: 'file:vocab.json' },
  );
});
afterAll(async () => {
  await registry?.close();
});

const ids = (body: { results: Array<{ identifier: string }> }) => body.results.map((r) => r.identifier.split(':').pop()).sort();

describe('query @context (ARD v0.91 §5.3.1)', () => {
  it('matches a namespaced key by IRI, whatever prefix the entry bound, and not a same prefix bound elsewhere', async () => {
    const res = await registry.post('/search', {
      query: { '@context': { kb: OKF }, text: 'ledger', filter: { 'kb:taxonomy': 'us-gaap' } },
      federation: 'none',
    });
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(['okf-prefix', 'other-prefix', 'term-defined']);
    const absolute = await registry.post('/search', {
      query: { text: 'ledger', filter: { [`${OKF}taxonomy`]: ['ifrs'] } },
      federation: 'none',
    });
    expect(ids(absolute.body)).toEqual(['okf-prefix']);
  });

  it('resolves core terms through the base context, and filters in /explore the same way', async () => {
    const res = await registry.post('/search', {
      query: {
        '@context': ['https://agenticresourcediscovery.org/context/v1', { ard: 'https://agenticresourcediscovery.org/ns#', okf: OKF }],
        text: 'ledger',
        filter: { 'ard:tags': 'finance', 'okf:taxonomy': 'ifrs' },
      },
      federation: 'none',
    });
    expect(ids(res.body)).toEqual(['okf-prefix']);
    const explore = await registry.post('/explore', {
      query: { '@context': { okf: OKF }, filter: { 'okf:taxonomy': 'us-gaap' } },
      resultType: { facets: [{ field: 'publisher' }] },
    });
    expect(explore.status).toBe(200);
    expect(explore.body.facets.publisher.buckets).toEqual([{ value: 'vocab.test', count: 3 }]);
  });

  it('answers 400 naming an unbound prefix or a remote context; a query without @context is unchanged', async () => {
    const unbound = await registry.post('/search', { query: { text: 'ledger', filter: { 'okf:taxonomy': 'us-gaap' } } });
    expect(unbound.status).toBe(400);
    expect(unbound.body.message).toContain("the prefix 'okf' is not bound");
    const remote = await registry.post('/search', { query: { '@context': 'https://example.test/context.jsonld', text: 'ledger' } });
    expect(remote.status).toBe(400);
    expect(remote.body.message).toContain('does not fetch contexts');
    const plain = await registry.post('/search', { query: { text: 'ledger', filter: { tags: 'finance' } }, federation: 'none' });
    expect(ids(plain.body)).toHaveLength(5);
  });
});

describe('IRI-resolved facet fields (ARD v0.91 §5.3.3)', () => {
  it("answers the spec's request shape with a namespaced facet, counted by IRI whatever prefix entries chose", async () => {
    // §5.3.3's request (facets type and publisher with limit 50) with §5.3.1's okf context and term.
    const res = await registry.post('/explore', {
      query: { '@context': { okf: OKF } },
      resultType: { facets: [{ field: 'type' }, { field: 'publisher', limit: 50 }, { field: 'okf:taxonomy' }] },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.facets)).toEqual(['type', 'publisher', 'okf:taxonomy']);
    // okf-prefix (us-gaap, ifrs), other-prefix and term-defined (us-gaap); not the entry binding okf elsewhere, nor the unbound one.
    expect(res.body.facets['okf:taxonomy']).toEqual({
      buckets: [
        { value: 'us-gaap', count: 3 },
        { value: 'ifrs', count: 1 },
      ],
    });
    expect(res.body.facets.publisher.buckets).toEqual([{ value: 'vocab.test', count: 5 }]);
  });

  it('counts what the same key filters on, with text or without, under an absolute IRI or a core term too', async () => {
    const withText = await registry.post('/explore', {
      query: { '@context': { kb: OKF }, text: 'ledger', filter: { 'kb:taxonomy': 'ifrs' } },
      resultType: { facets: [{ field: 'kb:taxonomy' }, { field: 'ard:tags' }] },
    });
    expect(withText.status).toBe(400);
    expect(withText.body.message).toContain("resultType.facets[1].field 'ard:tags': the prefix 'ard' is not bound");
    const res = await registry.post('/explore', {
      query: {
        '@context': { kb: OKF, ard: 'https://agenticresourcediscovery.org/ns#' },
        text: 'ledger',
        filter: { 'kb:taxonomy': 'ifrs' },
      },
      resultType: { facets: [{ field: 'kb:taxonomy' }, { field: 'ard:tags' }] },
    });
    expect(res.status).toBe(200);
    expect(res.body.facets).toEqual({
      'kb:taxonomy': {
        buckets: [
          { value: 'ifrs', count: 1 },
          { value: 'us-gaap', count: 1 },
        ],
      },
      'ard:tags': { buckets: [{ value: 'finance', count: 1 }] },
    });
    const absolute = await registry.post('/explore', { resultType: { facets: [{ field: `${OKF}taxonomy`, minCount: 2 }] } });
    expect(absolute.body.facets[`${OKF}taxonomy`]).toEqual({ buckets: [{ value: 'us-gaap', count: 3 }] });
  });

  it('answers 400 for a field named twice through two spellings or a path under a namespaced term; 0.5.0 facets are unchanged', async () => {
    const twice = await registry.post('/explore', {
      query: { '@context': { ard: 'https://agenticresourcediscovery.org/ns#' } },
      resultType: { facets: [{ field: 'tags' }, { field: 'ard:tags' }] },
    });
    expect(twice.status).toBe(400);
    expect(twice.body).toEqual({
      errorCode: 'INVALID_ARGUMENT',
      message: expect.stringContaining("'ard:tags' and 'tags' both name 'tags'"),
    });
    const path = await registry.post('/explore', {
      query: { '@context': { okf: OKF } },
      resultType: { facets: [{ field: 'okf:taxonomy.code' }] },
    });
    expect(path.status).toBe(400);
    expect(path.body.message).toContain("resultType.facets[0].field 'okf:taxonomy.code': paths under a namespaced term are not supported");
    const plain = await registry.post('/explore', { resultType: { facets: [{ field: 'tags' }] } });
    expect(plain.body).toEqual({ resultType: 'facets', facets: { tags: { buckets: [{ value: 'finance', count: 5 }] } } });
  });
});
