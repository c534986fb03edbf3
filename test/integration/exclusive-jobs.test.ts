// Background jobs in one process at a time (src/db/exclusive-run.ts): two handles on one PostgreSQL database
// stand for two registry processes. The one holding a job's lock runs it; the other skips that run, and runs
// it once the lock is free; a failing job frees it too. The mirror follower, the liveness and the trust
// upkeeps take their runs through it.
import { connectDatabase, type DatabaseHandle } from '../../src/db/connect';
import { migrateToLatest } from '../../src/db/migrate';
import type { ExclusiveRunner } from '../../src/db/exclusive-run';
import { withQueryCache } from '../../src/embedding/embedder';
import { UseLiteEmbedder } from '../../src/embedding/use-lite-embedder';
import { createMirrorFollower } from '../../src/federation/mirror-follower';
import { normalisePeerBase } from '../../src/federation/peer-directory';
import { startLivenessUpkeep, type LivenessUpkeepDeps } from '../../src/liveness';
import { startTrustUpkeep, type TrustUpkeepDeps } from '../../src/trust/trust-upkeep';
import { startChangeFeedPeer } from '../helpers/interop-peers';
import type { FakePeer } from '../helpers/peers';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';

let database: TestDatabase;
let first: DatabaseHandle;
let second: DatabaseHandle;
let peer: FakePeer;
const embedder = withQueryCache(new UseLiteEmbedder());

beforeAll(async () => {
  database = await createTestDatabase();
  first = await connectDatabase({ databaseUrl: database.url, dataDir: '' });
  second = await connectDatabase({ databaseUrl: database.url, dataDir: '' });
  await migrateToLatest(first.db);
  peer = await startChangeFeedPeer(() => ({ json: { changes: [], nextCursor: 'c1', hasMore: false } }));
});
afterAll(async () => {
  await peer?.close();
  await first?.close();
  await second?.close();
  await database?.drop();
});

/** Holds `job` through `runner` until the returned release is called; resolves once it is held. */
async function hold(runner: ExclusiveRunner, job: string): Promise<{ release: () => Promise<void> }> {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  const run = runner(job, async () => {
    held();
    await gate;
  });
  await holding;
  return {
    release: async () => {
      open();
      expect(await run).toEqual({ ran: true, result: undefined });
    },
  };
}

describe('a job named alike runs in one process at a time', () => {
  it('the other process skips it while it is held, runs other jobs, and runs it once it is free', async () => {
    const held = await hold(first.exclusive, 'liveness');
    expect(await second.exclusive('liveness', async () => 'probed')).toEqual({ ran: false });
    expect(await second.exclusive('trust', async () => 'checked')).toEqual({ ran: true, result: 'checked' });
    await held.release();
    expect(await second.exclusive('liveness', async () => 'probed')).toEqual({ ran: true, result: 'probed' });
  });

  it('a job that fails frees it, and its error reaches the caller', async () => {
    await expect(first.exclusive('trust', async () => Promise.reject(new Error('keys unreachable')))).rejects.toThrow('keys unreachable');
    expect(await second.exclusive('trust', async () => 'checked')).toEqual({ ran: true, result: 'checked' });
  });
});

describe('the jobs that take their runs through it', () => {
  it('a mirrored peer another process is syncing is not read here that round, and is read at the next', async () => {
    const base = normalisePeerBase(peer.url)!;
    const follower = createMirrorFollower({ db: second.db, embedder, peers: [base], maxEntries: 100, exclusive: second.exclusive });
    try {
      const held = await hold(first.exclusive, `mirror ${base}`);
      expect(await follower.sync()).toEqual([]);
      expect(peer.requests).toHaveLength(0);
      await held.release();
      const [report] = await follower.sync();
      expect([report.peer, report.status, report.cursor]).toEqual([base, 'ok', 'c1']);
      expect(peer.requests.map((r) => r.url)).toEqual(['/changes?limit=100']);
    } finally {
      await follower.stop();
    }
  });

  it('the liveness and trust upkeeps ask for their job by name and skip the tick another process holds', async () => {
    const asked: string[] = [];
    const elsewhere: ExclusiveRunner = async (job) => {
      asked.push(job);
      return { ran: false };
    };
    // A database that must not be read: a skipped tick reads nothing.
    const unread = new Proxy({}, { get: () => () => Promise.reject(new Error('read while another process held the job')) });
    const liveness = startLivenessUpkeep(
      { db: unread, exclusive: elsewhere, budget: 10, concurrency: 1 } as unknown as LivenessUpkeepDeps,
      0,
    );
    const trust = startTrustUpkeep({ db: unread, exclusive: elsewhere, recheckSeconds: 60 } as unknown as TrustUpkeepDeps, 0);
    expect(await liveness.tick()).toEqual({ live: 0, unreachable: 0, dead: 0, 'no-remote-endpoint': 0, unknown: 0 });
    expect(await trust.tick()).toEqual({ verified: 0, unverified: 0, failed: 0 });
    expect(asked).toEqual(['liveness', 'trust']);
    await Promise.all([liveness.stop(), trust.stop()]);
  });
});
