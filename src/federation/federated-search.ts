// POST /search across registries (ARD §8): `none` is this registry's index, `referrals` adds the
// peer registries worth following, `auto` asks peers in parallel within a time budget and merges
// their ranked lists with ours (fusion.ts). docs/federation.md explains the rules.
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Logger } from '../logger';
import { InvalidArgumentError } from '../errors';
import { MAX_PAGE_SIZE } from '../search/paging';
import { normaliseFilter, type QueryFilter } from '../search/query-filter';
import { checkQueryText } from '../search/query-text';
import type { SearchOutput, SearchService } from '../search/search-service';
import type { Federation } from './federation-service';
import { fuseLists, type FusionItem, type FusionList } from './fusion';
import { federationHeaders, type FederationHop } from './loop-guard';
import { PeerSearchError, searchPeer, type PeerSearchRequest } from './peer-client';
import { REGISTRY_TYPES, listKnownPeers, normalisePeerBase, searchUrlOf, type Peer } from './peer-directory';
import type { PeerResultItem, ValidatedPeerResponse } from './peer-response';

export type FederationMode = 'auto' | 'referrals' | 'none';

/** Peers asked per request; more known peers are reached through referrals. */
export const MAX_PEERS_PER_QUERY = 16;
/** Peer results remembered for de-duplication across pages; past it, paging continues local only. */
export const MAX_REMEMBERED_PEER_RESULTS = 300;
/** A peer's page token longer than this ends paging through that peer (our own token must stay small). */
export const MAX_PEER_TOKEN_LENGTH = 1024;
/**
 * Time kept back from the budget for what follows the peers' deadline: the merge, the page token and
 * the response on its way out (with a silent peer and no reserve: p95 15-22 ms over the budget in
 * bench:federation, up to 34 ms under jest), so the whole request, from its arrival, ends within the
 * budget (docs/federation.md, Benchmark).
 */
export const FINISH_RESERVE_MS = 50;

export interface RegistryReferral {
  identifier: string;
  displayName: string;
  type: string;
  url: string;
}

export interface FederatedSearchOutput extends SearchOutput {
  referrals?: RegistryReferral[];
}

export interface FederatedSearchDeps {
  /** This registry's own search. */
  search: SearchService;
  /** Where the known peers are read (the read pool). */
  db: Kysely<Database>;
  /** This registry's public base URL: never a peer of itself. */
  publicUrl: string;
  configuredPeers: readonly string[];
  federation: Federation;
  logger: Logger;
}

export interface FederatedSearchInput {
  mode: FederationMode;
  text: string;
  filter?: QueryFilter;
  pageSize?: number;
  pageToken?: string;
  hop: FederationHop;
  /** When the request arrived (performance.now()); the budget runs from here. Default: now. */
  receivedAt?: number;
}

/** Continuation of one peer's list inside our page token. */
interface PeerCursor {
  /** Peer base URL. */
  u: string;
  /** The peer's token for the page holding its next unconsumed result (absent: its first page). */
  t?: string;
  /** 0-based rank of that page's first result in the peer's list. */
  r: number;
  /** Results of that page already consumed. */
  s: number;
  /** Running minimum of the peer's scores consumed so far. */
  m: number;
}

interface FederatedState {
  p: PeerCursor[];
  /** Hashes of identifiers emitted from peers. */
  h: string[];
  /** Score of the last result emitted. */
  e: number;
}

export async function federatedSearch(deps: FederatedSearchDeps, input: FederatedSearchInput): Promise<FederatedSearchOutput> {
  const mode = input.mode;
  switch (mode) {
    case 'none':
      return deps.search.search(input);
    case 'referrals': {
      const [page, referrals] = await Promise.all([deps.search.search(input), findReferrals(deps, input.text, input.hop.visited)]);
      return { ...page, referrals };
    }
    case 'auto':
      return autoSearch(deps, input);
    default: {
      const unreachable: never = mode;
      throw new InvalidArgumentError(`federation must be auto, referrals or none; got '${String(unreachable)}'`);
    }
  }
}

/**
 * Known peers worth following for this query, most relevant first: registry entries ranked by the
 * same relevance as search, then every other known peer (configured ones first). Never this
 * registry, nor one already visited. `url` is the peer's search route (OpenAPI RegistryReferral).
 */
export async function findReferrals(deps: FederatedSearchDeps, text: string, visited: readonly string[] = []): Promise<RegistryReferral[]> {
  const [ranked, known] = await Promise.all([
    deps.search.rank(checkQueryText(text), normaliseFilter({ type: [...REGISTRY_TYPES] })).then((r) => r.entries),
    listKnownPeers(deps.db, deps.configuredPeers, deps.publicUrl),
  ]);
  const eligible = new Map(known.filter((p) => !visited.includes(p.baseUrl)).map((p) => [p.baseUrl, p]));
  const ordered: Peer[] = [];
  for (const r of ranked) {
    const base = typeof r.entry.url === 'string' ? normalisePeerBase(r.entry.url) : null;
    const peer = base ? eligible.get(base) : undefined;
    if (peer && !ordered.includes(peer)) ordered.push(peer);
  }
  for (const peer of eligible.values()) if (!ordered.includes(peer)) ordered.push(peer);
  return ordered.map((p) => ({ identifier: p.identifier, displayName: p.displayName, type: p.type, url: searchUrlOf(p.baseUrl) }));
}

