// The three Alexandria tools end to end on the registry's own store and ranking engine (real Postgres):
// with the SDK's real Client over an in-memory transport and over HTTP at the registry's /mcp.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';

import {
  type AlexandriaLibrary,
  loadAlexandriaLibrary,
  recordToCatalogEntry,
  urnToAlexandriaId,
  violatesSponsorshipRule,
} from '../../src/alexandria';
import type { Database } from '../../src/db/schema';
import { registryLibrary } from '../../src/alexandria/registry-resource-index';
import { ALEXANDRIA_LIBRARY_FILE } from '../../src/ingest/alexandria-corpus';
import { createSearchService } from '../../src/search/search-service';
import { createAlexandriaMcpServer, type ToolErrorLogger } from '../../src/mcp';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';
import { databaseUrl } from '../helpers/test-database';
import { contractResult } from '../helpers/alexandria-contract';

class CapturingLogger implements ToolErrorLogger {
  readonly entries: Array<{ details: Record<string, unknown>; message: string }> = [];
  error(details: Record<string, unknown>, message: string): void {
    this.entries.push({ details, message });
  }
}

const SPONSORED = ['github:mem0ai/mem0', 'github:AgentOps-AI/agentops', 'github:ComposioHQ/composio'];
const RESULT_FIELDS = ['id', 'kind', 'title', 'url', 'tags', 'date', 'description', 'score', 'sponsored'];

let registry: TestRegistry;
let library: AlexandriaLibrary;
beforeAll(async () => {
  registry = await startTestRegistry();
  library = await loadAlexandriaLibrary(ALEXANDRIA_LIBRARY_FILE);
});
afterAll(async () => {
  await registry.close();
});

interface Connection {
  client: Client;
  close(): Promise<void>;
}

