import pg from 'pg';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';
import { countBy, loadCorpusEntries, toBuckets, type CorpusEntry } from '../helpers/corpus';
import { createOpenApiBackend } from '../../src/http/openapi';
import { ingestManifest } from '../../src/ingest/ingest-manifest';

let registry: TestRegistry;
let corpus: CorpusEntry[];
const api = createOpenApiBackend();
const MCP = 'application/mcp-server-card+json';

beforeAll(async () => {
  registry = await startTestRegistry();
  await api.init();
  corpus = loadCorpusEntries();
});
afterAll(async () => {
  await registry.close();
});

async function explore(body: unknown) {
  const res = await registry.post('/explore', body);
  if (res.status === 200) {
    const validation = api.validateResponse(res.body, 'exploreRegistry', 200);
    expect(validation.errors ?? []).toEqual([]);
  }
  return res;
}

/** Every /search result, every entry of a product (`collapse=false`): explore counts the matched set (docs/api.md). */
async function searchAll(text: string, filter?: Record<string, string | string[]>): Promise<Array<{ identifier: string; type: string }>> {
  const out: Array<{ identifier: string; type: string }> = [];
  let token: string | undefined;
  do {
    const page = await registry.post('/search?collapse=false', {
      query: { text, ...(filter ? { filter } : {}) },
      pageSize: 100,
      ...(token ? { pageToken: token } : {}),
    });
    expect(page.status).toBe(200);
    out.push(...page.body.results);
    token = page.body.pageToken;
  } while (token);
  return out;
}

