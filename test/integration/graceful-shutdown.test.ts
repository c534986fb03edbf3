// stop() under load: every request already received gets its complete response, new connections
// are refused, and only then is the database closed.
import { fakeEmbedder } from '../helpers/fake-embedder';
import { startTestRegistry } from '../helpers/registry';

it('answers every in-flight request completely, then refuses new connections', async () => {
  const embedder = fakeEmbedder({ delayMs: 400 });
  const registry = await startTestRegistry({ config: { rateLimitPerMinute: 0 }, context: { embedder } });
  const N = 20;
  let stopped: Promise<void> | undefined;
  try {
    const inFlight = Array.from({ length: N }, (_, i) =>
      registry.post('/search', { query: { text: `kubernetes cluster ${i}` }, pageSize: 2 }),
    );
    // Every request has reached the handler (its query is being embedded) before stop() is called.
    for (let i = 0; i < 100 && embedder.calls < N; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(embedder.calls).toBe(N);
    stopped = registry.stop();
    const responses = await Promise.all(inFlight);
    expect(responses.map((r) => r.status)).toEqual(Array(N).fill(200));
    for (const r of responses) expect(Array.isArray(r.body.results)).toBe(true);
    await stopped;
    await expect(fetch(`${registry.url}/healthz`)).rejects.toMatchObject({ cause: { code: 'ECONNREFUSED' } });
  } finally {
    await (stopped ?? registry.stop());
    await registry.database.drop();
  }
});

it('a handler that outlives its response (request deadline) finishes before the database closes', async () => {
  // The deadline answers 503 at 300 ms while the handler is still embedding (800 ms); its SQL comes after.
  const slow = fakeEmbedder({ delayMs: 800 });
  let embeddedAt = 0;
  const embedder = {
    ...slow,
    embed: slow.embed,
    embedOne: async (text: string) => {
      const vector = await slow.embedOne(text);
      embeddedAt = Date.now();
      return vector;
    },
  };
  const registry = await startTestRegistry({ config: { rateLimitPerMinute: 0, requestTimeoutMs: 300 }, context: { embedder } });
  try {
    const res = await registry.post('/search', { query: { text: 'kubernetes cluster' }, pageSize: 2 });
    expect(res.status).toBe(503);
    expect(embeddedAt).toBe(0);
    await registry.stop();
    const stoppedAt = Date.now();
    // stop() waited for the abandoned handler (which then ran its SQL) before closing the pools.
    expect(embeddedAt).toBeGreaterThan(0);
    expect(stoppedAt).toBeGreaterThanOrEqual(embeddedAt);
  } finally {
    await registry.stop();
    await registry.database.drop();
  }
});
