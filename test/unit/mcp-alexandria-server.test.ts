import { once } from 'node:events';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import express from 'express';

import { AlexandriaLibraryService } from '../../src/alexandria/library-service';
import type { AlexandriaLibrary } from '../../src/alexandria/record';
import { violatesSponsorshipRule } from '../../src/alexandria/sponsorship';
import { createAlexandriaMcpServer, type ToolErrorLogger } from '../../src/mcp/alexandria-mcp-server';
import { mountMcpOverHttp } from '../../src/mcp/http-transport';
import { FailingResourceIndex, InMemoryResourceIndex } from './alexandria-test-double';
import { contractResult } from '../helpers/alexandria-contract';

type TransportKind = 'in-memory' | 'http';
interface Connection {
  client: Client;
  close(): Promise<void>;
  baseUrl?: string;
}

class CapturingLogger implements ToolErrorLogger {
  readonly entries: Array<{ details: Record<string, unknown>; message: string }> = [];
  error(details: Record<string, unknown>, message: string): void {
    this.entries.push({ details, message });
  }
}

let library: AlexandriaLibrary;
let service: AlexandriaLibraryService;
beforeAll(async () => {
  const built = await InMemoryResourceIndex.overShippedLibrary();
  library = built.library;
  service = new AlexandriaLibraryService({ index: built.index, topics: library.topics });
});