describe('POST /explore (ARD §7.3)', () => {
  it('with neither text nor filter, facets cover the entire registry (ARD §7.3)', async () => {
    const res = await explore({ resultType: { facets: [{ field: 'type' }] } });
    expect(res.status).toBe(200);
    expect(res.body.resultType).toBe('facets');
    expect(res.body.facets.type.buckets).toEqual(toBuckets(countBy(corpus, (c) => [c.entry.type])));
    const sum = res.body.facets.type.buckets.reduce((a: number, b: { count: number }) => a + b.count, 0);
    expect(sum).toBe(corpus.length);
    expect(res.body.facets.type.otherCount).toBeUndefined();
  });

  it('buckets are ordered by count descending then value; limit cuts them and otherCount counts the entries beyond (ARD §7.3)', async () => {
    const res = await explore({ resultType: { facets: [{ field: 'tags', limit: 5 }] } });
    expect(res.status).toBe(200);
    const all = toBuckets(countBy(corpus, (c) => c.entry.tags ?? []));
    expect(res.body.facets.tags.buckets).toEqual(all.slice(0, 5));
    const beyond = new Set(all.slice(5).map((b) => b.value));
    // entries, not bucket memberships: an entry with two tags beyond the limit counts once
    const entriesBeyond = corpus.filter((c) => (c.entry.tags ?? []).some((t) => beyond.has(t))).length;
    const membershipsBeyond = all.slice(5).reduce((a, b) => a + b.count, 0);
    expect(entriesBeyond).toBeLessThan(membershipsBeyond);
    expect(res.body.facets.tags.otherCount).toBe(entriesBeyond);
  });

  it('single-valued fields: otherCount is the sum of the counts beyond the limit', async () => {
    const res = await explore({ resultType: { facets: [{ field: 'type', limit: 2 }] } });
    const all = toBuckets(countBy(corpus, (c) => [c.entry.type]));
    expect(res.body.facets.type.buckets).toEqual(all.slice(0, 2));
    expect(res.body.facets.type.otherCount).toBe(all.slice(2).reduce((a, b) => a + b.count, 0));
  });

  it('publisher is derived from the URN; minCount suppresses small buckets (ARD §7.1, §7.3)', async () => {
    const res = await explore({ resultType: { facets: [{ field: 'publisher', limit: 1000, minCount: 3 }] } });
    expect(res.status).toBe(200);
    const expected = toBuckets(countBy(corpus, (c) => [c.entry.identifier.split(':')[2].toLowerCase()])).filter((b) => b.count >= 3);
    expect(expected.length).toBeGreaterThan(0);
    expect(res.body.facets.publisher.buckets).toEqual(expected);
  });

  it('several facets at once, including metadata.*, version, capabilities and host.*', async () => {
    const res = await explore({
      resultType: {
        facets: [
          { field: 'metadata.category', limit: 1000 },
          { field: 'metadata.stars', limit: 3 },
          { field: 'version', limit: 1000 },
          { field: 'capabilities', limit: 10 },
          { field: 'host.displayName' },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.facets)).toEqual(['metadata.category', 'metadata.stars', 'version', 'capabilities', 'host.displayName']);
    expect(res.body.facets['metadata.category'].buckets).toEqual(toBuckets(countBy(corpus, (c) => [c.entry.metadata?.category])));
    expect(res.body.facets['metadata.stars'].buckets).toEqual(toBuckets(countBy(corpus, (c) => [c.entry.metadata?.stars])).slice(0, 3));
    expect(res.body.facets.version.buckets).toEqual(toBuckets(countBy(corpus, (c) => [c.entry.version])));
    expect(res.body.facets.capabilities.buckets).toEqual(toBuckets(countBy(corpus, (c) => c.entry.capabilities ?? [])).slice(0, 10));
    expect(res.body.facets['host.displayName'].buckets).toEqual(toBuckets(countBy(corpus, (c) => [c.host?.displayName])));
  });

  it('query.filter narrows the matched set exactly as /search filters it (ARD §7.1)', async () => {
    const res = await explore({
      query: { filter: { type: MCP, tags: ['database', 'search'] } },
      resultType: { facets: [{ field: 'tags', limit: 1000 }, { field: 'type' }] },
    });
    expect(res.status).toBe(200);
    const matched = corpus.filter((c) => c.entry.type === MCP && (c.entry.tags ?? []).some((t) => t === 'database' || t === 'search'));
    expect(matched.length).toBeGreaterThan(5);
    expect(res.body.facets.tags.buckets).toEqual(toBuckets(countBy(matched, (c) => c.entry.tags ?? [])));
    expect(res.body.facets.type.buckets).toEqual([{ value: MCP, count: matched.length }]);
  });

  it('query.text applies the same relevance cutoff as /search: facet counts equal the /search result set (ARD §7.3)', async () => {
    for (const text of ['kubernetes cluster management', 'send messages to a chat channel']) {
      const results = await searchAll(text);
      expect(results.length).toBeGreaterThan(0);
      const res = await explore({
        query: { text },
        resultType: {
          facets: [
            { field: 'type', limit: 1000 },
            { field: 'identifier', limit: 1000 },
          ],
        },
      });
      expect(res.status).toBe(200);
      const byType = new Map<string, number>();
      for (const r of results) byType.set(r.type, (byType.get(r.type) ?? 0) + 1);
      expect(res.body.facets.type.buckets).toEqual(toBuckets(byType));
      const explored = res.body.facets.identifier.buckets.map((b: { value: string }) => b.value).sort();
      expect(explored).toEqual(results.map((r) => r.identifier).sort());
    }
  });

  it('query.text and query.filter compose: the filtered /search set is the explored set (ARD §7.1)', async () => {
    const text = 'database queries';
    const filter = { tags: ['database', 'sql', 'postgres'] };
    const results = await searchAll(text, filter);
    expect(results.length).toBeGreaterThan(0);
    const res = await explore({ query: { text, filter }, resultType: { facets: [{ field: 'identifier', limit: 1000 }] } });
    expect(res.body.facets.identifier.buckets.map((b: { value: string }) => b.value).sort()).toEqual(
      results.map((r) => r.identifier).sort(),
    );
    const unfiltered = await explore({ query: { text }, resultType: { facets: [{ field: 'identifier', limit: 1000 }] } });
    expect(unfiltered.body.facets.identifier.buckets.length).toBeGreaterThan(results.length);
  });

  it('rejects bad facet fields, limits and minCounts with 400 naming the problem', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ resultType: { facets: [{ field: 'colour' }] } }, /'colour'/],
      [{ resultType: { facets: [{ field: 'constructor' }] } }, /'constructor'/],
      [{ resultType: { facets: [{ field: 'type.name' }] } }, /'type.name'/],
      [{ resultType: { facets: [{ field: 'metadata' }] } }, /'metadata'/],
      [{ resultType: { facets: [{ field: 'type', limit: 0 }] } }, /limit/],
      [{ resultType: { facets: [{ field: 'type', limit: 1001 }] } }, /limit/],
      [{ resultType: { facets: [{ field: 'type', minCount: 0 }] } }, /minCount/],
      [{ resultType: { facets: [{ field: 'type' }, { field: 'type' }] } }, /twice/],
      [{ query: { text: '  ' }, resultType: { facets: [{ field: 'type' }] } }, /query.text/],
      [{ query: { filter: { colour: 'x' } }, resultType: { facets: [{ field: 'type' }] } }, /'colour'/],
      [{ resultType: {} }, /facets/],
    ];
    for (const [body, message] of cases) {
      const res = await registry.post('/explore', body);
      expect({ body, status: res.status, errorCode: res.body.errorCode }).toEqual({ body, status: 400, errorCode: 'INVALID_ARGUMENT' });
      expect(res.body.message).toMatch(message);
    }
  });

  it('counts trustManifest.attestations.type and never counts tombstoned entries', async () => {
    const attest = (types: string[]) => ({
      identity: 'did:web:example.com',
      attestations: types.map((type) => ({ type, uri: 'https://example.com/a.pdf', mediaType: 'application/pdf' })),
    });
    const manifest = {
      specVersion: '1.0',
      host: { displayName: 'Attested Host' },
      entries: [
        {
          identifier: 'urn:air:example.com:agent:one',
          displayName: 'One',
          type: MCP,
          url: 'https://example.com/1',
          trustManifest: attest(['SOC2-Type2', 'ISO27001']),
        },
        {
          identifier: 'urn:air:example.com:agent:two',
          displayName: 'Two',
          type: MCP,
          url: 'https://example.com/2',
          trustManifest: attest(['SOC2-Type2']),
          tags: ['dup', 'dup', 'solo'],
        },
      ],
    };
    const report = await ingestManifest({ db: registry.ctx.db, embedder: registry.ctx.embedder }, manifest, { origin: 'test:attested' });
    expect(report.rejected).toEqual([]);
    const facets = { resultType: { facets: [{ field: 'trustManifest.attestations.type' }, { field: 'host.displayName', limit: 1000 }] } };
    const before = await explore(facets);
    expect(before.body.facets['trustManifest.attestations.type'].buckets).toEqual([
      { value: 'SOC2-Type2', count: 2 },
      { value: 'ISO27001', count: 1 },
    ]);
    const tags = await explore({ query: { filter: { publisher: 'example.com' } }, resultType: { facets: [{ field: 'tags' }] } });
    // a value repeated inside one entry counts that entry once
    expect(tags.body.facets.tags.buckets).toEqual([
      { value: 'dup', count: 1 },
      { value: 'solo', count: 1 },
    ]);
    const client = new pg.Client({ connectionString: registry.database.url });
    await client.connect();
    try {
      await client.query(`UPDATE entries SET deleted_at = now() WHERE identifier = 'urn:air:example.com:agent:one'`);
    } finally {
      await client.end();
    }
    const after = await explore(facets);
    expect(after.body.facets['trustManifest.attestations.type'].buckets).toEqual([{ value: 'SOC2-Type2', count: 1 }]);
    expect(after.body.facets['host.displayName'].buckets).toContainEqual({ value: 'Attested Host', count: 1 });
  });
});
