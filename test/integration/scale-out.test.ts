// The scale-out shape (docs/operations.md): stateless registry processes sharing one PostgreSQL and
// one Redis. Two registries on one database give the same answers and share one rate limit;
// queries can be served from a read-only replica pool while writes go to the primary.
import { Redis } from 'ioredis';
import { countLiveEntries } from '../../src/catalog/entry-repository';
import { fakeEmbedder } from '../helpers/fake-embedder';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ids = (body: { results: Array<{ identifier: string }> }) => body.results.map((r) => r.identifier);

describe('two registry processes on one database and one Redis', () => {
  let database: TestDatabase;
  let a: TestRegistry;
  let b: TestRegistry;
  beforeAll(async () => {
    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys('ard:rl:*');
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
    database = await createTestDatabase({ withDemoCorpus: true });
    const config = { rateLimitPerMinute: 6, redisUrl: REDIS_URL };
    a = await startTestRegistry({ database, config, context: { embedder: fakeEmbedder() } });
    b = await startTestRegistry({ database, config, context: { embedder: fakeEmbedder() } });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it('give the same ranked answers, and a page token from one continues on the other', async () => {
    const body = { query: { text: 'kubernetes cluster management' }, pageSize: 2 };
    const fromA = await a.post('/search', body);
    const fromB = await b.post('/search', body);
    expect(fromA.status).toBe(200);
    expect(ids(fromA.body)).toHaveLength(2);
    expect(ids(fromB.body)).toEqual(ids(fromA.body));
    const next = await b.post('/search', { ...body, pageToken: fromA.body.pageToken });
    expect(next.status).toBe(200);
    expect(ids(next.body).some((id) => ids(fromA.body).includes(id))).toBe(false);
  });

  it('share one rate limit through Redis: the limit holds across both processes', async () => {
    // 3 requests were counted by the previous test; 3 more fill the limit of 6, alternating processes.
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await (i % 2 ? a : b).post('/search', { query: { text: `q${i}` } })).status);
    expect(statuses).toEqual([200, 200, 200]);
    const onA = await a.post('/search', { query: { text: 'one more' } });
    const onB = await b.post('/search', { query: { text: 'one more' } });
    expect([onA.status, onB.status]).toEqual([429, 429]);
    expect(onB.body.errorCode).toBe('RATE_LIMIT_EXCEEDED');
  });
});

describe('Redis configured but unreachable', () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    // Port 1 on loopback: nothing listens, connections are refused at once.
    registry = await startTestRegistry({
      config: { rateLimitPerMinute: 2, redisUrl: 'redis://127.0.0.1:1' },
      context: { embedder: fakeEmbedder() },
    });
  });
  afterAll(() => registry?.close());

  it('fails open: requests are served (never 500) while the limit cannot be counted', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await registry.post('/search', { query: { text: `open ${i}` } })).status);
    expect(statuses).toEqual([200, 200, 200, 200]);
  });
});

describe('DATABASE_REPLICA_URL', () => {
  let primary: TestDatabase;
  let replica: TestDatabase;
  let registry: TestRegistry;
  beforeAll(async () => {
    // The "replica" is a second database holding the corpus while the primary is empty, which shows which one
    // each query reads (a server not in recovery counts as caught up). A real streaming replica, its lag and its
    // loss: streaming-replica.test.ts.
    primary = await createTestDatabase({ withDemoCorpus: false });
    replica = await createTestDatabase({ withDemoCorpus: true });
    registry = await startTestRegistry({
      database: primary,
      config: { databaseReplicaUrls: [replica.url], rateLimitPerMinute: 0 },
      context: { embedder: fakeEmbedder() },
    });
  });
  afterAll(async () => {
    await registry?.close();
    await primary?.drop();
    await replica?.drop();
  });

  it('serves search from the replica and keeps the primary for writes', async () => {
    const res = await registry.post('/search', { query: { text: 'kubernetes' }, pageSize: 3 });
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(3);
    expect(await countLiveEntries(registry.ctx.db)).toBe(0);
    expect(await countLiveEntries(registry.ctx.readDb)).toBeGreaterThan(400);
  });

  it('opens the replica read-only', async () => {
    await expect(registry.ctx.readDb.deleteFrom('registry_settings').execute()).rejects.toMatchObject({ code: '25006' });
  });

  it('is ready while the primary answers', async () => {
    expect((await registry.get('/readyz')).status).toBe(200);
  });
});