async function connect(kind: 'in-memory' | 'http'): Promise<Connection> {
  const client = new Client({ name: 'alexandria-integration', version: '1.0.0' });
  if (kind === 'http') {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${registry.url}/mcp`)));
    return { client, close: () => client.close() };
  }
  const server = createAlexandriaMcpServer(registry.ctx.library.service, { logger: new CapturingLogger() });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  if (!first || first.type !== 'text') throw new Error('expected one text block');
  return first.text;
}

type SearchBody = {
  results: Array<Record<string, unknown> & { id: string; score: number; sponsored?: true }>;
  total: number;
  query_id: string;
};

describe.each(['in-memory', 'http'] as const)('Alexandria tools on the registry store, over %s', (kind) => {
  let connection: Connection;
  beforeAll(async () => {
    connection = await connect(kind);
  });
  afterAll(async () => {
    await connection.close();
  });
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await connection.client.callTool({ name, arguments: args })) as CallToolResult;
  const search = async (args: Record<string, unknown>): Promise<SearchBody> => {
    const result = await call('search', args);
    expect(result.isError).toBeFalsy();
    return result.structuredContent as SearchBody;
  };

  it('lists the three tools with the contract input schema (the registry /mcp adds its own two)', async () => {
    const { tools } = await connection.client.listTools();
    const registryTools = kind === 'http' ? ['get_registry_entry', 'search_registry'] : [];
    expect(tools.map((t) => t.name).sort()).toEqual(['get_resource', 'list_topics', 'search', ...registryTools].sort());
    const props = tools.find((t) => t.name === 'search')!.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(Object.keys(props)).toEqual(['query', 'topic', 'kind', 'limit']);
    expect(props.kind!.enum).toEqual(['paper', 'repo', 'post']);
    expect(props.limit).toMatchObject({ type: 'integer', default: 10 });
  });

  it('search: contract shape field by field, records exactly as stored, real ranking finds the memory work', async () => {
    const result = await call('search', { query: 'how do I add memory to my agent?', topic: 'memory', kind: null, limit: 10 });
    expect(result.isError).toBeFalsy();
    const body = result.structuredContent as SearchBody;
    expect(JSON.parse(textOf(result))).toEqual(body);
    expect(Object.keys(body)).toEqual(['results', 'total', 'query_id']);
    expect(body.query_id).toMatch(/^q_[0-9a-f]{8}$/);
    expect(body.results).toHaveLength(10);
    expect(body.total).toBeGreaterThanOrEqual(10);
    expect(body.total).toBeLessThanOrEqual(library.records.filter((r) => r.tags.includes('memory')).length);
    for (const r of body.results) {
      const record = library.records.find((x) => x.id === r.id)!;
      expect(record).toBeDefined();
      const keys = Object.keys(r);
      expect(keys).toEqual(RESULT_FIELDS.filter((f) => keys.includes(f))); // the contract's field order
      expect(r).toEqual(contractResult(record, r.score));
      expect(record.tags).toContain('memory');
      expect(r.score).toBeGreaterThan(0);
      expect(r.score).toBeLessThanOrEqual(1);
      expect(Math.round(r.score * 100) / 100).toBe(r.score);
    }
    const ids = body.results.map((r) => r.id);
    expect(
      ids.some((id) => ['arxiv:2310.08560', 'github:letta-ai/letta', 'github:langchain-ai/langmem', 'github:mem0ai/mem0'].includes(id)),
    ).toBe(true);
  });

  it('search: kind filters, and entries of the other corpora never appear', async () => {
    const repos = await search({ query: 'postgres database server', kind: 'repo', limit: 50 });
    expect(repos.results.length).toBeGreaterThan(0);
    for (const r of repos.results) {
      expect(r.kind).toBe('repo');
      expect(library.records.some((x) => x.id === r.id)).toBe(true);
    }
  });

  it('search: same engine and scores as POST /search (score = relevance / 100), editorial order kept (ARD §7.2)', async () => {
    const text = 'evaluate agents with a benchmark';
    const body = await search({ query: text, limit: 20 });
    const ard = await registry.post('/search', {
      query: { text, filter: { type: 'application/vnd.alexandria.resource+json' } },
      pageSize: 100,
    });
    expect(ard.status).toBe(200);
    const ardScores = new Map<string, number>(
      ard.body.results.map((e: { identifier: string; score: number }) => [urnToAlexandriaId(e.identifier), e.score]),
    );
    for (const r of body.results) expect(r.score).toBe(ardScores.get(r.id)! / 100);
    const ardEditorial = [...ardScores.keys()].filter((id) => !SPONSORED.includes(id));
    const shownEditorial = body.results.filter((r) => !r.sponsored).map((r) => r.id);
    expect(shownEditorial).toEqual(ardEditorial.slice(0, shownEditorial.length));
  });

  it.each([
    ['add long-term memory to my agent', 'github:mem0ai/mem0'],
    ['monitor and trace my agent runs in production: observability, cost and replay', 'github:AgentOps-AI/agentops'],
    ['connect my agent to hundreds of third-party app integrations and tools', 'github:ComposioHQ/composio'],
  ])(
    'sponsorship on real ranking: %s -> %s is marked and never above an editorial record with an equal or higher score',
    async (query, sponsoredId) => {
      const body = await search({ query, limit: 50 });
      const sponsoredResult = body.results.find((r) => r.id === sponsoredId);
      expect(sponsoredResult).toBeDefined();
      expect(sponsoredResult!.sponsored).toBe(true);
      for (const r of body.results) {
        if (SPONSORED.includes(r.id)) expect(r.sponsored).toBe(true);
        else expect('sponsored' in r).toBe(false);
      }
      expect(violatesSponsorshipRule(body.results)).toBe(false);
      const position = body.results.indexOf(sponsoredResult!);
      for (const below of body.results.slice(position + 1)) if (!below.sponsored) expect(below.score).toBeLessThan(sponsoredResult!.score);
      const scores = body.results.map((r) => r.score);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    },
  );

  it('get_resource: the complete v1 record exactly as ingested (same JSON, same key order)', async () => {
    const records = kind === 'in-memory' ? library.records : library.records.filter((_, i) => i % 9 === 0);
    for (const record of records) {
      const result = await call('get_resource', { id: record.id });
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.structuredContent)).toBe(JSON.stringify(record));
      expect(textOf(result)).toBe(JSON.stringify(record));
    }
  });

  it('get_resource: unknown id is not found (never a near match); malformed id says why', async () => {
    const unknown = await call('get_resource', { id: 'arxiv:2210.03620' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toBe('resource not found: "arxiv:2210.03620" is not in the Alexandria library');
    const wrongCase = await call('get_resource', { id: 'github:Letta-AI/letta' });
    expect(wrongCase.isError).toBe(true);
    expect(textOf(wrongCase)).toMatch(/^resource not found/);
    const versioned = await call('get_resource', { id: 'arxiv:2210.03629v2' });
    expect(versioned.isError).toBe(true);
    expect(textOf(versioned)).toMatch(/^malformed resource id "arxiv:2210.03629v2": .*version suffix/);
  });

  it('bad arguments fail with a reason', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['search', { query: 'memory', kind: 'book' }, /kind must be one of: paper, repo, post/],
      ['search', { query: 'memory', limit: 0 }, /limit must be an integer from 1 to 50/],
      ['search', { query: 'memory', limit: 51 }, /limit must be an integer from 1 to 50/],
      ['search', {}, /query is required and must be a string/],
      ['search', { query: '   ' }, /query must be a non-empty string/],
      ['search', { query: 'memory', topic: 'vibes' }, /invalid topic "vibes": topic must be one of: agents/],
      ['get_resource', {}, /id is required and must be a string/],
    ];
    for (const [tool, args, message] of cases) {
      const result = await call(tool, args);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(message);
    }
  });

  it('text PostgreSQL cannot store never reaches it: search reads NUL and an unpaired surrogate as a word break, get_resource calls the id malformed', async () => {
    const plain = await search({ query: 'memory' });
    expect(plain.results.length).toBeGreaterThan(0);
    for (const query of ['memory \u0000', 'memory \udfff']) {
      // The character still reaches the embedder, which moves scores by a point or two, not the top.
      expect((await search({ query })).results.slice(0, 3).map((r) => r.id)).toEqual(plain.results.slice(0, 3).map((r) => r.id));
    }
    for (const id of ['arxiv:2305.10250\u0000', 'arxiv:2305.10250\udfff']) {
      const result = await call('get_resource', { id });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^malformed resource id/);
    }
  });

  it('list_topics: the 24 topics with live counts from the store, highest first, taxonomy order on ties', async () => {
    const result = await call('list_topics');
    expect(result.isError).toBeFalsy();
    const { topics } = result.structuredContent as { topics: Array<{ topic: string; entries: number }> };
    expect(topics).toHaveLength(24);
    expect(topics.map((t) => t.topic).sort()).toEqual([...library.topics].sort());
    for (const t of topics) {
      expect(Object.keys(t)).toEqual(['topic', 'entries']);
      expect(t.entries).toBe(library.records.filter((r) => r.tags.includes(t.topic)).length);
    }
    for (let i = 1; i < topics.length; i += 1) {
      const [a, b] = [topics[i - 1]!, topics[i]!];
      expect(a.entries > b.entries || (a.entries === b.entries && library.topics.indexOf(a.topic) < library.topics.indexOf(b.topic))).toBe(
        true,
      );
    }
  });
});

describe('list_topics counts are live', () => {
  it('a deleted (tombstoned) entry no longer counts', async () => {
    const { service } = registry.ctx.library;
    const before = (await service.listTopics()).topics;
    const record = library.records.find((r) => r.id === 'github:letta-ai/letta')!;
    const identifier = recordToCatalogEntry(record).identifier;
    await registry.ctx.db.updateTable('entries').set({ deleted_at: new Date() }).where('identifier', '=', identifier).execute();
    try {
      const after = (await service.listTopics()).topics;
      for (const topic of library.topics) {
        const delta = before.find((t) => t.topic === topic)!.entries - after.find((t) => t.topic === topic)!.entries;
        expect(delta).toBe(record.tags.includes(topic) ? 1 : 0);
      }
      await expect(service.getResource(record.id)).rejects.toThrow(/resource not found/);
    } finally {
      await registry.ctx.db.updateTable('entries').set({ deleted_at: null }).where('identifier', '=', identifier).execute();
    }
  });
});

describe('list_topics counts are POST /explore facet counts', () => {
  it('equal the tags facet of /explore over the Alexandria entries, and the library file', async () => {
    const res = await registry.post('/explore', {
      query: { filter: { type: 'application/vnd.alexandria.resource+json' } },
      resultType: { facets: [{ field: 'tags', limit: 100 }] },
    });
    expect(res.status).toBe(200);
    const viaExplore = Object.fromEntries(res.body.facets.tags.buckets.map((b: { value: string; count: number }) => [b.value, b.count]));
    const { service } = registry.ctx.library;
    const { topics } = await service.listTopics();
    expect(topics).toHaveLength(library.topics.length);
    for (const { topic, entries } of topics) {
      expect(entries).toBe(viaExplore[topic] ?? 0);
      expect(entries).toBe(library.records.filter((r) => r.tags.includes(topic)).length);
    }
  });
});

describe('internal errors are not leaked', () => {
  it('a store failure becomes "internal error (request id ...)" and is logged with that id', async () => {
    const missing = `ard_test_missing_${Date.now()}`;
    const pool = new pg.Pool({ connectionString: databaseUrl(missing), max: 1 });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const logger = new CapturingLogger();
    const search = createSearchService({
      db,
      embedder: registry.ctx.embedder,
      pageTokens: registry.ctx.pageTokens,
      publicUrl: registry.ctx.config.publicUrl,
    });
    const { service } = registryLibrary(library, { db, search });
    const server = createAlexandriaMcpServer(service, { logger });
    const client = new Client({ name: 'alexandria-integration', version: '1.0.0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    await client.connect(clientSide);
    try {
      for (const [name, args] of [
        ['search', { query: 'memory' }],
        ['get_resource', { id: 'arxiv:2210.03629' }],
        ['list_topics', {}],
      ] as const) {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        expect(result.isError).toBe(true);
        const text = textOf(result);
        expect(text).toMatch(/^internal error \(request id [0-9a-f-]{36}\)$/);
        expect(text).not.toContain(missing);
        const requestId = /request id ([0-9a-f-]{36})/.exec(text)![1];
        expect(
          logger.entries.some((e) => e.details.requestId === requestId && String((e.details.err as Error).message).includes(missing)),
        ).toBe(true);
      }
    } finally {
      await client.close();
      await server.close();
      await db.destroy();
    }
  });
});

describe('POST /search finds the library (ARD §7.2)', () => {
  it('"add long-term memory to my agent" returns Alexandria entries among the first results', async () => {
    const res = await registry.post('/search', { query: { text: 'add long-term memory to my agent' }, pageSize: 10 });
    expect(res.status).toBe(200);
    const alexandria = res.body.results.filter((e: { type: string }) => e.type === 'application/vnd.alexandria.resource+json');
    expect(alexandria.length).toBeGreaterThanOrEqual(3);
    const ids = alexandria.map((e: { identifier: string }) => urnToAlexandriaId(e.identifier));
    expect(
      ids.some((id: string) =>
        ['github:letta-ai/letta', 'arxiv:2310.08560', 'github:langchain-ai/langmem', 'github:mem0ai/mem0'].includes(id),
      ),
    ).toBe(true);
  });
});

describe('/mcp over HTTP', () => {
  it('GET and DELETE answer 405 (stateless endpoint)', async () => {
    const res = await registry.get('/mcp');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});
