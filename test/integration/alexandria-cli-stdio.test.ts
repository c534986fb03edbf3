// `ard-registry mcp`: the library's three tools and the registry's two over stdio on the configured database, spawned the way an IDE does.
// stdout must carry only JSON-RPC (logs and library chatter go to stderr).
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { loadAlexandriaLibrary } from '../../src/alexandria';
import { ALEXANDRIA_LIBRARY_FILE } from '../../src/ingest/alexandria-corpus';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';

const ROOT = path.resolve(__dirname, '..', '..');

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ withDemoCorpus: true });
});
afterAll(async () => {
  await database.drop();
});

it('serves list_topics and get_resource over stdio with a clean stdout and logs on stderr', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [require.resolve('tsx/cli'), path.join(ROOT, 'src', 'cli.ts'), 'mcp'],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url, LOG_LEVEL: 'info' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const protocolErrors: Error[] = [];
  const client = new Client({ name: 'ide', version: '1.0.0' });
  client.onerror = (error) => protocolErrors.push(error);
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['get_registry_entry', 'get_resource', 'list_topics', 'search', 'search_registry']);
    const topics = (await client.callTool({ name: 'list_topics', arguments: {} })) as CallToolResult;
    expect((topics.structuredContent as { topics: unknown[] }).topics).toHaveLength(24);
    const library = await loadAlexandriaLibrary(ALEXANDRIA_LIBRARY_FILE);
    const record = library.records.find((r) => r.id === 'arxiv:2210.03629')!;
    const resource = (await client.callTool({ name: 'get_resource', arguments: { id: record.id } })) as CallToolResult;
    expect(JSON.stringify(resource.structuredContent)).toBe(JSON.stringify(record));
    const search = (await client.callTool({
      name: 'search',
      arguments: { query: 'ReAct reasoning and acting', limit: 3 },
    })) as CallToolResult;
    expect((search.structuredContent as { results: Array<{ id: string }> }).results.map((r) => r.id)).toContain('arxiv:2210.03629');
    // The registry's search (docs/mcp.md) on the same database: the demo corpus' Slack server for a Slack need.
    const registrySearch = (await client.callTool({
      name: 'search_registry',
      arguments: { query: 'post a message in a slack channel', kind: 'mcp-server', limit: 5 },
    })) as CallToolResult;
    expect(registrySearch.isError).toBeFalsy();
    const found = (
      registrySearch.structuredContent as { results: Array<{ identifier: string; name: string; type: string; score: number }> }
    ).results;
    expect(found.length).toBeGreaterThan(0);
    expect(found[0].name.toLowerCase()).toContain('slack');
    expect(found.every((r) => r.type === 'application/mcp-server-card+json')).toBe(true);
    const entry = (await client.callTool({ name: 'get_registry_entry', arguments: { identifier: found[0].identifier } })) as CallToolResult;
    expect((entry.structuredContent as { entry: { identifier: string } }).entry.identifier).toBe(found[0].identifier);
    expect(protocolErrors).toEqual([]);
    expect(stderr).toContain('alexandria mcp server on stdio');
  } finally {
    await client.close();
  }
}, 60000);
