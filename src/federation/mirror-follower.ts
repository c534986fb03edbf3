// Mirroring (docs/federation.md "Mirroring", decision 0029): each peer of PEERS_MIRROR is followed
// through its change feed (GET {peer}/changes) instead of being asked live. Every MIRROR_POLL_SECONDS
// the follower reads the feed from its stored cursor, page by page, through src/outbound (deadline,
// body cap, no redirects), and applies each page in one transaction with the cursor it leads to:
// - an entry is held to ingestion's own checks (size limits, catalog schema, publisher binding) and
//   stored with `mirror_peer` = the peer, so search serves it with the peer as `source`;
// - it never replaces a live entry that is this registry's own (a peer cannot spoof us) or another
//   mirrored peer's (the first holds it); the write path enforces the rule as well (entry-repository);
// - a removal tombstones the entry only when it is mirrored from that peer;
// - a peer holds at most MIRROR_MAX_ENTRIES live entries here.
// Whatever is refused is reported (the sync's report, kept in `mirror_peers`, logged, counted in
// /metrics) and changes nothing else. A feed that fails (network, status, HTML, too large, a cursor
// that does not advance) ends the sync with the cursor where the last applied page left it.
import type { Kysely } from 'kysely';
import {
  countLiveMirrored,
  markMirroredDeleted,
  markUnfollowedMirrorsDeleted,
  prepareEntry,
  storedHashes,
  type PreparedEntry,
} from '../catalog/entry-repository';
import type { CatalogEntry } from '../catalog/catalog-entry';
import type { ProductGlossary } from '../catalog/product-glossary';
import { inProcessRunner, type ExclusiveRunner } from '../db/exclusive-run';
import type { Database } from '../db/schema';
import type { Embedder } from '../embedding/embedder';
import { validateEntriesInTurns, writeEntries, type BindingMode } from '../ingest/ingest-manifest';
import type { Logger } from '../logger';
import { createHttpClient, OutboundError, type HttpClient } from '../outbound';
import { readPeerChangePage, type PeerChange, type PeerChangePage } from './peer-changes';
import { changesUrlOf } from './peer-directory';
import { InvalidPeerResponseError } from './peer-response';

/** Changes asked per page. */
export const MIRROR_PAGE_LIMIT = 100;
/** Largest feed page read: 100 entries at the 64 KiB entry limit, and room for the envelope. */
export const MIRROR_MAX_BODY_BYTES = 8 * 1024 * 1024;
/** Pages read per peer per sync; the next sync goes on from there. */
export const MIRROR_MAX_PAGES_PER_SYNC = 50;
/** Deadline of one page. */
export const MIRROR_PAGE_TIMEOUT_MS = 30_000;
/** Refusals kept in one report (all are counted). */
const REPORTED_REFUSALS = 100;

export type MirrorStatus = 'ok' | 'failed';

export interface MirrorReport {
  peer: string;
  status: MirrorStatus;
  /** Why the sync stopped early (failed), or why the peer's cursor was dropped. */
  error?: string;
  pages: number;
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  refusedCount: number;
  refused: Array<{ identifier: string | null; reason: string }>;
  /** The cursor the next sync starts from (null: the beginning). */
  cursor: string | null;
  /** True when the page cap ended the sync with more changes waiting. */
  more: boolean;
}

export interface MirrorFollowerDeps {
  db: Kysely<Database>;
  embedder: Embedder;
  glossary?: ProductGlossary;
  binding?: BindingMode;
  /** Normalised base URLs of PEERS_MIRROR (peer-directory's mirroredBases). */
  peers: readonly string[];
  /** MIRROR_MAX_ENTRIES. */
  maxEntries: number;
  logger?: Logger;
  /** The feed client; default one with this module's limits (operator-configured peers: private addresses allowed, as PEERS). */
  http?: HttpClient;
  /**
   * Who syncs a peer when several processes share the database (DatabaseHandle.exclusive): one at a time per
   * peer, the others skip it that round; default: this one.
   */
  exclusive?: ExclusiveRunner;
}

export interface MirrorFollower {
  /** Syncs every mirrored peer now (the timer does this every MIRROR_POLL_SECONDS); one sync at a time. */
  sync(): Promise<MirrorReport[]>;
  /** Syncs at once, then every `pollSeconds` after the end of the last sync (a serving registry calls it); 0 = never. */
  start(pollSeconds: number): void;
  /** The last report of each peer, by base URL. */
  lastReports(): ReadonlyMap<string, MirrorReport>;
  stop(): Promise<void>;
}

export function createMirrorHttpClient(): HttpClient {
  return createHttpClient({
    userAgent: 'ard-registry/0.1 (mirror)',
    maxBodyBytes: MIRROR_MAX_BODY_BYTES,
    maxRedirects: 0,
    allowPrivateAddresses: true,
    connectTimeoutMs: 5000,
    totalTimeoutMs: MIRROR_PAGE_TIMEOUT_MS,
  });
}

