// A long query text (an orchestrator's whole message, a pasted log, an inline image) is searched on its first
// SEARCHED_QUERY_LENGTH characters, and the answer says so (docs/api.md "Registry extensions",
// `Registry-Query-Cut`); beyond MAX_QUERY_LENGTH it is a 400 naming the limit. On the demo corpus in PostgreSQL.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MAX_QUERY_LENGTH, SEARCHED_QUERY_LENGTH, searchedQueryText } from '../../src/search/query-text';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

let registry: TestRegistry;
beforeAll(async () => {
  registry = await startTestRegistry({ config: { rateLimitPerMinute: 0, requestTimeoutMs: 120_000 } });
});
afterAll(() => registry.close());

// A question, then a payload: 18,000 characters of base64 in lines of 76, as a mail client wraps an attachment.
const QUESTION = 'send a message to a slack channel when a github pull request is merged, the attachment says which one:';
const PAYLOAD = Array.from({ length: 240 }, (_, i) => Buffer.alloc(57, i).toString('base64')).join('\n');
const LONG = `${QUESTION}\n${PAYLOAD}`;

const identifiers = (body: { results: Array<{ identifier: string }> }) => body.results.map((r) => r.identifier);

describe('a query text longer than the part searched', () => {
  it('POST /search answers 200 with the results of its first part, and says where it was cut', async () => {
    const { text: searched, cutFrom } = searchedQueryText(LONG);
    expect(cutFrom).toBe(LONG.length);
    expect(searched.length).toBeLessThanOrEqual(SEARCHED_QUERY_LENGTH);
    expect(LONG.startsWith(searched)).toBe(true);
    // Cut between two lines: no line of the payload is read in part.
    expect(/\s/.test(LONG[searched.length]!)).toBe(true);

    const long = await registry.post('/search', { query: { text: LONG }, pageSize: 10 }, { origin: 'https://app.example' });
    expect(long.status).toBe(200);
    expect(long.headers.get('registry-query-cut')).toBe(`searched=${searched.length}, length=${LONG.length}`);
    // A page in a browser on another origin may read it.
    expect(long.headers.get('access-control-expose-headers')).toContain('Registry-Query-Cut');
    const first = await registry.post('/search', { query: { text: searched }, pageSize: 10 });
    expect(first.headers.get('registry-query-cut')).toBeNull();
    expect(identifiers(long.body)).toEqual(identifiers(first.body));
    expect(long.body.results.map((r: { score: number }) => r.score)).toEqual(first.body.results.map((r: { score: number }) => r.score));
    // The question's two needs are what the payload was sent with.
    const ids = identifiers(long.body).slice(0, 5).join(' ');
    expect(ids).toMatch(/slack/);
    expect(ids).toMatch(/github/);
  });

  it('its next page is the next page of the same list', async () => {
    const page1 = await registry.post('/search', { query: { text: LONG }, pageSize: 3 });
    const page2 = await registry.post('/search', { query: { text: LONG }, pageSize: 3, pageToken: page1.body.pageToken });
    expect(page2.status).toBe(200);
    const whole = await registry.post('/search', { query: { text: LONG }, pageSize: 6 });
    expect([...identifiers(page1.body), ...identifiers(page2.body)]).toEqual(identifiers(whole.body));
  });

  it('POST /explore counts the matches of the same first part, with the same header', async () => {
    const request = (text: string) => ({ query: { text }, resultType: { facets: [{ field: 'type' }, { field: 'tags' }] } });
    const long = await registry.post('/explore', request(LONG));
    expect(long.status).toBe(200);
    const { text: searched } = searchedQueryText(LONG);
    expect(long.headers.get('registry-query-cut')).toBe(`searched=${searched.length}, length=${LONG.length}`);
    const first = await registry.post('/explore', request(searched));
    expect(long.body).toEqual(first.body);
  });

  it('the MCP search_registry tool answers it and says where it was cut', async () => {
    const client = new Client({ name: 'long-query-text', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${registry.url}/mcp`)));
    try {
      const result = (await client.callTool({ name: 'search_registry', arguments: { query: LONG, limit: 5 } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      const { text: searched } = searchedQueryText(LONG);
      const content = result.structuredContent as { results: Array<{ identifier: string }>; queryCut?: unknown };
      expect(content.queryCut).toEqual({ searched: searched.length, length: LONG.length });
      const first = await registry.post('/search', { query: { text: searched }, pageSize: 5 });
      expect(content.results.map((r) => r.identifier)).toEqual(identifiers(first.body));
    } finally {
      await client.close();
    }
  });

  it(`beyond ${MAX_QUERY_LENGTH} characters it is a 400 naming the limit, on both routes`, async () => {
    const text = `${QUESTION} ${'y'.repeat(MAX_QUERY_LENGTH)}`;
    for (const [path, body] of [
      ['/search', { query: { text } }],
      ['/explore', { query: { text }, resultType: { facets: [{ field: 'type' }] } }],
    ] as const) {
      const res = await registry.post(path, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        errorCode: 'INVALID_ARGUMENT',
        message: `query.text is ${text.length} characters long; at most ${MAX_QUERY_LENGTH} are accepted`,
      });
    }
  });
});