async function connect(kind: TransportKind, svc: AlexandriaLibraryService, logger: ToolErrorLogger): Promise<Connection> {
  const client = new Client({ name: 'alexandria-test-client', version: '1.0.0' });
  if (kind === 'in-memory') {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = createAlexandriaMcpServer(svc, { logger });
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
  const app = express();
  mountMcpOverHttp(app, '/mcp', () => createAlexandriaMcpServer(svc, { logger }), { logger });
  const http: HttpServer = app.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const { port } = http.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`)));
  return {
    client,
    baseUrl,
    close: async () => {
      await client.close();
      http.closeAllConnections();
      await new Promise<void>((resolve, reject) => http.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  if (!first || first.type !== 'text') throw new Error('expected a text content block');
  return first.text;
}

describe.each<TransportKind>(['in-memory', 'http'])('Alexandria MCP server over %s', (kind) => {
  let connection: Connection;
  let logger: CapturingLogger;
  beforeAll(async () => {
    logger = new CapturingLogger();
    connection = await connect(kind, service, logger);
  });
  afterAll(async () => {
    await connection.close();
  });

  const call = async (name: string, args?: Record<string, unknown>): Promise<CallToolResult> =>
    (await connection.client.callTool({ name, arguments: args ?? {} })) as CallToolResult;

  it('lists exactly the three tools with the contract input schemas', async () => {
    const { tools } = await connection.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['get_resource', 'list_topics', 'search']);
    const search = tools.find((t) => t.name === 'search')!;
    expect(search.description).toBe("Search Alexandria's curated agent-library index");
    expect(search.inputSchema.type).toBe('object');
    expect(search.inputSchema.required).toEqual(['query']);
    const props = search.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(Object.keys(props)).toEqual(['query', 'topic', 'kind', 'limit']);
    expect(props.query).toEqual({ type: 'string' });
    expect(props.topic).toEqual({ type: 'string' });
    expect(props.kind!.enum).toEqual(['paper', 'repo', 'post']);
    expect(props.limit).toMatchObject({ type: 'integer', default: 10, minimum: 1, maximum: 50 });
    expect(String(props.limit!.description)).toMatch(/1 to 50/);

    const getResource = tools.find((t) => t.name === 'get_resource')!;
    expect(getResource.inputSchema.required).toEqual(['id']);
    expect(Object.keys(getResource.inputSchema.properties ?? {})).toEqual(['id']);

    const listTopics = tools.find((t) => t.name === 'list_topics')!;
    expect(listTopics.inputSchema.properties ?? {}).toEqual({});
    expect(listTopics.inputSchema.required ?? []).toEqual([]);

    for (const tool of tools) {
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
  });

  it('search: answers the contract example request (kind: null) with the contract shape', async () => {
    const result = await call('search', { query: 'how do I add memory to my agent?', topic: 'memory', kind: null, limit: 10 });
    expect(result.isError).toBeFalsy();
    const body = result.structuredContent as { results: Array<Record<string, unknown>>; total: number; query_id: string };
    expect(JSON.parse(textOf(result))).toEqual(body);
    expect(Object.keys(body)).toEqual(['results', 'total', 'query_id']);
    expect(typeof body.total).toBe('number');
    expect(body.query_id).toMatch(/^q_[0-9a-f]{8}$/);
    expect(body.results.length).toBeGreaterThan(0);
    for (const r of body.results) {
      const record = library.records.find((x) => x.id === r.id)!;
      expect(r).toEqual(contractResult(record, expect.any(Number)));
      expect(r.tags).toContain('memory');
    }
    expect(violatesSponsorshipRule(body.results as Array<{ score: number; sponsored?: boolean }>)).toBe(false);
  });

  it('search: applies the default limit of 10 and filters by kind', async () => {
    const defaulted = await call('search', { query: 'agents' });
    expect((defaulted.structuredContent as { results: unknown[] }).results).toHaveLength(10);
    const papers = await call('search', { query: 'agents benchmark', kind: 'paper', limit: 50 });
    const results = (papers.structuredContent as { results: Array<{ kind: string }> }).results;
    expect(results.length).toBeGreaterThan(10);
    expect(results.every((r) => r.kind === 'paper')).toBe(true);
  });

  it('get_resource: returns the full v1 record exactly as ingested', async () => {
    const result = await call('get_resource', { id: 'arxiv:2210.03629' });
    expect(result.isError).toBeFalsy();
    const react = library.records.find((r) => r.id === 'arxiv:2210.03629');
    expect(result.structuredContent).toStrictEqual(react);
    expect(textOf(result)).toBe(JSON.stringify(react));
    const mem0 = await call('get_resource', { id: 'github:mem0ai/mem0' });
    expect(mem0.structuredContent).toMatchObject({ id: 'github:mem0ai/mem0', sponsored: true });
  });

  it('list_topics: returns the 24 topics with counts', async () => {
    const result = await call('list_topics');
    expect(result.isError).toBeFalsy();
    const { topics } = result.structuredContent as { topics: Array<{ topic: string; entries: number }> };
    expect(topics).toHaveLength(24);
    expect(topics.slice(0, 3)).toEqual([
      { topic: 'agents', entries: 67 },
      { topic: 'tool-use', entries: 39 },
      { topic: 'benchmarks', entries: 29 },
    ]);
    expect(new Set(topics.map((t) => t.topic))).toEqual(new Set(library.topics));
  });

  it.each<[string, string, Record<string, unknown>, RegExp]>([
    [
      'an unknown id',
      'get_resource',
      { id: 'arxiv:2401.00001' },
      /^resource not found: "arxiv:2401\.00001" is not in the Alexandria library$/,
    ],
    [
      'a malformed id',
      'get_resource',
      { id: 'arxiv:2210.03629v2' },
      /^malformed resource id "arxiv:2210\.03629v2": arXiv ids are stored without a version suffix/,
    ],
    ['a missing id', 'get_resource', {}, /id is required and must be a string/],
    ['a bad kind', 'search', { query: 'x', kind: 'book' }, /kind must be one of: paper, repo, post \(got "book"\)/],
    ['a bad topic', 'search', { query: 'x', topic: 'vibes' }, /invalid topic "vibes": topic must be one of: agents, memory, .*simulation/],
    ['limit 0', 'search', { query: 'x', limit: 0 }, /limit must be an integer from 1 to 50/],
    ['limit 51', 'search', { query: 'x', limit: 51 }, /limit must be an integer from 1 to 50/],
    ['limit 2.5', 'search', { query: 'x', limit: 2.5 }, /limit must be an integer from 1 to 50/],
    ['limit "ten"', 'search', { query: 'x', limit: 'ten' }, /limit must be an integer from 1 to 50/],
    ['a missing query', 'search', {}, /query is required and must be a string/],
    ['an empty query', 'search', { query: '' }, /query must be a non-empty string/],
  ])('fails closed on %s with isError and a clear message', async (_label, tool, args, message) => {
    const result = await call(tool, args);
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(textOf(result)).toMatch(message);
  });

  it('never echoes an internal error: a request id is returned and the details are logged', async () => {
    const failingLogger = new CapturingLogger();
    const failing = await connect(
      kind,
      new AlexandriaLibraryService({ index: new FailingResourceIndex(), topics: library.topics }),
      failingLogger,
    );
    try {
      for (const [tool, args] of [
        ['search', { query: 'memory' }],
        ['get_resource', { id: 'arxiv:2210.03629' }],
        ['list_topics', {}],
      ] as const) {
        const result = (await failing.client.callTool({ name: tool, arguments: args })) as CallToolResult;
        expect(result.isError).toBe(true);
        const text = textOf(result);
        expect(text).toMatch(/^internal error \(request id [0-9a-f-]{36}\)$/);
        expect(text).not.toContain('hunter2');
        const requestId = /request id ([0-9a-f-]{36})/.exec(text)![1];
        const logged = failingLogger.entries.find((e) => e.details.requestId === requestId);
        expect(logged?.details.tool).toBe(tool);
        expect((logged?.details.err as Error).message).toBe(FailingResourceIndex.SECRET);
      }
    } finally {
      await failing.close();
    }
    expect(logger.entries).toEqual([]);
  });

  if (kind === 'http') {
    it('answers GET and DELETE on the stateless endpoint with 405', async () => {
      for (const method of ['GET', 'DELETE']) {
        const response = await fetch(`${connection.baseUrl}/mcp`, { method });
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe('POST');
      }
    });

    it('serves each POST with a fresh server (no session id is issued)', async () => {
      const response = await fetch(`${connection.baseUrl}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_topics', arguments: {} } }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('mcp-session-id')).toBeNull();
      const body = (await response.json()) as { result: { structuredContent: { topics: unknown[] } } };
      expect(body.result.structuredContent.topics).toHaveLength(24);
    });
  }
});
