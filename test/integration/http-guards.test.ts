// App-level mechanisms every route gets: rate limits, CORS, security headers, request deadlines,
// JSON shape limits, request ids in logs, /metrics, /healthz and /readyz.
import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger';
import { MAX_JSON_DEPTH } from '../../src/http/request-guards';
import { fakeEmbedder } from '../helpers/fake-embedder';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

const search = (text: string) => ({ query: { text } });

describe('rate limiting of reads', () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startTestRegistry({ config: { rateLimitPerMinute: 3, redisUrl: null }, context: { embedder: fakeEmbedder() } });
  });
  afterAll(() => registry.close());

  it('answers 429 RATE_LIMIT_EXCEEDED in the ARD error shape with Retry-After and RateLimit headers past the limit (ARD Appendix B)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await registry.post('/search', search('weather'))).status);
    expect(statuses).toEqual([200, 200, 200]);
    const limited = await registry.post('/search', search('weather'));
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ errorCode: 'RATE_LIMIT_EXCEEDED', message: expect.stringContaining('3 requests per minute') });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-policy')).toMatch(/q=3/);
    expect(limited.headers.get('ratelimit')).toMatch(/r=0/);
  });

  it('never limits liveness, readiness or metrics', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) expect((await registry.get(path)).status).toBe(200);
  });
});

describe('the registry with default guards', () => {
  let registry: TestRegistry;
  let logLines: Array<Record<string, unknown>>;
  beforeAll(async () => {
    logLines = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
        done();
      },
    });
    registry = await startTestRegistry({
      config: { rateLimitPerMinute: 0 },
      context: { embedder: fakeEmbedder(), logger: createLogger('info', {}, sink) },
    });
  });
  afterAll(() => registry.close());

  it('sets security headers without a CSP that could break JSON clients', async () => {
    const res = await registry.post('/search', search('calendar'));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('allows browser reads from any origin, preflight included, and exposes the request id', async () => {
    const preflight = await fetch(`${registry.url}/search`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    const res = await registry.post('/search', search('calendar'), { origin: 'https://app.example' });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
  });

  it('sends no CORS headers on admin routes', async () => {
    const res = await registry.get('/admin/anything', { origin: 'https://app.example' });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it(`rejects JSON nested deeper than ${MAX_JSON_DEPTH} levels with 400 naming the limit`, async () => {
    let filter: unknown = 'x';
    for (let i = 0; i < 40; i++) filter = { a: filter };
    const res = await registry.post('/search', { query: { text: 'x', filter } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorCode: 'INVALID_ARGUMENT', message: `the request body is nested deeper than ${MAX_JSON_DEPTH} levels` });
  });

  it('answers a request that outlives REQUEST_TIMEOUT_MS with 503 UNAVAILABLE instead of hanging', async () => {
    const slow = await startTestRegistry({
      config: { rateLimitPerMinute: 0, requestTimeoutMs: 200 },
      context: { embedder: fakeEmbedder({ delayMs: 1000 }) },
    });
    try {
      const res = await slow.post('/search', search('slow'));
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ errorCode: 'UNAVAILABLE', message: 'the request did not complete within 200 ms; retry later' });
      // The late answer of the abandoned handler is dropped, and the server keeps serving.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect((await slow.get('/healthz')).status).toBe(200);
    } finally {
      await slow.close();
    }
  });

  it('returns the X-Request-Id it was given and writes it on every log line of that request', async () => {
    logLines.length = 0;
    const res = await registry.post('/search', { query: { text: 'x', filter: { colour: 'red' } } }, { 'x-request-id': 'trace-abc.123' });
    expect(res.headers.get('x-request-id')).toBe('trace-abc.123');
    const mine = logLines.filter((l) => l.requestId === 'trace-abc.123');
    expect(mine.length).toBeGreaterThanOrEqual(1);
    expect(logLines.filter((l) => l.req || l.res).every((l) => l.requestId === 'trace-abc.123')).toBe(true);
    const generated = await registry.get('/healthz');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves Prometheus metrics per route template and status, and search stage timings', async () => {
    await registry.post('/search', search('metrics please'));
    await registry.get('/nope/123');
    const res = await fetch(`${registry.url}/metrics`);
    const text = await res.text();
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(text).toMatch(/ard_http_requests_total\{method="POST",route="\/search",status="200"\} [1-9]/);
    expect(text).toMatch(/ard_http_request_duration_seconds_bucket\{le="0.005",method="POST",route="\/search",status="200"\}/);
    expect(text).toMatch(/ard_http_requests_total\{method="GET",route="unmatched",status="404"\} [1-9]/);
    expect(text).not.toContain('/nope/123');
    expect(text).toMatch(/ard_search_stage_duration_seconds_count\{stage="embedding"\} [1-9]/);
    expect(text).toMatch(/ard_search_stage_duration_seconds_count\{stage="sql"\} [1-9]/);
    expect(text).toMatch(/process_resident_memory_bytes \d+/);
  });

  it('/healthz is liveness and /readyz checks the database', async () => {
    expect((await registry.get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await registry.get('/readyz')).body).toEqual({ status: 'ready' });
  });
});

describe('the bundled model at start', () => {
  const started: TestRegistry[] = [];
  afterAll(async () => {
    for (const registry of started) await registry.close();
  });

  it.each([
    ['auto', 'onnxruntime'],
    ['tfjs', 'tfjs'],
  ] as const)(
    'EMBEDDING_RUNTIME=%s runs on %s, says so (and onnxruntime its precision) in the log and in /metrics',
    async (setting, runtime) => {
      const logLines: Array<Record<string, unknown>> = [];
      const sink = new Writable({
        write(chunk, _encoding, done) {
          for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
          done();
        },
      });
      const registry = await startTestRegistry({
        withDemoCorpus: false,
        config: { embeddingRuntime: setting },
        context: { logger: createLogger('info', {}, sink) },
      });
      started.push(registry);
      const loaded = logLines.find((l) => l.msg === 'bundled embedding model loaded');
      expect(loaded).toMatchObject({ model: 'use-lite-512', runtime });
      // The precision (EMBEDDING_PRECISION, int8 by default) is onnxruntime's: TF.js computes in float32.
      expect(loaded?.precision).toBe(runtime === 'onnxruntime' ? 'int8' : undefined);
      const text = await (await fetch(`${registry.url}/metrics`)).text();
      expect(text).toContain(`ard_bundled_embedding_runtime_info{runtime="${runtime}"} 1`);
      expect(text.match(/ard_bundled_embedding_runtime_info\{/g)).toHaveLength(1);
      expect((await registry.post('/search', search('send a message to a slack channel'))).status).toBe(200);
    },
  );
});
