// Several machines (docs/operations.md "Read replicas"): two registry processes on one PostgreSQL primary and a real
// streaming replica of it (scripts/start-replica.sh, TEST_REPLICA_URL). Reads are served by the replica, writes go
// to the primary and reach the readers through replication; a replica that lags or dies is left out and every
// request is still answered, from the primary. The replica is paused, stopped and started again here through
// scripts/start-replica.sh (as root, like CI), and left running for the suites after this one.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { replicaName } from '../../src/db/read-pool';
import { readIndexGeneration } from '../../src/search/relevance';
import { fakeEmbedder } from '../helpers/fake-embedder';
import { sampleValue } from '../helpers/metrics';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';

const REPLICA_URL = process.env.TEST_REPLICA_URL ?? 'postgres://postgres@127.0.0.1:5433/postgres';
const REPLICA_SCRIPT = path.resolve(__dirname, '..', '..', 'scripts', 'start-replica.sh');
const TOKEN = 'admin-token-for-tests';
const auth = { authorization: `Bearer ${TOKEN}` };
const REPLICA = replicaName(REPLICA_URL);

function replicaUrlOf(database: string): string {
  const url = new URL(REPLICA_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

async function onReplica<R extends pg.QueryResultRow>(database: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: replicaUrlOf(database), connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

async function waitFor(what: string, condition: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (
    !(await Promise.resolve()
      .then(condition)
      .catch(() => false))
  ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const replicaScript = (...args: string[]) => promisify(execFile)('bash', [REPLICA_SCRIPT, ...args], { timeout: 90_000 });

function manifest(name: string) {
  return {
    origin: `file:${name}.json`,
    manifest: {
      specVersion: '1.0',
      host: { displayName: 'Replica test', identifier: 'did:web:replica.example' },
      entries: [
        {
          identifier: `urn:air:replica.example:agent:${name}`,
          displayName: `Replica agent ${name}`,
          type: 'application/a2a-agent-card+json',
          url: `https://replica.example/agents/${name}.json`,
          description: `Answers questions about ${name}.`,
        },
      ],
    },
  };
}

describe('two registry processes on a PostgreSQL primary and a streaming replica', () => {
  let database: TestDatabase;
  let registries: TestRegistry[] = [];
  const readPool = (r: TestRegistry) => {
    if (!r.ctx.database.readPool) throw new Error('no read pool');
    return r.ctx.database.readPool;
  };
  const served = () => registries.map((r) => readPool(r).snapshot().served);
  const replicaUp = (r: TestRegistry) => readPool(r).snapshot().replicas[0]?.up === true;
  const getEntry = (r: TestRegistry, name: string) => r.get(`/agents/${encodeURIComponent(`urn:air:replica.example:agent:${name}`)}`);
  const replicaHas = async (name: string) =>
    (await onReplica(database.name, 'SELECT 1 FROM entries WHERE identifier = $1', [`urn:air:replica.example:agent:${name}`])).length > 0;

  beforeAll(async () => {
    database = await createTestDatabase({ withDemoCorpus: true });
    // Created on the primary; it appears on the replica once the replica has replayed its creation.
    await waitFor(
      `${database.name} exists on the replica`,
      async () => (await onReplica('postgres', 'SELECT 1 FROM pg_database WHERE datname = $1', [database.name])).length > 0,
    );
    const config = {
      databaseReplicaUrls: [replicaUrlOf(database.name)],
      // Above what replaying another suite's CREATE DATABASE can take on a busy machine, below a test's patience.
      databaseReplicaMaxLagSeconds: 3,
      databaseReplicaCheckMs: 200,
      rateLimitPerMinute: 0,
      adminToken: TOKEN,
    };
    for (let i = 0; i < 2; i++) registries.push(await startTestRegistry({ database, config, context: { embedder: fakeEmbedder() } }));
  }, 60_000);
  afterAll(async () => {
    // Whatever happened above, the replica is left replaying and running.
    await onReplica('postgres', 'SELECT pg_wal_replay_resume()').catch(() => undefined);
    await replicaScript();
    for (const r of registries) await r.close();
    registries = [];
    await database?.drop();
  }, 120_000);

  it('serve reads (search, explore, list, get) from the replica', async () => {
    await waitFor('both processes find the replica caught up', () => registries.every(replicaUp));
    for (const r of registries)
      expect(readPool(r).snapshot().replicas).toEqual([{ name: REPLICA, up: true, lagSeconds: expect.any(Number), problem: null }]);
    const before = served();
    for (const r of registries) {
      expect((await r.post('/search', { query: { text: 'kubernetes cluster' }, pageSize: 3 })).status).toBe(200);
      expect((await r.post('/explore', { resultType: { facets: [{ field: 'type' }] } })).status).toBe(200);
      const list = await r.get('/agents?pageSize=2');
      expect(list.status).toBe(200);
      expect((await r.get(`/agents/${encodeURIComponent(list.body.items[0].identifier)}`)).status).toBe(200);
    }
    const after = served();
    for (let i = 0; i < registries.length; i++) {
      expect(after[i][REPLICA] - before[i][REPLICA]).toBeGreaterThanOrEqual(4);
      expect(after[i].primary).toBe(before[i].primary);
    }
    const metrics = (await registries[0].get('/metrics')).body as string;
    expect(metrics).toContain(`ard_db_replica_up{replica="${REPLICA}"} 1`);
    expect(metrics).toContain(`ard_db_read_connections_served{pool="${REPLICA}"} ${after[0][REPLICA]}`);
    // The replica's own view: the registries' pools hold connections to the test database there.
    const [{ count }] = await onReplica<{ count: number }>(
      'postgres',
      'SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = $1',
      [database.name],
    );
    expect(count).toBeGreaterThanOrEqual(2);
  });

  it('write on the primary (the replica is read-only); a write reaches both processes through replication', async () => {
    await expect(registries[0].ctx.readDb.deleteFrom('registry_settings').execute()).rejects.toMatchObject({ code: '25006' });
    const ingested = await registries[0].post('/admin/manifests', manifest('written'), auth);
    expect(ingested.status).toBe(200);
    expect(ingested.body.added).toBe(1);
    await waitFor('the entry is replayed on the replica', () => replicaHas('written'));
    const before = served();
    for (const r of registries) expect((await getEntry(r, 'written')).status).toBe(200);
    for (const [i, now] of served().entries()) {
      expect(now[REPLICA]).toBeGreaterThan(before[i][REPLICA]);
      expect(now.primary).toBe(before[i].primary);
    }
  });

  it('keep a ranked list per server: one ranked on the replica serves the next search there, and a write replayed there is found', async () => {
    const reader = registries[1];
    await waitFor('both processes find the replica caught up', () => registries.every(replicaUp));
    // The generation names its server: a list ranked on one is never found by a read from the other (decision 0049).
    const onPrimary = await readIndexGeneration(reader.ctx.db);
    const onTheReplica = await readIndexGeneration(reader.ctx.readDb);
    expect(onPrimary).toMatch(/@.+\/primary$/);
    expect(onTheReplica).toMatch(/@.+\/replica$/);
    const text = { query: { text: 'questions about zanzibar' }, pageSize: 5 };
    const ids = (body: { results: Array<{ identifier: string }> }) => body.results.map((r) => r.identifier);
    const lookups = async (result: string) =>
      sampleValue((await reader.get('/metrics')).body, `ard_search_match_cache_lookups{result="${result}"}`);
    const hitsBefore = await lookups('hit');
    const before = await reader.post('/search', text);
    expect((await reader.post('/search', text)).body).toEqual(before.body);
    expect(await lookups('hit')).toBe(hitsBefore + 1);
    expect(ids(before.body)).not.toContain('urn:air:replica.example:agent:zanzibar');
    // Written through the other process on the primary; found by this one once the replica has replayed it.
    expect((await registries[0].post('/admin/manifests', manifest('zanzibar'), auth)).status).toBe(200);
    await waitFor('the entry is replayed on the replica', () => replicaHas('zanzibar'));
    const after = await reader.post('/search', text);
    expect(ids(after.body)[0]).toBe('urn:air:replica.example:agent:zanzibar');
  });

  it('leave a replica lagging more than DATABASE_REPLICA_MAX_LAG_SECONDS out: reads go to the primary and see the newest write', async () => {
    await onReplica('postgres', 'SELECT pg_wal_replay_pause()');
    try {
      expect((await registries[0].post('/admin/manifests', manifest('while-paused'), auth)).status).toBe(200);
      await waitFor('both processes take the lagging replica out', () => registries.every((r) => !replicaUp(r)));
      expect(readPool(registries[1]).snapshot().replicas[0]).toMatchObject({
        up: false,
        problem: expect.stringMatching(/^replay [\d.]+ s behind the primary$/),
      });
      for (const r of registries) expect((await getEntry(r, 'while-paused')).status).toBe(200);
      expect(await replicaHas('while-paused')).toBe(false);
    } finally {
      await onReplica('postgres', 'SELECT pg_wal_replay_resume()');
    }
    await waitFor('the replica is back in service once caught up', () => registries.every(replicaUp));
    expect(await replicaHas('while-paused')).toBe(true);
  });

  it('answer every request while the replica dies (pg_ctl stop -m immediate); a read in flight moves to the primary with its transaction', async () => {
    const [a, b] = registries;
    // A read transaction on the replica when it dies: its statements run again on the primary, SET LOCAL included.
    const inFlight = a.ctx.readDb.transaction().execute(async (trx) => {
      await sql`SET LOCAL work_mem = '7MB'`.execute(trx);
      await sql`SELECT pg_sleep(1.5)`.execute(trx);
      return (await sql<{ work_mem: string }>`SHOW work_mem`.execute(trx)).rows[0].work_mem;
    });
    const answers: Array<{ status: number; body: unknown }> = [];
    let running = true;
    const load = [a, b].map(async (r, i) => {
      for (let n = 0; running; n++) {
        const res =
          n % 2
            ? await r.get('/agents?pageSize=5')
            : await r.post('/search', { query: { text: `weather forecast ${i} ${n}` }, pageSize: 3 });
        answers.push({ status: res.status, body: res.body });
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    await replicaScript('--kill');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    running = false;
    await Promise.all(load);
    expect(await inFlight).toBe('7MB');
    expect(answers.length).toBeGreaterThan(4);
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
    expect((await a.get('/readyz')).status).toBe(200);
    for (const r of registries) {
      expect(readPool(r).snapshot().replicas[0]).toMatchObject({ up: false, problem: expect.stringMatching(/^unreachable/) });
      expect(readPool(r).snapshot().served.primary).toBeGreaterThan(0);
    }
    expect(readPool(a).snapshot().retriedOnPrimary).toBeGreaterThanOrEqual(1);

    await replicaScript();
    await waitFor('the restarted replica is back in service', () => registries.every(replicaUp), 30_000);
    const before = served();
    expect((await b.post('/search', { query: { text: 'kubernetes' } })).status).toBe(200);
    expect(served()[1][REPLICA]).toBeGreaterThan(before[1][REPLICA]);
  }, 60_000);
});
