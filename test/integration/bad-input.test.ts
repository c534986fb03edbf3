// Hostile input never yields a 5xx or a hang: always a 4xx in the ARD error shape whose message
// names the problem (ARD Appendix B), or a normal answer.
import fc from 'fast-check';
import { MAX_JSON_DEPTH } from '../../src/http/request-guards';
import { searchBody } from '../helpers/arbitraries';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

let registry: TestRegistry;
beforeAll(async () => {
  // A deadline far above jest's own: a slow answer on a loaded machine is not a bad-input failure.
  registry = await startTestRegistry({ config: { rateLimitPerMinute: 0, requestTimeoutMs: 120_000 } });
});
afterAll(() => registry.close());

function expectNamedClientError(res: { status: number; body: any }, pattern: RegExp) {
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(res.body).toEqual({ errorCode: expect.any(String), message: expect.stringMatching(pattern) });
}

describe('POST /search with random and adversarial bodies', () => {
  it('never answers 5xx; errors are ARD errors with a message', async () => {
    await fc.assert(
      fc.asyncProperty(searchBody, async (body) => {
        const res = await registry.post('/search', JSON.stringify(body));
        if (res.status >= 500) throw new Error(`${res.status} for ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
        if (res.status !== 200) {
          expect(res.body.errorCode).toMatch(/^[A-Z_]+$/);
          expect(res.body.message.length).toBeGreaterThan(5);
        } else {
          expect(Array.isArray(res.body.results)).toBe(true);
        }
      }),
      { numRuns: 250 },
    );
  });
});

describe('POST /search edge cases', () => {
  it('Unicode text (emoji, right-to-left, combining marks) is searched normally', async () => {
    for (const text of ['🦄 weather 🌧️', 'מזג אוויר weather', 'ṁ̸̢̛͈eteo', '天气预报']) {
      const res = await registry.post('/search', { query: { text } });
      expect(res.status).toBe(200);
    }
  });

  it('NUL characters are rejected with 400 naming them', async () => {
    const res = await registry.post('/search', { query: { text: 'a\u0000b' } });
    expectNamedClientError(res, /NUL character/);
    const inFilter = await registry.post('/search', { query: { text: 'x', filter: { tags: 'a\u0000' } } });
    expectNamedClientError(inFilter, /NUL character/);
  });

  // Found by the property above (CI, seed -1948776459): {"updatedAt":"\udfff"} reached PostgreSQL's
  // jsonb parser, which refuses an unpaired surrogate escape, and came back as a 500.
  it('unpaired UTF-16 surrogates are rejected with 400 naming them, wherever they are', async () => {
    const bodies = [
      '{"query":{"text":"!","filter":{"updatedAt":"\\udfff"}}}',
      '{"query":{"text":"weather \\ud83d"}}',
      '{"query":{"text":"x","filter":{"tags":["ok","\\udc00\\ud800"]}}}',
      '{"query":{"text":"x","filter":{"metadata.\\udfff":"a"}}}',
    ];
    for (const body of bodies) expectNamedClientError(await registry.post('/search', body), /unpaired UTF-16 surrogate/);
    expectNamedClientError(await registry.post('/explore', bodies[0]), /unpaired UTF-16 surrogate/);
    // A query string cannot carry one (UTF-8 has no encoding for it): escapes of the bytes that would are no
    // UTF-8, refused like a broken escape in a path.
    expectNamedClientError(await registry.get('/agents?filter=displayName%20%3D%20%22%ED%BF%BF%22'), /not valid UTF-8 percent-encoding/);
    // A pair is a character like any other.
    expect(
      (await registry.post('/search', '{"query":{"text":"weather \\ud83c\\udf27","filter":{"updatedAt":"\\ud83c\\udf27"}}}')).status,
    ).toBe(200);
  });

  it('a 1 MB body is rejected with 413 naming the limit, a 20,001-character query with 400', async () => {
    const huge = await registry.post('/search', { query: { text: 'x'.repeat(1024 * 1024) } });
    expect(huge.status).toBe(413);
    expect(huge.body.message).toMatch(/larger than \d+ bytes/);
    const long = await registry.post('/search', { query: { text: 'y'.repeat(20_001) } });
    expectNamedClientError(long, /at most 20000/);
  });

  it(`deeply nested JSON (1000 levels) is rejected naming the ${MAX_JSON_DEPTH}-level limit`, async () => {
    const body = `{"query":{"text":"x","filter":${'['.repeat(1000)}${']'.repeat(1000)}}}`;
    const res = await registry.post('/search', body);
    expectNamedClientError(res, new RegExp(`deeper than ${MAX_JSON_DEPTH} levels`));
  });

  it('huge, zero, negative and fractional pageSize are rejected naming pageSize', async () => {
    for (const pageSize of [1e12, 101, 0, -1, 2.5]) {
      const res = await registry.post('/search', { query: { text: 'x' }, pageSize });
      expectNamedClientError(res, /pageSize/);
    }
  });

  it('wrong types are rejected naming the field and the expected type', async () => {
    expectNamedClientError(await registry.post('/search', { query: { text: 42 } }), /query\.text must be a string/);
    expectNamedClientError(await registry.post('/search', { query: 'text' }), /query must be an object/);
    expectNamedClientError(await registry.post('/search', { query: { text: 'x' }, pageSize: '10' }), /pageSize must be an integer/);
    expectNamedClientError(await registry.post('/search', { query: { text: 'x', filter: { tags: 7 } } }), /filter/);
    expectNamedClientError(await registry.post('/search', '[1,2]'), /object/);
  });

  it('duplicated JSON keys: the last one wins (JSON.parse semantics)', async () => {
    const res = await registry.post('/search', '{"query":{"text":"x"},"pageSize":500,"pageSize":1}');
    expect(res.status).toBe(200);
    expect(res.body.results.length).toBeLessThanOrEqual(1);
    const reversed = await registry.post('/search', '{"query":{"text":"x"},"pageSize":1,"pageSize":500}');
    expectNamedClientError(reversed, /pageSize/);
  });

  it('invalid pageTokens are rejected with 400 naming pageToken', async () => {
    // An empty pageToken means the first page (AIP-158), so it is not in this list.
    for (const pageToken of ['garbage', 'a.b', 'a.b.c', '\u202e', 'x'.repeat(9000), 'eyJxIjoiIiwibyI6LTF9.AAAA']) {
      const res = await registry.post('/search', { query: { text: 'weather' }, pageToken });
      expectNamedClientError(res, /pageToken/);
    }
  });
});