interface PeerPage {
  items: PeerResultItem[];
  /** The token that fetched this page (undefined: the first page). */
  token?: string;
  next?: string;
}

interface PeerFetch {
  peer: Peer;
  cursor: PeerCursor;
  pages: PeerPage[];
}

async function autoSearch(deps: FederatedSearchDeps, input: FederatedSearchInput): Promise<FederatedSearchOutput> {
  const { text, pageSize, filter, page: paging } = deps.search.open(input, 'search-auto');
  const decoded = paging.token;
  const offset = paging.offset;
  const state = decoded ? readState(decoded.x) : { p: [], h: [], e: 100 };

  // Peers are waited for until the deadline; what follows it fits in FINISH_RESERVE_MS.
  const deadline = (input.receivedAt ?? performance.now()) + input.hop.budgetMs - FINISH_RESERVE_MS;
  const timeLeft = () => deadline - performance.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('federation budget spent')), Math.max(0, timeLeft()));
  // The local search starts with the fan-out, not after the peer list is read. Only its page's entries
  // are read: the merge takes at most pageSize local results (local copies are never dropped as duplicates).
  const local = deps.search.rank(text, filter, { offset, size: pageSize }).then(({ matches, entries }) => ({ matches, page: entries }));
  // Awaited below; a failure before that must not leave this rejection unhandled.
  local.catch(() => undefined);
  try {
    const cursors = await peerCursors(deps, input, decoded === null, state);
    if (cursors.length > 0) deps.federation.metrics.countFanout();
    const self = normalisePeerBase(deps.publicUrl);
    const visited = [...input.hop.visited, ...(self ? [self] : []), ...cursors.map((c) => c.peer.baseUrl)];
    const request: Omit<PeerSearchRequest, 'pageToken'> = {
      text,
      ...(input.filter ? { filter: input.filter } : {}),
      pageSize: Math.min(MAX_PAGE_SIZE, pageSize * 2),
      federation: input.hop.hopsLeft > 1 ? 'auto' : 'none',
    };
    const call = (peer: Peer, token: string | undefined) =>
      callPeer(deps, peer, { ...request, ...(token ? { pageToken: token } : {}) }, {
        headers: federationHeaders(input.hop.hopsLeft - 1, visited, timeLeft()),
        timeoutMs: timeLeft(),
        signal: controller.signal,
      });
    const [{ matches, page }, fetched] = await Promise.all([
      local,
      deps.search.timed('federation', () => Promise.all(cursors.map((c) => fetchPeerList(c, pageSize, call)))),
    ]);

    const answered = fetched.filter((f): f is PeerFetch => f !== null);
    const lists: FusionList[] = [
      {
        key: 'local',
        local: true,
        items: page.map((r) => ({ entry: r.entry, score: r.score, source: deps.publicUrl })),
        startRank: offset,
        minScore: 100,
        complete: true,
      },
      ...answered.map((f) => toFusionList(f)),
    ];
    const fused = fuseLists({
      lists,
      pageSize,
      localIds: new Set(matches.map((m) => m.identifier)),
      emittedPeerHashes: new Set(state.h),
      lastScore: state.e,
    });

    // Ranks, not positions in `page`: an entry deleted since the match left no hole in the ranks.
    const consumedLocal = fused.consumed.get('local') ?? 0;
    const nextOffset = consumedLocal === 0 ? offset : page[consumedLocal - 1]!.rank + 1;
    const hashes = [...state.h, ...fused.newPeerHashes];
    const failedOnLaterPage = decoded ? cursors.filter((c) => !answered.some((a) => a.peer === c.peer)).map((c) => c.cursor) : [];
    let peerState = [...answered.map((f) => advance(f, fused.consumed.get(f.peer.baseUrl) ?? 0, fused.minScores.get(f.peer.baseUrl) ?? 100)), ...failedOnLaterPage]
      .filter((c): c is PeerCursor => c !== null);
    if (hashes.length > MAX_REMEMBERED_PEER_RESULTS) peerState = [];
    const more = nextOffset < matches.length || peerState.length > 0;
    const next = more
      ? paging.next(nextOffset, { p: peerState, h: peerState.length > 0 ? hashes : [], e: fused.lastScore } satisfies FederatedState)
      : undefined;
    return { results: fused.results, ...(next ? { pageToken: next } : {}) };
  } finally {
    clearTimeout(timer);
    // Nothing is in flight on success; after an error this cancels what is.
    controller.abort();
  }
}

