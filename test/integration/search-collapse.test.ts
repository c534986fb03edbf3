// One product, one result (docs/api.md "One product, one result", decision 0036): entries from different catalogs
// that share a repository, a package or a remote endpoint give one result on POST /search and search_registry, the
// best ranked, naming the others in `@collapsed`; `?collapse=false` lists them all; GET /agents and Retrieve
// (ARD v0.91 §5.3.4, §5.3.5) serve every entry; pages of the collapsed list never repeat an entry.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ingestManifest } from '../../src/ingest/ingest-manifest';
import { fakeEmbedder } from '../helpers/fake-embedder';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

const MCP = 'application/mcp-server-card+json';
const TEXT = 'tide tables for harbour pilots';

function server(identifier: string, fields: Record<string, unknown>) {
  return { identifier, displayName: identifier.split(':').pop(), type: MCP, description: `${TEXT}, ${identifier}`, ...fields };
}

/** Each group is one product, listed by several catalogs; `mono` are two servers of one repository. */
const GROUPS = {
  repository: [
    server('urn:air:catalog-one.test:mcp:tides', {
      url: 'https://catalog-one.test/tides',
      metadata: { repositoryUrl: 'https://github.com/Harbour/Tides-MCP' },
    }),
    server('urn:air:catalog-two.test:mcp:harbour-tides', { url: 'https://github.com/harbour/tides-mcp.git' }),
  ],
  package: [
    server('urn:air:catalog-one.test:mcp:almanac', {
      url: 'https://catalog-one.test/almanac',
      metadata: { image: 'ghcr.io/harbour/almanac:1.2.0' },
    }),
    server('urn:air:catalog-two.test:mcp:almanac-server', {
      data: { name: 'almanac', packages: [{ registryType: 'oci', identifier: 'ghcr.io/harbour/almanac', version: '1.3.0' }] },
    }),
  ],
  remote: [
    server('urn:air:catalog-one.test:mcp:pilot-desk', {
      url: 'https://mcp.pilots.test/v1/sse',
      metadata: { remoteUrl: 'https://mcp.pilots.test/v1/sse' },
    }),
    server('urn:air:catalog-two.test:mcp:pilot-desk-remote', {
      url: 'https://catalog-two.test/pilot-desk',
      metadata: { remoteUrl: 'https://MCP.pilots.test/v1/mcp/' },
    }),
    server('urn:air:catalog-three.test:mcp:pilot-desk', {
      data: { name: 'pilot-desk', remotes: [{ type: 'streamable-http', url: 'https://mcp.pilots.test/v1/mcp' }] },
    }),
  ],
  mono: [
    server('urn:air:catalog-one.test:mcp:buoys', { url: 'https://github.com/harbour/servers', metadata: { image: 'mcp/buoys' } }),
    server('urn:air:catalog-one.test:mcp:moorings', { url: 'https://github.com/harbour/servers', metadata: { image: 'mcp/moorings' } }),
  ],
};
const ALL = Object.values(GROUPS).flat();

interface Result {
  identifier: string;
  score: number;
  '@collapsed'?: string[];
}

let registry: TestRegistry;
beforeAll(async () => {
  registry = await startTestRegistry({ withDemoCorpus: false, context: { embedder: fakeEmbedder() } });
  const report = await ingestManifest(
    { db: registry.ctx.db, embedder: registry.ctx.embedder as never },
    { specVersion: '1.0', entries: ALL },
    { origin: 'file:collapse.json' },
  );
  expect(report.rejected).toEqual([]);
});
afterAll(async () => {
  await registry.close();
});

async function search(query = '', body: Record<string, unknown> = {}): Promise<{ results: Result[]; pageToken?: string }> {
  const res = await registry.post(`/search${query}`, { query: { text: TEXT }, federation: 'none', pageSize: 100, ...body });
  expect(res.status).toBe(200);
  return res.body as never;
}

const ids = (results: ReadonlyArray<{ identifier: string }>) => results.map((r) => r.identifier);