/** Reads `peer`'s feed from its stored cursor, at most MIRROR_MAX_PAGES_PER_SYNC pages, and applies it. */
export async function syncMirroredPeer(
  deps: MirrorFollowerDeps & { http: HttpClient },
  peer: string,
  signal?: AbortSignal,
): Promise<MirrorReport> {
  const state = await deps.db.selectFrom('mirror_peers').select('cursor').where('peer', '=', peer).executeTakeFirst();
  let cursor = state?.cursor ?? null;
  const report: MirrorReport = {
    peer,
    status: 'ok',
    pages: 0,
    added: 0,
    updated: 0,
    unchanged: 0,
    removed: 0,
    refusedCount: 0,
    refused: [],
    cursor,
    more: false,
  };
  const fail = (error: string) => Object.assign(report, { status: 'failed', error });
  while (!signal?.aborted) {
    if (report.pages === MIRROR_MAX_PAGES_PER_SYNC) {
      report.more = true;
      break;
    }
    const fetched = await fetchPage(deps.http, peer, cursor, signal);
    if (fetched === CURSOR_REFUSED) {
      // The peer's database was rebuilt, or it no longer knows our cursor: its feed is read again from the start.
      cursor = null;
      await saveCursor(deps.db, peer, null);
      fail('the peer refused the stored cursor (HTTP 400); the next sync reads its feed again from the beginning');
      break;
    }
    if (typeof fetched === 'string') {
      fail(fetched);
      break;
    }
    report.pages++;
    const page = fetched.page;
    await applyPage(deps, peer, page, report);
    const stuck = page.nextCursor === cursor && (page.hasMore || page.changes.length + page.refused.length > 0);
    cursor = page.nextCursor;
    if (stuck) {
      fail('the feed does not advance: nextCursor is the cursor that was sent while changes were returned');
      break;
    }
    if (!page.hasMore) break;
  }
  report.cursor = cursor;
  await deps.db
    .insertInto('mirror_peers')
    .values({
      peer,
      cursor,
      last_sync_at: new Date(),
      last_status: report.status,
      last_error: report.error ?? null,
      last_report: JSON.stringify(report),
    })
    .onConflict((oc) =>
      oc.column('peer').doUpdateSet((eb) => ({
        last_sync_at: eb.ref('excluded.last_sync_at'),
        last_status: eb.ref('excluded.last_status'),
        last_error: eb.ref('excluded.last_error'),
        last_report: eb.ref('excluded.last_report'),
      })),
    )
    .execute();
  return report;
}

async function saveCursor(db: Kysely<Database>, peer: string, cursor: string | null): Promise<void> {
  await db
    .insertInto('mirror_peers')
    .values({ peer, cursor })
    .onConflict((oc) => oc.column('peer').doUpdateSet({ cursor }))
    .execute();
}

const CURSOR_REFUSED = Symbol('cursor refused');

/** A page of the feed, CURSOR_REFUSED, or why the feed could not be read. */
async function fetchPage(
  http: HttpClient,
  peer: string,
  cursor: string | null,
  signal: AbortSignal | undefined,
): Promise<{ page: PeerChangePage } | typeof CURSOR_REFUSED | string> {
  let res;
  try {
    res = await http.getJson(changesUrlOf(peer, cursor, MIRROR_PAGE_LIMIT), { timeoutMs: MIRROR_PAGE_TIMEOUT_MS, signal });
  } catch (err) {
    if (err instanceof OutboundError) return `the feed could not be read (${err.code}): ${err.message}`;
    throw err;
  }
  if (res.status === 400 && cursor !== null) return CURSOR_REFUSED;
  if (res.status !== 200) return `the feed answered HTTP ${res.status}`;
  try {
    return { page: readPeerChangePage(res.json) };
  } catch (err) {
    if (err instanceof InvalidPeerResponseError) return err.message;
    throw err;
  }
}

/** Checks and writes one page, with the cursor it leads to, in one transaction. */
async function applyPage(
  deps: MirrorFollowerDeps & { http: HttpClient },
  peer: string,
  page: PeerChangePage,
  report: MirrorReport,
): Promise<void> {
  const refuse = (identifier: string | null, reason: string) => {
    report.refusedCount++;
    if (report.refused.length < REPORTED_REFUSALS) report.refused.push({ identifier, reason });
  };
  for (const r of page.refused) refuse(r.identifier, r.reason);
  // The last change of an identifier in the page is the one that holds.
  const last = new Map<string, PeerChange>();
  for (const change of page.changes) last.set(change.identifier, change);
  for (const change of page.changes)
    if (last.get(change.identifier) !== change) refuse(change.identifier, 'a later change of the same page has this identifier');
  const latest = [...last.values()];
  const removals = latest.filter((c) => c.removed).map((c) => c.identifier);
  const { valid, rejected } = await validateEntriesInTurns(
    latest.flatMap((c) => (c.removed ? [] : [c.entry])),
    undefined,
    undefined,
    { binding: deps.binding },
  );
  for (const r of rejected) refuse(r.identifier, r.reason);
  const accepted = await entriesThisPeerMayHold(deps, peer, valid, refuse);
  const fetchedAt = new Date();
  const prepared: PreparedEntry[] = accepted.map((entry) =>
    prepareEntry({ entry, host: undefined, origin: new URL('changes', peer).toString(), fetchedAt, mirrorPeer: peer }, deps.glossary),
  );
  let removed = 0;
  const counts = await writeEntries({ db: deps.db, embedder: deps.embedder, glossary: deps.glossary }, prepared, {
    inTransaction: async (trx) => {
      removed = await markMirroredDeleted(trx, peer, removals, fetchedAt);
      await saveCursor(trx, peer, page.nextCursor);
    },
  });
  if (counts.refused > 0) refuse(null, `${counts.refused} entries were taken by this registry or another peer while the page was applied`);
  report.added += counts.added;
  report.updated += counts.updated;
  report.unchanged += counts.unchanged;
  report.removed += removed;
}

