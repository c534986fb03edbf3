// What this registry believes of a peer's results before they are merged (docs/federation.md, "What
// is believed"):
// - an identifier this registry's index holds is served from the local copy (its entry, our source, or
//   for a mirrored entry the peer it is mirrored from), whatever the peer wrote under it and whatever
//   page it falls on;
// - an identifier-only (v0.91) result is completed through the peer's GET /agents/{identifier} within
//   the time left; a completion that fails the catalog schema, or names another identifier, drops the
//   result; one that does not arrive in time leaves the result in the v0.91 shape;
// - `source` is the base URL of the peer that answered, unless the peer names another registry that
//   this one also knows (a known peer's base URL); never a URL the peer writes for itself unchecked.
import type { Kysely } from 'kysely';
import type { CatalogEntry } from '../catalog/catalog-entry';
import { getLiveEntries } from '../catalog/entry-repository';
import type { Database } from '../db/schema';
import type { Logger } from '../logger';
import type { FederationMetrics } from './metrics';
import { PeerSearchError, retrievePeerEntry } from './peer-client';
import { normalisePeerBase, type Peer } from './peer-directory';
import type { PeerClients } from './peer-client';
import { checkPeerEntry, type PeerEntry, type PeerResult } from './peer-response';

/**
 * Completions give up this long before the peers' deadline, so that a result whose complete entry did
 * not come in time still reaches the merge (in the v0.91 shape) before the peer is cut off.
 */
export const COMPLETION_RESERVE_MS = 25;

/** A peer's result as believed: the entry to show (or null: dropped), its source, its raw score. */
export interface ResolvedResult {
  entry: CatalogEntry | PeerEntry | null;
  source: string;
  rawScore: number | undefined;
}

export interface ResolveContext {
  db: Kysely<Database>;
  publicUrl: string;
  /** Base URLs of every registry this one knows (PEERS and discovered), normalised. */
  knownBases: ReadonlySet<string>;
  clients: PeerClients;
  metrics: FederationMetrics;
  logger: Logger;
  timeLeft: () => number;
  signal: AbortSignal;
}

/**
 * Resolves `items` of `peer`'s answer in order. Only the first `completeUpTo` partial results are
 * completed (the rest cannot reach this page).
 */
export async function resolvePeerResults(
  ctx: ResolveContext,
  peer: Peer,
  items: readonly PeerResult[],
  completeUpTo: number,
): Promise<ResolvedResult[]> {
  const held = await getLiveEntries(
    ctx.db,
    items.map((i) => i.entry.identifier),
  );
  const self = normalisePeerBase(ctx.publicUrl);
  const key = peer.baseUrl;
  let replaced = 0;
  let servedLocally = 0;
  const resolved = items.map((item): ResolvedResult => {
    const local = held.get(item.entry.identifier);
    if (local) {
      servedLocally++;
      return { entry: local.entry, source: local.mirroredFrom ?? ctx.publicUrl, rawScore: item.rawScore };
    }
    const claimed = item.claimedSource ? normalisePeerBase(item.claimedSource) : null;
    const believed = claimed && claimed !== self && ctx.knownBases.has(claimed) ? claimed : key;
    if (item.claimedSource !== undefined && believed !== claimed) replaced++;
    return { entry: item.entry, source: believed, rawScore: item.rawScore };
  });
  ctx.metrics.countResolution(key, 'served_locally', servedLocally);
  ctx.metrics.countResolution(key, 'source_replaced', replaced);

  const toComplete = items
    .map((item, i) => ({ item, i }))
    .filter(({ item }) => !item.complete && !held.has(item.entry.identifier))
    .slice(0, completeUpTo);
  await Promise.all(toComplete.map(({ item, i }) => completeResult(ctx, peer, item, resolved[i]!)));
  return resolved;
}

async function completeResult(ctx: ResolveContext, peer: Peer, item: PeerResult, into: ResolvedResult): Promise<void> {
  const key = peer.baseUrl;
  const id = item.entry.identifier;
  let full: Record<string, unknown> | null = null;
  const timeoutMs = ctx.timeLeft() - COMPLETION_RESERVE_MS;
  if (timeoutMs > 0 && !ctx.signal.aborted) {
    try {
      full = await retrievePeerEntry(ctx.clients.forPeer(peer), peer, id, { timeoutMs, signal: ctx.signal });
    } catch (err) {
      if (!(err instanceof PeerSearchError)) throw err;
      if (ctx.metrics.firstSeen(key, `completion ${err.outcome}`))
        ctx.logger.warn(
          { peer: key, outcome: err.outcome, err: err.message },
          'peer entry could not be retrieved; the result keeps the v0.91 shape',
        );
    }
  }
  if (!full) {
    ctx.metrics.countResolution(key, 'completion_failed');
    return;
  }
  const { score: _s, source: _src, ...entry } = full;
  const checked =
    entry.identifier === id ? checkPeerEntry(entry) : `GET /agents answered for identifier '${String(entry.identifier).slice(0, 200)}'`;
  if (typeof checked === 'string' || !checked.complete) {
    into.entry = null;
    ctx.metrics.countDropped(key, 'completion_invalid');
    if (ctx.metrics.firstSeen(key, 'drop completion_invalid')) {
      ctx.logger.warn(
        { peer: key, identifier: id, reason: typeof checked === 'string' ? checked : 'incomplete entry' },
        "peer's complete entry fails this registry's catalog schema; result dropped",
      );
    }
    return;
  }
  into.entry = entry as CatalogEntry;
  ctx.metrics.countResolution(key, 'completed');
}