describe('one product, one result on POST /search (ARD v0.91 §5.3.2: a result carries registry terms beside the entry)', () => {
  it('collapses each product to its best ranked entry and names the others in @collapsed; two servers of one repository stay two', async () => {
    const every = ids((await search('?collapse=false')).results);
    expect([...every].sort()).toEqual(ids(ALL).sort());
    const { results } = await search();
    for (const group of [GROUPS.repository, GROUPS.package, GROUPS.remote]) {
      const members = ids(group);
      const best = every.find((id) => members.includes(id))!;
      const kept = results.filter((r) => members.includes(r.identifier));
      expect(kept.map((r) => r.identifier)).toEqual([best]);
      expect(kept[0]['@collapsed']).toEqual(every.filter((id) => members.includes(id) && id !== best));
    }
    for (const id of ids(GROUPS.mono)) expect(results.find((r) => r.identifier === id)?.['@collapsed']).toBeUndefined();
    expect(results).toHaveLength(3 + GROUPS.mono.length);
    // The kept entries keep their order and scores of the whole list.
    const uncollapsed = new Map((await search('?collapse=false')).results.map((r) => [r.identifier, r.score]));
    expect(results.map((r) => r.score)).toEqual(results.map((r) => uncollapsed.get(r.identifier)));
    expect(ids(results)).toEqual(every.filter((id) => ids(results).includes(id)));
  });

  it('?collapse=false lists every entry and names none as collapsed', async () => {
    const { results } = await search('?collapse=false');
    expect(results).toHaveLength(ALL.length);
    expect(results.every((r) => r['@collapsed'] === undefined)).toBe(true);
  });

  it('pages of the collapsed list never repeat an entry nor show a collapsed one, and page tokens keep working', async () => {
    const whole = ids((await search()).results);
    const paged: string[] = [];
    let pageToken: string | undefined;
    do {
      const page = await search('', { pageSize: 2, ...(pageToken ? { pageToken } : {}) });
      paged.push(...ids(page.results));
      pageToken = page.pageToken;
    } while (pageToken);
    expect(paged).toEqual(whole);
    // A token of the collapsed list is not one of the uncollapsed list (its offsets are another list's).
    const first = await search('', { pageSize: 2 });
    const res = await registry.post('/search?collapse=false', {
      query: { text: TEXT },
      federation: 'none',
      pageSize: 2,
      pageToken: first.pageToken,
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/pageToken is invalid/);
  });

  it('federation auto collapses the local list as none does', async () => {
    const res = await registry.post('/search', { query: { text: TEXT }, pageSize: 100 });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: Result) => [r.identifier, r['@collapsed']])).toEqual(
      (await search()).results.map((r) => [r.identifier, r['@collapsed']]),
    );
  });

  it('a collapse value other than true or false is a 400 naming the parameter', async () => {
    const res = await registry.post('/search?collapse=maybe', { query: { text: TEXT } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorCode: 'INVALID_ARGUMENT', message: "query parameter 'collapse' must be one of 'true', 'false'" });
  });
});

describe('every entry stays reachable (ARD v0.91 §5.3.4 Retrieve, §5.3.5 List)', () => {
  it('GET /agents lists every entry, collapsed or not', async () => {
    const res = await registry.get('/agents?pageSize=100');
    expect(res.status).toBe(200);
    expect(res.body.items.map((a: { identifier: string }) => a.identifier).sort()).toEqual(ids(ALL).sort());
  });

  it('GET /agents/{identifier} returns each collapsed entry exactly as ingested', async () => {
    const collapsed = (await search()).results.flatMap((r) => r['@collapsed'] ?? []);
    expect(collapsed).toHaveLength(4);
    for (const id of collapsed) {
      const res = await registry.get(`/agents/${encodeURIComponent(id)}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(ALL.find((e) => e.identifier === id));
    }
  });

  it('POST /explore counts the matched set, every entry of a product', async () => {
    const res = await registry.post('/explore', { query: { text: TEXT }, resultType: { facets: [{ field: 'type' }] } });
    expect(res.status).toBe(200);
    expect(res.body.facets.type.buckets).toEqual([{ value: MCP, count: ALL.length }]);
  });
});

describe('search_registry over MCP', () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'search-collapse', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${registry.url}/mcp`)));
  });
  afterAll(async () => {
    await client.close();
  });
  const call = async (args: Record<string, unknown>) => {
    const result = (await client.callTool({
      name: 'search_registry',
      arguments: { query: TEXT, federation: 'none', limit: 100, ...args },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    return (result.structuredContent as { results: Array<{ identifier: string; collapsed?: string[] }> }).results;
  };

  it('collapses as POST /search does, naming the others in `collapsed`; collapse: false lists every entry', async () => {
    const http = (await search()).results;
    expect((await call({})).map((r) => [r.identifier, r.collapsed])).toEqual(http.map((r) => [r.identifier, r['@collapsed']]));
    expect(await call({ collapse: false })).toHaveLength(ALL.length);
  });
});