/** Page 1: the known peers not visited (none when no hop is left). Later pages: the token's peers still known. */
async function peerCursors(
  deps: FederatedSearchDeps,
  input: FederatedSearchInput,
  firstPage: boolean,
  state: FederatedState,
): Promise<Array<{ peer: Peer; cursor: PeerCursor }>> {
  if (input.hop.hopsLeft <= 0) return [];
  const known = await listKnownPeers(deps.db, deps.configuredPeers, deps.publicUrl);
  if (firstPage) {
    return known
      .filter((p) => !input.hop.visited.includes(p.baseUrl))
      .slice(0, MAX_PEERS_PER_QUERY)
      .map((peer) => ({ peer, cursor: { u: peer.baseUrl, r: 0, s: 0, m: 100 } }));
  }
  const byBase = new Map(known.map((p) => [p.baseUrl, p]));
  return state.p.flatMap((cursor) => {
    const peer = byBase.get(cursor.u);
    return peer ? [{ peer, cursor }] : [];
  });
}

type PeerCall = (peer: Peer, token: string | undefined) => Promise<ValidatedPeerResponse | null>;

/**
 * The peer's page holding its next result, and the page after it when fewer than `pageSize`
 * results remain on the first (so the merge has enough of every list at hand). Null when the peer
 * is skipped or its first call fails.
 */
async function fetchPeerList(c: { peer: Peer; cursor: PeerCursor }, pageSize: number, call: PeerCall): Promise<PeerFetch | null> {
  const first = await call(c.peer, c.cursor.t);
  if (!first) return null;
  const pages: PeerPage[] = [{ items: first.results, token: c.cursor.t, next: usableToken(first.pageToken) }];
  if (first.results.length - c.cursor.s < pageSize && pages[0]!.next) {
    const second = await call(c.peer, pages[0]!.next);
    if (second) pages.push({ items: second.results, token: pages[0]!.next, next: usableToken(second.pageToken) });
  }
  return { peer: c.peer, cursor: c.cursor, pages };
}

function usableToken(token: string | undefined): string | undefined {
  return token && token.length <= MAX_PEER_TOKEN_LENGTH ? token : undefined;
}

function toFusionList(f: PeerFetch): FusionList {
  const items: FusionItem[] = f.pages.flatMap((p) => p.items).slice(f.cursor.s).map((item) => ({ entry: item, score: item.score, source: item.source }));
  return {
    key: f.peer.baseUrl,
    local: false,
    items,
    startRank: f.cursor.r + f.cursor.s,
    minScore: f.cursor.m,
    complete: f.pages[f.pages.length - 1]!.next === undefined,
  };
}

/** The cursor after `consumed` more results of the fetched pages; null when the peer's list is used up. */
function advance(f: PeerFetch, consumed: number, minScore: number): PeerCursor | null {
  let rank = f.cursor.r;
  let skip = f.cursor.s + consumed;
  for (const page of f.pages) {
    if (skip < page.items.length) return { u: f.peer.baseUrl, ...(page.token ? { t: page.token } : {}), r: rank, s: skip, m: minScore };
    skip -= page.items.length;
    rank += page.items.length;
    if (!page.next) return null;
  }
  return { u: f.peer.baseUrl, t: f.pages[f.pages.length - 1]!.next, r: rank, s: 0, m: minScore };
}

async function callPeer(
  deps: FederatedSearchDeps,
  peer: Peer,
  request: PeerSearchRequest,
  options: { headers: Record<string, string>; timeoutMs: number; signal: AbortSignal },
): Promise<ValidatedPeerResponse | null> {
  const { breakers, metrics, clients } = deps.federation;
  const key = peer.baseUrl;
  if (!breakers.tryAcquire(key)) {
    metrics.record(key, 'circuit_open');
    return null;
  }
  if (options.signal.aborted || options.timeoutMs <= 0) {
    breakers.release(key);
    metrics.record(key, 'timeout');
    return null;
  }
  const started = Date.now();
  try {
    const response = await searchPeer(clients.forPeer(peer), peer, request, options);
    breakers.onSuccess(key);
    metrics.record(key, 'ok', Date.now() - started);
    metrics.countDropped(key, response.dropped);
    if (response.dropped > 0) deps.logger.warn({ peer: key, dropped: response.dropped }, 'peer sent search results that fail the schema; dropped');
    return response;
  } catch (err) {
    if (!(err instanceof PeerSearchError)) throw err;
    const latency = Date.now() - started;
    metrics.record(key, err.outcome, latency);
    const opened = err.countsAgainstPeer ? breakers.onFailure(key) : (breakers.release(key), false);
    deps.logger.warn(
      { peer: key, outcome: err.outcome, status: err.status, latencyMs: latency, circuitOpened: opened, err: err.message },
      'peer search failed; left out of the results',
    );
    return null;
  }
}

function readState(x: unknown): FederatedState {
  const s = (x ?? {}) as Partial<FederatedState>;
  if (!Array.isArray(s.p) || !Array.isArray(s.h) || typeof s.e !== 'number') throw new InvalidArgumentError('pageToken is invalid: it does not continue a federated search');
  return { p: s.p, h: s.h, e: s.e };
}
