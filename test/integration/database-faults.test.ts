// Database outage: the registry answers 503 in the ARD error shape at once (no hang, no stack
// trace), stays alive (/healthz 200, /readyz 503) and recovers by itself when the database returns.
// The outage is a TCP proxy the test cuts, not the machine's shared PostgreSQL.
import { ADMIN_URL } from '../helpers/test-database';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { fakeEmbedder } from '../helpers/fake-embedder';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

let database: TestDatabase;
let proxy: TcpProxy;
let registry: TestRegistry;

beforeAll(async () => {
  database = await createTestDatabase({ withDemoCorpus: true });
  const admin = new URL(ADMIN_URL);
  proxy = await startTcpProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
  const viaProxy = new URL(database.url);
  viaProxy.port = String(proxy.port);
  registry = await startTestRegistry({
    database: { ...database, url: viaProxy.toString() },
    config: { rateLimitPerMinute: 0 },
    context: { embedder: fakeEmbedder() },
  });
});
afterAll(async () => {
  await registry?.close();
  await proxy?.close();
  await database?.drop();
});

/** Fails the test instead of hanging it: a request must be answered within `ms`. */
async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

const query = { query: { text: 'kubernetes cluster management' }, pageSize: 3 };

it('serves, answers 503 UNAVAILABLE while the database is unreachable, and recovers by itself', async () => {
  const before = await registry.post('/search', query);
  expect(before.status).toBe(200);
  expect(before.body.results).toHaveLength(3);
  expect((await registry.get('/readyz')).status).toBe(200);

  await proxy.cut();
  for (let i = 0; i < 5; i++) {
    const down = await within(5000, registry.post('/search', { ...query, query: { text: `outage ${i}` } }));
    expect(down.status).toBe(503);
    expect(down.body.errorCode).toBe('UNAVAILABLE');
    expect(down.body.message).toMatch(/database is unavailable/);
    expect(down.body.message).not.toMatch(/\bat \S+:\d+|ECONNREFUSED|Error:/);
    expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0);
  }
  const notReady = await within(5000, registry.get('/readyz'));
  expect(notReady.status).toBe(503);
  expect(notReady.body).toEqual({ errorCode: 'UNAVAILABLE', message: 'not ready: the database is unreachable' });
  expect((await registry.get('/healthz')).status).toBe(200);

  await proxy.restore();
  let ready = 0;
  for (let attempt = 0; attempt < 50 && ready !== 200; attempt++) {
    ready = (await registry.get('/readyz')).status;
    if (ready !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(ready).toBe(200);
  const after = await registry.post('/search', query);
  expect(after.status).toBe(200);
  expect(after.body.results.map((r: { identifier: string }) => r.identifier)).toEqual(
    before.body.results.map((r: { identifier: string }) => r.identifier),
  );
});
