// The registry's own tools over MCP (docs/mcp.md): search_registry answers as POST /search does (ARD §7.2: the
// same ranking, filter and federation) and get_registry_entry as GET /agents/{identifier} (ARD v0.91 §5.3.4),
// with the SDK's real Client over HTTP at the registry's /mcp, on the demo corpus in the real PostgreSQL.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { startTestRegistry, type TestRegistry } from '../helpers/registry';

interface RegistryResult {
  identifier: string;
  name: string;
  type: string;
  kind: string;
  description: string;
  connect: { url?: string; mcpServers?: Record<string, unknown>; readFrom?: string };
  matchedTools: string[];
  score: number;
  source: string;
}

let registry: TestRegistry;
let client: Client;
beforeAll(async () => {
  registry = await startTestRegistry();
  client = new Client({ name: 'registry-mcp-integration', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${registry.url}/mcp`)));
});
afterAll(async () => {
  await client.close();
  await registry.close();
});

const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

async function postSearch(
  body: unknown,
): Promise<{ results: Array<{ identifier: string; score: number; type: string }>; pageToken?: string }> {
  const response = await fetch(`${registry.url}/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as never;
}

it('lists the registry tools beside the library three', async () => {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(['get_registry_entry', 'get_resource', 'list_topics', 'search', 'search_registry']);
  const props = tools.find((t) => t.name === 'search_registry')!.inputSchema.properties as Record<string, Record<string, unknown>>;
  expect(Object.keys(props)).toEqual(['query', 'kind', 'filter', 'federation', 'limit', 'pageToken', 'collapse']);
  expect(props.kind!.enum).toEqual(['mcp-server', 'agent', 'skill']);
  // The score line an LLM reads is the ranking's "relevant" line (docs/relevance.md), not the matched set's cutoff.
  expect(tools.find((t) => t.name === 'search_registry')!.description).toContain('score 0-100: 50 and above a relevant match');
});

// ARD §7.2: one ranking: the tool's results are POST /search's, in its order, with its scores.
it('search_registry answers as POST /search: same entries, order, scores and next page', async () => {
  const result = await call('search_registry', { query: 'send a message to a slack channel', limit: 5 });
  expect(result.isError).toBeFalsy();
  const body = result.structuredContent as { results: RegistryResult[]; nextPageToken?: string };
  expect(JSON.parse(textOf(result))).toEqual(body);
  const rest = await postSearch({ query: { text: 'send a message to a slack channel' }, pageSize: 5 });
  expect(body.results.map((r) => [r.identifier, r.score])).toEqual(rest.results.map((r) => [r.identifier, r.score]));
  expect(
    body.results
      .map((r) => r.name)
      .join(' ')
      .toLowerCase(),
  ).toContain('slack');
  expect(body.nextPageToken).toBe(rest.pageToken);
  for (const r of body.results) {
    expect(r.source).toBe(registry.ctx.config.publicUrl);
    expect(r.kind).toBe('mcp-server');
    expect(typeof r.description).toBe('string');
  }
  const next = await call('search_registry', { query: 'send a message to a slack channel', limit: 5, pageToken: body.nextPageToken });
  const restNext = await postSearch({ query: { text: 'send a message to a slack channel' }, pageSize: 5, pageToken: rest.pageToken });
  expect((next.structuredContent as { results: RegistryResult[] }).results.map((r) => r.identifier)).toEqual(
    restNext.results.map((r) => r.identifier),
  );
});

it('search_registry narrows by kind and by an ARD filter (§7.1)', async () => {
  const skills = (await call('search_registry', { query: 'write tests for my code', kind: 'skill' })).structuredContent as {
    results: RegistryResult[];
  };
  expect(skills.results.length).toBeGreaterThan(0);
  expect(new Set(skills.results.map((r) => r.type))).toEqual(new Set(['application/ai-skill']));
  const filtered = (
    await call('search_registry', { query: 'payments', filter: { identifier: 'urn:air:mcp.stripe.com:mcp:stripe-remote' } })
  ).structuredContent as { results: RegistryResult[] };
  expect(filtered.results.map((r) => r.identifier)).toEqual(['urn:air:mcp.stripe.com:mcp:stripe-remote']);
});

it('says which tools matched: the tool names that share a stemmed word with the query, camelCase and _ split', async () => {
  const result = (await call('search_registry', { query: 'take a screenshot of the page', kind: 'mcp-server', limit: 20 }))
    .structuredContent as { results: RegistryResult[] };
  const byId = new Map(result.results.map((r) => [r.identifier, r.matchedTools]));
  expect(byId.get('urn:air:github.com:ChromeDevTools:chrome-devtools-mcp')).toContain('take_screenshot');
  expect(byId.get('urn:air:github.com:graphlit:graphlit-mcp-server')).toContain('screenshotPage');
  for (const r of result.results) expect(r.matchedTools.length).toBeLessThanOrEqual(5);
  const none = (await call('search_registry', { query: 'stripe', limit: 3 })).structuredContent as { results: RegistryResult[] };
  expect(none.results[0].matchedTools).toEqual([]);
});

it('says how to connect: the url, and the mcpServers block the entry states', async () => {
  const remote = (await call('search_registry', { query: 'stripe', limit: 10 })).structuredContent as { results: RegistryResult[] };
  const stripeRemote = remote.results.find((r) => r.identifier === 'urn:air:mcp.stripe.com:mcp:stripe-remote')!;
  expect(stripeRemote.connect).toEqual({
    url: 'https://mcp.stripe.com',
    mcpServers: { 'stripe-remote': { type: 'http', url: 'https://mcp.stripe.com' } },
    readFrom: 'the entry’s remote URL',
  });
  const entry = await call('get_registry_entry', { identifier: 'urn:air:github.com:nickclyde:duckduckgo-mcp-server' });
  expect(entry.isError).toBeFalsy();
  const body = entry.structuredContent as { entry: Record<string, unknown>; connect: RegistryResult['connect'] };
  const rest = await fetch(`${registry.url}/agents/${encodeURIComponent('urn:air:github.com:nickclyde:duckduckgo-mcp-server')}`);
  expect(body.entry).toEqual(await rest.json());
  expect(body.connect.mcpServers).toEqual({ duckduckgo: { command: 'docker', args: ['run', '-i', '--rm', 'mcp/duckduckgo'] } });
});

it('answers a client mistake with isError and a message naming it, never an internal error', async () => {
  const unknown = await call('get_registry_entry', { identifier: 'urn:air:example.com:nothing:here' });
  expect(unknown.isError).toBe(true);
  expect(textOf(unknown)).toContain('urn:air:example.com:nothing:here');
  const token = await call('search_registry', { query: 'slack', pageToken: 'not-a-token' });
  expect(token.isError).toBe(true);
  expect(textOf(token)).toMatch(/pageToken/i);
  const kind = await call('search_registry', { query: 'slack', kind: 'robot' });
  expect(kind.isError).toBe(true);
  expect(textOf(kind)).toContain('kind must be one of: mcp-server, agent, skill');
  const limit = await call('search_registry', { query: 'slack', limit: 500 });
  expect(limit.isError).toBe(true);
  expect(textOf(limit)).toContain('limit must be an integer from 1 to 100');
});
