// Client errors are 4xx in the ARD error shape {errorCode, message} (ARD Appendix B), never a 500 or a
// hang: bodies not encoded as their Content-Encoding says, broken percent-escapes in paths and query
// strings, an announced oversized body, an empty MCP batch. HEAD works wherever GET does, every 503
// carries Retry-After, and tokens in a query string never reach the log.
import net from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger';
import { fakeEmbedder } from '../helpers/fake-embedder';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

const TOKEN = 'client-errors-admin-token';

/** A raw HTTP/1.1 exchange: the status line and how long it took, the connection closed by either side. */
function rawRequest(port: number, head: string, body: string): Promise<{ status: number; text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect(port, '127.0.0.1', () => socket.write(head + body));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      text += chunk;
      // The whole answer is in once its JSON body closed.
      if (/\r\n\r\n[\s\S]*}$/.test(text)) {
        resolve({ status: Number(text.slice(9, 12)), text, ms: performance.now() - started });
        socket.destroy();
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve({ status: Number(text.slice(9, 12)), text, ms: performance.now() - started }));
  });
}

describe('client errors are 4xx with {errorCode, message}', () => {
  let registry: TestRegistry;
  let logLines: string[];

  beforeAll(async () => {
    logLines = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    registry = await startTestRegistry({
      config: { rateLimitPerMinute: 0, adminToken: TOKEN, requestTimeoutMs: 5000 },
      context: { embedder: fakeEmbedder(), logger: createLogger('info', {}, sink) },
    });
  });
  afterAll(() => registry.close());

  it.each(
    ['gzip', 'br', 'deflate'].flatMap((encoding) => ['/search', '/explore', '/mcp', '/admin/sources'].map((path) => [encoding, path])),
  )('Content-Encoding: %s on a body that is not encoded, POST %s: 400', async (encoding, path) => {
    const res = await fetch(`${registry.url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-encoding': encoding,
        authorization: `Bearer ${TOKEN}`,
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ query: { text: 'weather' } }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      errorCode: 'INVALID_ARGUMENT',
      message: 'the request body is not encoded as its Content-Encoding says',
    });
  });

  it.each([
    ['/library/%ff/%fe.json', 400],
    ['/library/arxiv/%.json', 400],
    ['/agents/%ff', 400],
    ['/agents?filter=tags:a%2', 400],
    ['/agents?filter=%E0%A4%A', 400],
  ])('GET %s: %d naming the broken escape', async (path, status) => {
    const res = await registry.get(path);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ errorCode: 'INVALID_ARGUMENT', message: expect.stringMatching(/percent-encoding/) });
  });

  it('413 at once for a Content-Length over MAX_BODY_BYTES, without waiting for the body', async () => {
    const res = await rawRequest(
      Number(new URL(registry.url).port),
      'POST /search HTTP/1.1\r\nHost: registry.test\r\nContent-Type: application/json\r\nContent-Length: 99999999999\r\n\r\n',
      '{"query":',
    );
    expect(res.status).toBe(413);
    expect(res.ms).toBeLessThan(registry.ctx.config.requestTimeoutMs / 2);
    expect(res.text).toMatch(
      /"errorCode":"INVALID_ARGUMENT","message":"the request body \(Content-Length: 99999999999\) is larger than 65536 bytes"/,
    );
  });

  it('an empty JSON-RPC batch to /mcp is a 400, not a 202', async () => {
    const res = await fetch(`${registry.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '[]',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
  });

  it("HEAD answers wherever GET does, with GET's status and headers and no body", async () => {
    const paths = [
      '/agents',
      '/agents?pageSize=2',
      '/agents/urn:air:github.com:aliyun:alibabacloud-adb-mysql-mcp-server',
      '/healthz',
      '/llms.txt',
      '/.well-known/ai-catalog.json',
    ];
    for (const path of paths) {
      const get = await fetch(`${registry.url}${path}`);
      const head = await fetch(`${registry.url}${path}`, { method: 'HEAD' });
      expect([path, head.status]).toEqual([path, 200]);
      expect(get.status).toBe(200);
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
      expect(await head.text()).toBe('');
    }
    expect((await fetch(`${registry.url}/agents/urn:air:nobody.test:x:y`, { method: 'HEAD' })).status).toBe(404);
  });

  it('never writes an admin token sent in the query string to the log', async () => {
    await registry.get(`/admin/sources?token=${TOKEN}&access_token=${TOKEN}-2&pageSize=3`);
    await registry.get(`/agents?api_key=${TOKEN}`);
    const requestLines = logLines.filter((line) => line.includes('/admin/sources?') || line.includes('/agents?api_key'));
    expect(requestLines.length).toBeGreaterThan(0);
    expect(requestLines.some((line) => line.includes('token=[redacted]') && line.includes('pageSize=3'))).toBe(true);
    expect(logLines.filter((line) => line.includes(TOKEN))).toEqual([]);
  });
});

describe('every 503 carries Retry-After', () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startTestRegistry({
      config: { rateLimitPerMinute: 0, requestTimeoutMs: 200 },
      context: { embedder: fakeEmbedder({ delayMs: 1500 }) },
    });
  });
  afterAll(() => registry.close());

  it('a request past its deadline: 503 UNAVAILABLE with Retry-After', async () => {
    const res = await registry.post('/search', { query: { text: 'a query slower than the deadline' } });
    expect(res.status).toBe(503);
    expect(res.body.errorCode).toBe('UNAVAILABLE');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