/**
 * Of `valid`, the entries `peer` may hold here: not an identifier of a live own entry (a spoof) nor of
 * one mirrored from another peer, and within MIRROR_MAX_ENTRIES.
 */
async function entriesThisPeerMayHold(
  deps: MirrorFollowerDeps,
  peer: string,
  valid: readonly CatalogEntry[],
  refuse: (identifier: string, reason: string) => void,
): Promise<CatalogEntry[]> {
  const stored = await storedHashes(
    deps.db,
    valid.map((e) => e.identifier),
  );
  let room = deps.maxEntries - (await countLiveMirrored(deps.db, peer));
  const out: CatalogEntry[] = [];
  for (const entry of valid) {
    const before = stored.get(entry.identifier);
    const live = before !== undefined && !before.deleted;
    if (live && before.mirrorPeer === null) refuse(entry.identifier, 'this registry holds its own entry under this identifier');
    else if (live && before.mirrorPeer !== peer) refuse(entry.identifier, `the entry is mirrored from ${before.mirrorPeer} already`);
    else if (live) out.push(entry);
    else if (room <= 0) refuse(entry.identifier, `the peer holds MIRROR_MAX_ENTRIES (${deps.maxEntries}) live entries here already`);
    else {
      room--;
      out.push(entry);
    }
  }
  return out;
}

/** The follower of every mirrored peer; nothing runs until `start()` or `sync()`. */
export function createMirrorFollower(deps: MirrorFollowerDeps): MirrorFollower {
  const http = deps.http ?? createMirrorHttpClient();
  const exclusive = deps.exclusive ?? inProcessRunner;
  const abort = new AbortController();
  const reports = new Map<string, MirrorReport>();
  let running: Promise<MirrorReport[]> | null = null;
  let timer: NodeJS.Timeout | undefined;
  let released: Promise<void> | null = null;
  // Once per follower (a start): what peers no longer in PEERS_MIRROR left here goes, with their feed state.
  const release = () =>
    (released ??= (async () => {
      const removed = await markUnfollowedMirrorsDeleted(deps.db, deps.peers, new Date());
      let forget = deps.db.deleteFrom('mirror_peers');
      if (deps.peers.length > 0) forget = forget.where('peer', 'not in', [...deps.peers]);
      await forget.execute();
      if (removed > 0) deps.logger?.info({ removed }, 'entries mirrored from peers no longer in PEERS_MIRROR removed');
    })().catch((error: unknown) => deps.logger?.error({ err: error }, 'removing the entries of peers no longer mirrored failed')));
  const syncAll = async () => {
    await release();
    const out: MirrorReport[] = [];
    for (const peer of deps.peers) {
      if (abort.signal.aborted) break;
      try {
        const run = await exclusive(`mirror ${peer}`, () => syncMirroredPeer({ ...deps, http }, peer, abort.signal));
        if (!run.ran) {
          deps.logger?.debug({ peer }, 'mirrored peer is being synced by another process');
          continue;
        }
        const report = run.result;
        reports.set(peer, report);
        out.push(report);
        if (report.status === 'failed') deps.logger?.warn({ peer, error: report.error }, 'mirrored peer could not be synced');
        if (report.refusedCount > 0)
          deps.logger?.warn(
            { peer, refused: report.refusedCount, sample: report.refused.slice(0, 3) },
            'mirrored peer sent changes that were refused',
          );
      } catch (error) {
        deps.logger?.error({ peer, err: error }, 'mirror sync failed');
      }
    }
    return out;
  };
  const sync = () => {
    running ??= syncAll().finally(() => {
      running = null;
    });
    return running;
  };
  return {
    sync,
    start(pollSeconds) {
      if (deps.peers.length === 0) {
        void release();
        return;
      }
      if (pollSeconds <= 0) return;
      const schedule = () => {
        if (abort.signal.aborted) return;
        timer = setTimeout(() => void sync().finally(schedule), pollSeconds * 1000);
        timer.unref();
      };
      void sync().finally(schedule);
    },
    lastReports: () => reports,
    async stop() {
      abort.abort();
      clearTimeout(timer);
      await running?.catch(() => undefined);
      await released;
      if (!deps.http) await http.close();
    },
  };
}
