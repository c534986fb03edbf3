// Mirroring across registries on loopback (docs/federation.md "Mirroring", decision 0029): the change
// feed GET /changes of a real registry of this project (P), a registry M that mirrors it
// (PEERS_MIRROR), and test peers that serve a feed written by the test (hostile ones among them).
// Followers are driven by `ctx.mirror.sync()` (MIRROR_POLL_SECONDS=0), so nothing here waits on a timer.
import { markDeleted } from '../../src/catalog/entry-repository';
import type { RegistryConfig } from '../../src/config';
import { withQueryCache } from '../../src/embedding/embedder';
import { UseLiteEmbedder } from '../../src/embedding/use-lite-embedder';
import { createMirrorFollower, MIRROR_MAX_BODY_BYTES } from '../../src/federation/mirror-follower';
import { createOpenApiBackend } from '../../src/http/openapi';
import { ingestManifest } from '../../src/ingest/ingest-manifest';
import { peerEntry, startChangeFeedPeer, type FeedAnswer, type PeerEntryDoc } from '../helpers/interop-peers';
import { freePort, type FakePeer } from '../helpers/peers';
import { startTestRegistry, type TestRegistry } from '../helpers/registry';

const embedder = withQueryCache(new UseLiteEmbedder());
const api = createOpenApiBackend();
const registries: TestRegistry[] = [];
const fakes: FakePeer[] = [];

type Change = { identifier: string; removed: boolean; entry?: PeerEntryDoc; updatedAt?: string; removedAt?: string };
type Page = { changes: Change[]; nextCursor: string; hasMore: boolean };

async function registry(config: Partial<RegistryConfig>): Promise<TestRegistry> {
  const port = await freePort();
  const reg = await startTestRegistry({
    withDemoCorpus: false,
    config: { port, publicUrl: `http://127.0.0.1:${port}/`, mirrorPollSeconds: 0, ...config },
    context: { embedder },
  });
  registries.push(reg);
  return reg;
}

/** A test peer, closed after the suite. */
const fake = (started: Promise<FakePeer>): Promise<FakePeer> => started.then((peer) => (fakes.push(peer), peer));

const manifest = (entries: readonly unknown[]) => ({
  specVersion: '1.0',
  host: { displayName: 'Mirror test publisher', identifier: 'did:web:mirror.test' },
  entries,
});

async function ingest(reg: TestRegistry, entries: readonly unknown[]) {
  return ingestManifest({ db: reg.ctx.db, embedder: reg.ctx.embedder }, manifest(entries), { origin: `test:${reg.url}` });
}

/** Every page of `reg`'s feed from `since` until hasMore is false; each page checked against the OpenAPI document. */
async function readFeed(
  reg: TestRegistry,
  since: string | null,
  limit: number,
): Promise<{ changes: Change[]; cursor: string; pages: number }> {
  const changes: Change[] = [];
  let cursor = since;
  let pages = 0;
  for (;;) {
    const res = await reg.get(`/changes?limit=${limit}${cursor ? `&since=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    expect(api.validateResponse(res.body, 'listChanges', 200).errors ?? []).toEqual([]);
    const page = res.body as Page;
    expect(page.changes.length).toBeLessThanOrEqual(limit);
    changes.push(...page.changes);
    cursor = page.nextCursor;
    pages++;
    if (!page.hasMore) return { changes, cursor, pages };
  }
}

async function liveIds(reg: TestRegistry): Promise<string[]> {
  const rows = await reg.ctx.db.selectFrom('entries').select('identifier').where('deleted_at', 'is', null).orderBy('identifier').execute();
  return rows.map((r) => r.identifier);
}

const zebra = peerEntry('aquatics.example', 'zebrafish-tank-monitor', 'zebrafish aquarium tank monitor: water temperature and oxygen');
const heron = peerEntry('aquatics.example', 'heron-pond-watch', 'heron pond watch: camera alerts when herons visit a koi pond');
const kelp = peerEntry('aquatics.example', 'kelp-forest-survey', 'kelp forest survey records from divers');
const ownGrebe = peerEntry('mirror.test', 'grebe-nest-finder', 'grebe nest finder: our own entry about nesting grebes');

beforeAll(async () => {
  await api.init();
  await embedder.embedOne('warm up the model');
}, 120_000);

afterAll(async () => {
  await Promise.all(registries.map((r) => r.close()));
  await Promise.all(fakes.map((f) => f.close()));
});

describe('GET /changes (registry extension, docs/api.md "Change feed")', () => {
  let p: TestRegistry;
  beforeAll(async () => {
    p = await registry({});
    await ingest(p, [zebra, heron, kelp]);
  }, 60_000);

  it('lists own entries in write order, pages by cursor without gap or repeat, and shows updates and tombstones after the cursor', async () => {
    const first = await readFeed(p, null, 2);
    expect(first.pages).toBe(2);
    expect(first.changes.map((c) => c.identifier).sort()).toEqual([heron, kelp, zebra].map((e) => e.identifier).sort());
    expect(first.changes.every((c) => c.removed === false && c.entry?.identifier === c.identifier)).toBe(true);
    // Nothing new: the same cursor back, no changes.
    const idle = await p.get(`/changes?since=${first.cursor}`);
    expect(idle.body).toEqual({ changes: [], nextCursor: first.cursor, hasMore: false });

    await ingest(p, [{ ...zebra, description: 'zebrafish aquarium tank monitor, now with pH' }, heron, kelp]);
    await markDeleted(p.ctx.db, [kelp.identifier], new Date());
    const next = await readFeed(p, first.cursor, 10);
    expect(next.changes.map((c) => [c.identifier, c.removed])).toEqual([
      [zebra.identifier, false],
      [kelp.identifier, true],
    ]);
    expect(next.changes[0]!.entry!.description).toBe('zebrafish aquarium tank monitor, now with pH');
    expect(next.changes[1]).toEqual({ identifier: kelp.identifier, removed: true, removedAt: expect.any(String) });
  });

  it('refuses a cursor that is not one of its own with 400 INVALID_ARGUMENT naming since; a bad limit likewise', async () => {
    const { cursor } = await readFeed(p, null, 100);
    const [id, seq] = Buffer.from(cursor, 'base64url').toString('utf8').split(':');
    const cases = [
      'not-a-cursor!',
      'abc',
      Buffer.from('AAAAAAAAAAAA:1', 'utf8').toString('base64url'), // another feed's
      Buffer.from(`${id}:${Number(seq) + 1000}`, 'utf8').toString('base64url'), // past the end
      'x'.repeat(300),
    ];
    for (const since of cases) {
      const res = await p.get(`/changes?since=${encodeURIComponent(since)}`);
      expect({ since, status: res.status, errorCode: res.body.errorCode }).toEqual({ since, status: 400, errorCode: 'INVALID_ARGUMENT' });
      expect(res.body.message).toMatch(/since/);
    }
    for (const limit of ['0', '501', 'ten']) {
      const res = await p.get(`/changes?limit=${limit}`);
      expect(res.status).toBe(400);
      expect(res.body.errorCode).toBe('INVALID_ARGUMENT');
      expect(res.body.message).toMatch(/limit/);
    }
    const twice = await p.get('/changes?since=a&since=b');
    expect(twice.status).toBe(400);
  });

  it('paging is complete and stable under concurrent writes: a reader that follows the feed ends with exactly the live entries', async () => {
    const q = await registry({});
    const base = Array.from({ length: 6 }, (_, i) => peerEntry('feed.example', `item-${i}`, `feed item number ${i}`));
    // Removed while the writers write (and never written again).
    const doomed = Array.from({ length: 5 }, (_, i) => peerEntry('feed.example', `doomed-${i}`, `feed item to remove ${i}`));
    await ingest(q, [...base, ...doomed]);
    const seen = new Map<string, string | null>();
    let cursor: string | null = null;
    const follow = async () => {
      const res = await q.get(`/changes?limit=2${cursor ? `&since=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      for (const c of (res.body as Page).changes) seen.set(c.identifier, c.removed ? null : (c.entry!.description ?? ''));
      cursor = (res.body as Page).nextCursor;
      return (res.body as Page).hasMore;
    };
    let writing = true;
    // Two writers in transactions of their own at once (the pool's connections), so commits can
    // interleave with the numbering; a third removes entries between them.
    const writes = (name: string) => async () => {
      for (let round = 0; round < 5; round++)
        await ingest(q, [
          peerEntry('feed.example', `${name}-${round}`, `feed item added by ${name} in round ${round}`),
          { ...base[(round + (name === 'a' ? 0 : 1)) % 6]!, description: `feed item changed by ${name} in round ${round}` },
        ]);
    };
    const removes = async () => {
      for (const entry of doomed) await markDeleted(q.ctx.db, [entry.identifier], new Date());
    };
    const writer = Promise.all([writes('a')(), writes('b')(), removes()]).finally(() => (writing = false));
    // The reader pages while the writers write, then catches up.
    while (writing) await follow();
    await writer;
    while (await follow());
    const rows = await q.ctx.db.selectFrom('entries').select(['identifier', 'description']).where('deleted_at', 'is', null).execute();
    const live = [...seen.entries()].filter(([, d]) => d !== null);
    expect(new Map(live)).toEqual(new Map(rows.map((r) => [r.identifier, r.description ?? ''])));
    // Every tombstone the reader passed is known to it as a removal.
    const removed = await q.ctx.db.selectFrom('entries').select('identifier').where('deleted_at', 'is not', null).execute();
    expect(removed.map((r) => r.identifier).sort()).toEqual(doomed.map((e) => e.identifier).sort());
    for (const r of removed) expect(seen.get(r.identifier)).toBeNull();
  }, 120_000);
});

describe('a registry that mirrors another (PEERS_MIRROR)', () => {
  let p: TestRegistry;
  let m: TestRegistry;
  beforeAll(async () => {
    p = await registry({});
    await ingest(p, [zebra, heron]);
    m = await registry({ peersMirror: [`http://127.0.0.1:${new URL(p.url).port}/`] });
    await ingest(m, [ownGrebe]);
  }, 60_000);

  it('fills from the feed: mirrored entries are served locally with the peer as source; updates propagate; tombstones remove', async () => {
    const peerUrl = p.ctx.config.publicUrl;
    const [report] = await m.ctx.mirror.sync();
    expect(report).toMatchObject({ peer: peerUrl, status: 'ok', added: 2, refusedCount: 0 });
    const search = await m.post('/search', { query: { text: 'zebrafish aquarium' }, federation: 'none' });
    expect(search.status).toBe(200);
    const hit = search.body.results.find((r: { identifier: string }) => r.identifier === zebra.identifier);
    expect(hit).toMatchObject({ displayName: zebra.displayName, source: peerUrl });
    const own = await m.post('/search', { query: { text: 'grebe nest finder' }, federation: 'none' });
    expect(own.body.results[0]).toMatchObject({ identifier: ownGrebe.identifier, source: m.ctx.config.publicUrl });
    expect((await m.get(`/agents/${encodeURIComponent(heron.identifier)}`)).body.description).toBe(heron.description);
    // The mirror does not republish what it copied.
    const feed = await readFeed(m, null, 100);
    expect(feed.changes.map((c) => c.identifier)).toEqual([ownGrebe.identifier]);

    await ingest(p, [{ ...heron, description: 'heron pond watch with night vision' }, zebra]);
    expect((await m.ctx.mirror.sync())[0]).toMatchObject({ status: 'ok', added: 0, updated: 1, removed: 0 });
    expect((await m.get(`/agents/${encodeURIComponent(heron.identifier)}`)).body.description).toBe('heron pond watch with night vision');

    await markDeleted(p.ctx.db, [zebra.identifier], new Date());
    expect((await m.ctx.mirror.sync())[0]).toMatchObject({ status: 'ok', removed: 1 });
    expect((await m.get(`/agents/${encodeURIComponent(zebra.identifier)}`)).status).toBe(404);
    const gone = await m.post('/search', { query: { text: 'zebrafish aquarium' }, federation: 'none' });
    expect(gone.body.results.map((r: { identifier: string }) => r.identifier)).not.toContain(zebra.identifier);
    // Nothing new: a sync reads one page and changes nothing.
    expect((await m.ctx.mirror.sync())[0]).toMatchObject({ status: 'ok', pages: 1, added: 0, updated: 0, removed: 0 });
  }, 60_000);

  it('an own entry of the mirrored registry that this one then ingests becomes its own, and the peer no longer changes it', async () => {
    await ingest(m, [ownGrebe, heron]);
    const row = await m.ctx.db
      .selectFrom('entries')
      .select('mirror_peer')
      .where('identifier', '=', heron.identifier)
      .executeTakeFirstOrThrow();
    expect(row.mirror_peer).toBeNull();
    await markDeleted(p.ctx.db, [heron.identifier], new Date());
    expect((await m.ctx.mirror.sync())[0]).toMatchObject({ status: 'ok', removed: 0 });
    expect((await m.get(`/agents/${encodeURIComponent(heron.identifier)}`)).status).toBe(200);
  }, 60_000);

  it('a peer taken out of PEERS_MIRROR takes its entries with it at the next start; own entries stay', async () => {
    const kingfisher = peerEntry('aquatics.example', 'kingfisher-dive-log', 'kingfisher dive log for river banks');
    await ingest(p, [kingfisher]);
    expect((await m.ctx.mirror.sync())[0]).toMatchObject({ status: 'ok', added: 1 });
    expect((await m.get(`/agents/${encodeURIComponent(kingfisher.identifier)}`)).status).toBe(200);
    // What a restart with PEERS_MIRROR emptied builds: a follower of no peer, started.
    const restarted = createMirrorFollower({
      db: m.ctx.db,
      embedder: m.ctx.embedder,
      glossary: m.ctx.glossary,
      binding: m.ctx.config.trustBinding,
      peers: [],
      maxEntries: 100,
    });
    restarted.start(60);
    await restarted.stop();
    expect((await m.get(`/agents/${encodeURIComponent(kingfisher.identifier)}`)).status).toBe(404);
    expect((await m.get(`/agents/${encodeURIComponent(ownGrebe.identifier)}`)).status).toBe(200);
    expect((await m.get(`/agents/${encodeURIComponent(heron.identifier)}`)).status).toBe(200); // ours since the takeover
    expect(await m.ctx.db.selectFrom('mirror_peers').selectAll().execute()).toEqual([]);
  }, 60_000);
});

describe('auto with a mirrored peer', () => {
  it('asks live only the peers it does not mirror', async () => {
    const feed = await fake(startChangeFeedPeer(() => ({ json: { changes: [], nextCursor: 'c0', hasMore: false } })));
    const live = await fake(startChangeFeedPeer(() => ({ json: { changes: [], nextCursor: 'c0', hasMore: false } })));
    // Listed in PEERS as well: mirroring wins.
    const hub = await registry({ peers: [feed.url, live.url], peersMirror: [feed.url] });
    const res = await hub.post('/search', { query: { text: 'anything at all' }, federation: 'auto' });
    expect(res.status).toBe(200);
    expect(feed.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
    expect(live.requests.filter((r) => r.method === 'POST' && r.url === '/search')).toHaveLength(1);
    expect(Object.keys(hub.ctx.federation.metrics.snapshot().peers)).toEqual([live.url]);
    await hub.ctx.mirror.sync();
    expect(feed.requests.filter((r) => r.method === 'GET' && r.url.startsWith('/changes'))).toHaveLength(1);
  });
});

describe('a hostile change feed changes nothing it should not, and is reported', () => {
  let hub: TestRegistry;
  let answer: (since: string | null) => FeedAnswer;
  let feed: FakePeer;
  const valid = peerEntry('hostile.example', 'otter-counter', 'otter counter for river surveys');

  beforeAll(async () => {
    feed = await fake(startChangeFeedPeer((since) => answer(since)));
    hub = await registry({ peersMirror: [feed.url], mirrorMaxEntries: 3 });
    await ingest(hub, [ownGrebe]);
  }, 60_000);

  const ownState = async () =>
    hub.ctx.db
      .selectFrom('entries')
      .select(['identifier', 'content_hash', 'mirror_peer', 'deleted_at'])
      .where('mirror_peer', 'is', null)
      .orderBy('identifier')
      .execute();

  it('stores the valid entries of a page and refuses, with reasons, invalid ones, spoofs of our own identifiers and removals of them', async () => {
    const before = await ownState();
    answer = () => ({
      json: {
        changes: [
          { identifier: valid.identifier, removed: false, entry: valid },
          { identifier: ownGrebe.identifier, removed: false, entry: { ...ownGrebe, displayName: 'SPOOFED grebe', description: 'evil' } },
          { identifier: ownGrebe.identifier.replace('grebe', 'grebe2'), removed: true },
          { identifier: 'urn:air:hostile.example:mcp:bad', entry: { ...valid, identifier: 'urn:air:hostile.example:mcp:bad', data: {} } },
          { identifier: 'urn:air:hostile.example:mcp:other', entry: valid },
          {
            identifier: 'urn:air:hostile.example:mcp:huge',
            entry: { ...valid, identifier: 'urn:air:hostile.example:mcp:huge', description: 'x'.repeat(100_000) },
          },
          'not a change',
          { removed: true },
          { identifier: ownGrebe.identifier, removed: true },
        ],
        nextCursor: 'page-2',
        hasMore: false,
      },
    });
    const [report] = await hub.ctx.mirror.sync();
    expect(report).toMatchObject({ status: 'ok', added: 1, cursor: 'page-2', refusedCount: 6 });
    const reasons = report!.refused.map((r) => `${r.identifier}: ${r.reason}`);
    expect(reasons).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/mcp:bad: .*url/),
        expect.stringMatching(/mcp:other: .*not the change's own/),
        expect.stringMatching(/mcp:huge: .*description/),
        expect.stringMatching(/^null: the change is not an object/),
        expect.stringMatching(/^null: the change has no identifier/),
        expect.stringMatching(/grebe-nest-finder: a later change of the same page/),
      ]),
    );
    // The spoof came first and was superseded by the removal of our own entry, which touches only what this peer holds.
    expect(await ownState()).toEqual(before);
    expect((await hub.get(`/agents/${encodeURIComponent(ownGrebe.identifier)}`)).body.displayName).toBe(ownGrebe.displayName);
    expect((await hub.get(`/agents/${encodeURIComponent(valid.identifier)}`)).body.description).toBe(valid.description);
    const stored = await hub.ctx.db.selectFrom('mirror_peers').selectAll().where('peer', '=', feed.url).executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ cursor: 'page-2', last_status: 'ok' });
    expect((stored.last_report as { refusedCount: number }).refusedCount).toBe(report!.refusedCount);

    // A spoof on its own is refused with its reason; the peer's copy is never served.
    answer = () => ({
      json: {
        changes: [{ identifier: ownGrebe.identifier, removed: false, entry: { ...ownGrebe, displayName: 'SPOOFED grebe' } }],
        nextCursor: 'page-3',
        hasMore: false,
      },
    });
    const [spoof] = await hub.ctx.mirror.sync();
    expect(spoof!.refused).toEqual([
      { identifier: ownGrebe.identifier, reason: 'this registry holds its own entry under this identifier' },
    ]);
    const search = await hub.post('/search', { query: { text: 'grebe nest finder' }, federation: 'none' });
    expect(search.body.results[0]).toMatchObject({ displayName: ownGrebe.displayName, source: hub.ctx.config.publicUrl });
    expect(await ownState()).toEqual(before);
    const metrics = await hub.get('/metrics');
    expect(String(metrics.body)).toContain(`ard_mirror_last_sync_changes{peer="${feed.url}",outcome="refused"} 1`);
  }, 60_000);

  it('a huge body, HTML, an error status or a body that is no feed fails the sync, keeps the cursor and changes nothing', async () => {
    const before = await liveIds(hub);
    const cursorBefore = (
      await hub.ctx.db.selectFrom('mirror_peers').select('cursor').where('peer', '=', feed.url).executeTakeFirstOrThrow()
    ).cursor;
    const answers: Array<[FeedAnswer, RegExp]> = [
      [
        {
          raw: `{"changes":[${'"x",'.repeat(MIRROR_MAX_BODY_BYTES / 4)}"x"],"nextCursor":"z","hasMore":false}`,
          contentType: 'application/json',
        },
        /BODY_TOO_LARGE/,
      ],
      [{ raw: '<!doctype html><html><body>Welcome</body></html>', contentType: 'text/html' }, /INVALID_JSON/],
      [{ json: { errorCode: 'INTERNAL', message: 'down' }, status: 500 }, /HTTP 500/],
      [{ json: { results: [] } }, /no 'changes' array/],
      [{ json: { changes: [], nextCursor: 42 } }, /nextCursor/],
    ];
    for (const [feedAnswer, expected] of answers) {
      answer = () => feedAnswer;
      const [report] = await hub.ctx.mirror.sync();
      expect(report).toMatchObject({ status: 'failed', pages: 0, cursor: cursorBefore });
      expect(report!.error).toMatch(expected);
      expect(await liveIds(hub)).toEqual(before);
      const stored = await hub.ctx.db.selectFrom('mirror_peers').selectAll().where('peer', '=', feed.url).executeTakeFirstOrThrow();
      expect(stored).toMatchObject({ cursor: cursorBefore, last_status: 'failed', last_error: report!.error });
    }
    const metrics = await hub.get('/metrics');
    expect(String(metrics.body)).toContain(`ard_mirror_last_sync_failed{peer="${feed.url}"} 1`);
  }, 60_000);

  it('a cursor that never advances ends the sync after one page, reported', async () => {
    let calls = 0;
    answer = (since) => {
      calls++;
      return {
        json: { changes: [{ identifier: valid.identifier, removed: false, entry: valid }], nextCursor: since ?? 'stuck', hasMore: true },
      };
    };
    await hub.ctx.db.updateTable('mirror_peers').set({ cursor: 'stuck' }).where('peer', '=', feed.url).execute();
    const [report] = await hub.ctx.mirror.sync();
    expect(report).toMatchObject({ status: 'failed', pages: 1, unchanged: 1 });
    expect(report!.error).toMatch(/does not advance/);
    expect(calls).toBe(1);
  });

  it('a peer holds at most MIRROR_MAX_ENTRIES live entries; a refused cursor (400) restarts the feed from the beginning', async () => {
    const many = Array.from({ length: 4 }, (_, i) => peerEntry('hostile.example', `flood-${i}`, `flood entry ${i}`));
    answer = () => ({
      json: { changes: many.map((e) => ({ identifier: e.identifier, entry: e })), nextCursor: 'after-flood', hasMore: false },
    });
    const [report] = await hub.ctx.mirror.sync();
    // One live entry (otter-counter) held already; the cap is 3.
    expect(report).toMatchObject({ status: 'ok', added: 2 });
    expect(report!.refused.filter((r) => /MIRROR_MAX_ENTRIES/.test(r.reason)).map((r) => r.identifier)).toEqual([
      many[2]!.identifier,
      many[3]!.identifier,
    ]);

    const sent: Array<string | null> = [];
    answer = (since) => {
      sent.push(since);
      return since === null
        ? { json: { changes: [], nextCursor: 'fresh', hasMore: false } }
        : { json: { errorCode: 'INVALID_ARGUMENT', message: "query parameter 'since' is not a cursor of this feed" }, status: 400 };
    };
    expect((await hub.ctx.mirror.sync())[0]).toMatchObject({ status: 'failed', cursor: null });
    expect((await hub.ctx.mirror.sync())[0]).toMatchObject({ status: 'ok', cursor: 'fresh' });
    expect(sent).toEqual(['after-flood', null]);
  });
});
