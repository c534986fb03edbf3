// POST /search across registries (ARD §8): `none` is this registry's index, `referrals` adds the
// peer registries worth following, `auto` asks peers in parallel within a time budget and merges
// their ranked lists with ours (fusion.ts). docs/federation.md explains the rules.
import type { Logger } from '../logger';
import { InvalidArgumentError } from '../errors';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { QueryFilter } from '../search/query-filter';
import type { QueryVocabulary } from '../search/query-vocabulary';
import { checkQueryText } from '../search/query-text';
import { type SearchOutput, type SearchService } from '../search/search-service';
import { CircuitOpenError } from './circuit-breaker';
import type { Federation } from './federation-service';
import { fuseLists, type FusedResult, type FusionItem, type FusionList } from './fusion';
import { federationHeaders, queryFingerprint, type FederationHop } from './loop-guard';
import { PeerSearchError, searchPeer, type PeerSearchRequest } from './peer-client';
import { listKnownPeers, normalisePeerBase, type Peer } from './peer-directory';
import { resolvePeerResults, type ResolveContext, type ResolvedResult } from './peer-resolution';
import { TOLERATED_KINDS, type PeerAnswer } from './peer-response';
import { findReferrals, type RegistryReferral } from './referrals';
import { CALIBRATION_DEPTH, calibrate, isScoreMap, scoreMap, type ScoreMap } from './score-calibration';

export type { RegistryReferral } from './referrals';
export { findReferrals } from './referrals';

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
 * bench:federation, up to 34 ms under jest; 50 ms was once 31 ms short at load ~10), so the whole request, from
 * its arrival, ends within the budget (docs/federation.md, Benchmark).
 */
export const FINISH_RESERVE_MS = 100;

export interface FederatedSearchOutput extends Omit<SearchOutput, 'results'> {
  /** Complete entries, or (a peer's result that could not be completed in time) the v0.91 shape. */
  results: Array<SearchOutput['results'][number] | FusedResult>;
  referrals?: RegistryReferral[];
}

export interface FederatedSearchDeps {
  /** This registry's own search. */
  search: SearchService;
  /** Where the known peers and local copies are read (the read pool). */
  db: Kysely<Database>;
  /** This registry's public base URL: never a peer of itself, the `source` of its own results. */
  publicUrl: string;
  /** The query vocabulary referrals match peers' words with; the bundled tables when absent. */
  vocabulary?: QueryVocabulary;
  configuredPeers: readonly string[];
  /** PEERS_MIRROR: known peers served locally through their change feed, never asked live. */
  mirroredPeers?: readonly string[];
  federation: Federation;
  logger: Logger;
}

export interface FederatedSearchInput {
  mode: FederationMode;
  text: string;
  filter?: QueryFilter;
  pageSize?: number;
  pageToken?: string;
  /** One result per product (default); false: every matched entry (SearchInput.collapse). Peers collapse as they do. */
  collapse?: boolean;
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
  /** Results of that page already consumed. */
  s: number;
  /** Calibrated score of the last result consumed (100 at the start). */
  m: number;
  /** The peer's side of the frozen score map (ScoreMap.from). */
  c: number[];
}

interface FederatedState {
  p: PeerCursor[];
  /** Hashes of identifiers emitted from peers. */
  h: string[];
  /** This registry's side of the frozen score maps (ScoreMap.to). */
  l: number[];
}

export async function federatedSearch(deps: FederatedSearchDeps, input: FederatedSearchInput): Promise<FederatedSearchOutput> {
  const mode = input.mode;
  switch (mode) {
    case 'none':
      return deps.search.search(input);
    case 'referrals': {
      // Peers are ranked on the words searched: a long text's first part (query-text.ts searchedQueryText).
      const text = checkQueryText(input.text);
      const [page, referrals] = await Promise.all([deps.search.search(input), findReferrals(deps, text, input.hop.visited)]);
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

interface PeerPage {
  answer: PeerAnswer;
  /** The token that fetched this page (undefined: the first page). */
  token?: string;
  next?: string;
}

interface PeerFetch {
  peer: Peer;
  cursor: PeerCursor;
  pages: PeerPage[];
  /** The results of `pages` after the cursor's `s`, as believed (peer-resolution.ts). */
  resolved: ResolvedResult[];
}

async function autoSearch(deps: FederatedSearchDeps, input: FederatedSearchInput): Promise<FederatedSearchOutput> {
  const { text, pageSize, filter, page: paging, collapse } = deps.search.open(input, 'search-auto');
  const { federation } = deps;
  const fingerprint = queryFingerprint(text, filter);
  // Our own query coming back through a peer that ignores the loop headers: answered from our index
  // at once (a page token of ours is never the start of a loop).
  if (!input.pageToken && federation.inFlight.has(fingerprint)) {
    federation.metrics.countLoop();
    deps.logger.info({ fingerprint }, 'auto search for a query in flight here answered as none (a peer asked it back)');
    return deps.search.search(input);
  }
  const decoded = paging.token;
  const offset = paging.offset;
  const state = decoded ? readState(decoded.x) : null;

  // Peers are waited for until the deadline; what follows it fits in FINISH_RESERVE_MS.
  const deadline = (input.receivedAt ?? performance.now()) + input.hop.budgetMs - FINISH_RESERVE_MS;
  const timeLeft = () => deadline - performance.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('federation budget spent')), Math.max(0, timeLeft()));
  // The local search starts with the fan-out, not after the peer list is read. Only its page's entries
  // are read: the merge takes at most pageSize local results (local copies are never dropped as duplicates).
  const local = deps.search
    .rankResults(text, filter, { page: { offset, size: pageSize }, collapse })
    .then(({ matches, entries, results }) => ({ matches, page: entries, results }));
  // Awaited below; a failure before that must not leave this rejection unhandled.
  local.catch(() => undefined);
  let release: (() => void) | undefined;
  try {
    const known = input.hop.hopsLeft > 0 ? await listKnownPeers(deps.db, deps.configuredPeers, deps.publicUrl, deps.mirroredPeers) : [];
    const cursors = peerCursors(known, input.hop, state);
    if (cursors.length > 0) {
      federation.metrics.countFanout();
      release = federation.inFlight.hold(fingerprint);
    }
    const self = normalisePeerBase(deps.publicUrl);
    const visited = [...input.hop.visited, ...(self ? [self] : []), ...cursors.map((c) => c.peer.baseUrl)];
    const request: Omit<PeerSearchRequest, 'pageToken'> = {
      text,
      ...(input.filter ? { filter: input.filter } : {}),
      // Never more than the caller asked for: page sizes do not grow across hops.
      pageSize,
      federation: input.hop.hopsLeft > 1 ? 'auto' : 'none',
    };
    const call = (peer: Peer, token: string | undefined) =>
      callPeer(
        deps,
        peer,
        { ...request, ...(token ? { pageToken: token } : {}) },
        {
          headers: federationHeaders(input.hop.hopsLeft - 1, visited, timeLeft()),
          timeoutMs: timeLeft(),
          signal: controller.signal,
        },
      );
    const resolveContext: ResolveContext = {
      db: deps.db,
      publicUrl: deps.publicUrl,
      knownBases: new Set(known.map((p) => p.baseUrl)),
      clients: federation.clients,
      metrics: federation.metrics,
      logger: deps.logger,
      timeLeft,
      signal: controller.signal,
    };
    // A peer whose results are not resolved by the deadline (its answer, the local-copy lookup, the
    // completions) is left out like a slow one.
    const deadlinePassed = new Promise<null>((resolve) => controller.signal.addEventListener('abort', () => resolve(null), { once: true }));
    const untilDeadline = (c: { peer: Peer; cursor: PeerCursor }) => {
      const fetching = fetchPeerList(c, pageSize, call, resolveContext);
      fetching.catch(() => undefined);
      return Promise.race([fetching, deadlinePassed]);
    };
    const [{ matches, page, results }, fetched] = await Promise.all([
      local,
      deps.search.timed('federation', () => Promise.all(cursors.map(untilDeadline))),
    ]);
    release?.();

    const answered = fetched.filter((f): f is PeerFetch => f !== null);
    // Score maps: frozen in the token after the first page; on the first, from the histories with this
    // query's own first pages recorded.
    let localKnots = state?.l;
    if (!localKnots && federation.firstRecording(fingerprint)) {
      federation.localScores.record(matches.slice(0, CALIBRATION_DEPTH).map((m) => m.score));
      for (const f of answered) federation.peerScores(f.peer.baseUrl).record(rawScoresOf(f.resolved));
    }
    const maps = new Map<string, ScoreMap>();
    for (const f of answered) {
      const map =
        f.cursor.c.length > 0 && localKnots
          ? { from: f.cursor.c, to: localKnots }
          : scoreMap(federation.peerScores(f.peer.baseUrl), federation.localScores);
      localKnots ??= map.to;
      maps.set(f.peer.baseUrl, map);
    }
    const lists: FusionList[] = [
      {
        key: 'local',
        local: true,
        items: results.map((result) => ({ entry: result, score: result.score, source: result.source })),
        lastScore: 100,
        complete: true,
      },
      ...answered.map((f) => toFusionList(deps, f, maps.get(f.peer.baseUrl)!)),
    ];
    const fused = fuseLists({
      lists,
      pageSize,
      localIds: new Set(matches.map((m) => m.identifier)),
      emittedPeerHashes: new Set(state?.h ?? []),
    });

    // Ranks, not positions in `page`: an entry deleted since the match left no hole in the ranks.
    const consumedLocal = fused.consumed.get('local') ?? 0;
    const nextOffset = consumedLocal === 0 ? offset : page[consumedLocal - 1]!.rank + 1;
    const hashes = [...(state?.h ?? []), ...fused.newPeerHashes];
    const failedOnLaterPage = decoded ? cursors.filter((c) => !answered.some((a) => a.peer === c.peer)).map((c) => c.cursor) : [];
    let peerState = [
      ...answered.map((f) =>
        advance(f, fused.consumed.get(f.peer.baseUrl) ?? 0, fused.lastScores.get(f.peer.baseUrl) ?? 100, maps.get(f.peer.baseUrl)!),
      ),
      ...failedOnLaterPage,
    ].filter((c): c is PeerCursor => c !== null);
    if (hashes.length > MAX_REMEMBERED_PEER_RESULTS) peerState = [];
    const more = nextOffset < matches.length || peerState.length > 0;
    const next = more
      ? paging.next(nextOffset, { p: peerState, h: peerState.length > 0 ? hashes : [], l: localKnots ?? [] } satisfies FederatedState)
      : undefined;
    return { results: fused.results, ...(next ? { pageToken: next } : {}) };
  } finally {
    release?.();
    clearTimeout(timer);
    // Nothing is in flight on success; after an error this cancels what is.
    controller.abort();
  }
}

/** Page 1: the known peers not visited (none when no hop is left). Later pages: the token's peers still known. */
function peerCursors(known: readonly Peer[], hop: FederationHop, state: FederatedState | null): Array<{ peer: Peer; cursor: PeerCursor }> {
  if (hop.hopsLeft <= 0) return [];
  if (!state) {
    return (
      known
        // A mirrored peer's entries are in our own index already (docs/federation.md "Mirroring").
        .filter((p) => !hop.visited.includes(p.baseUrl) && !p.mirrored)
        .slice(0, MAX_PEERS_PER_QUERY)
        .map((peer) => ({ peer, cursor: { u: peer.baseUrl, s: 0, m: 100, c: [] } }))
    );
  }
  const byBase = new Map(known.map((p) => [p.baseUrl, p]));
  return state.p.flatMap((cursor) => {
    const peer = byBase.get(cursor.u);
    return peer ? [{ peer, cursor }] : [];
  });
}

type PeerCall = (peer: Peer, token: string | undefined) => Promise<PeerAnswer | null>;

/**
 * The peer's page holding its next result, and the page after it when fewer than `pageSize`
 * results remain on the first (so the merge has enough of every list at hand), then what is believed
 * of them (peer-resolution.ts). Null when the peer is skipped or its first call fails.
 */
async function fetchPeerList(
  c: { peer: Peer; cursor: PeerCursor },
  pageSize: number,
  call: PeerCall,
  resolveContext: ResolveContext,
): Promise<PeerFetch | null> {
  const first = await call(c.peer, c.cursor.t);
  if (!first) return null;
  const pages: PeerPage[] = [{ answer: first, token: c.cursor.t, next: usableToken(first.pageToken) }];
  if (first.results.length - c.cursor.s < pageSize && pages[0]!.next) {
    const second = await call(c.peer, pages[0]!.next);
    if (second) pages.push({ answer: second, token: pages[0]!.next, next: usableToken(second.pageToken) });
  }
  const items = pages.flatMap((p) => p.answer.results).slice(c.cursor.s);
  const resolved = await resolvePeerResults(resolveContext, c.peer, items, pageSize);
  return { peer: c.peer, cursor: c.cursor, pages, resolved };
}

function usableToken(token: string | undefined): string | undefined {
  return token && token.length <= MAX_PEER_TOKEN_LENGTH ? token : undefined;
}

/** A peer's raw scores in list order, a missing one read as the one before it (the first: 100). */
function effectiveRawScores(resolved: readonly ResolvedResult[]): number[] {
  let previous = 100;
  return resolved.map((r) => (previous = r.rawScore ?? previous));
}

function rawScoresOf(resolved: readonly ResolvedResult[]): number[] {
  return resolved.flatMap((r) => (r.rawScore === undefined ? [] : [r.rawScore]));
}

/**
 * The peer's list on our scale. A peer's list must not rise: a score above the one consumed before it
 * is lowered to it and counted (`misordered_score`), so the merge stays exact and ordered.
 */
function toFusionList(deps: FederatedSearchDeps, f: PeerFetch, map: ScoreMap): FusionList {
  let running = f.cursor.m;
  let misordered = 0;
  const raw = effectiveRawScores(f.resolved);
  const items: FusionItem[] = f.resolved.map((r, i) => {
    const calibrated = calibrate(map, raw[i]!);
    if (calibrated > running + 1e-9) misordered++;
    running = Math.min(running, calibrated);
    // A dropped result stays in the list as a placeholder (consumed, never shown): positions in the
    // peer's pages must not shift for the page token.
    return r.entry
      ? { entry: r.entry, score: running, source: r.source }
      : { entry: { identifier: '' }, score: running, source: r.source, dropped: true };
  });
  if (misordered > 0) tolerate(deps, f.peer.baseUrl, 'misordered_score', misordered);
  return {
    key: f.peer.baseUrl,
    local: false,
    items,
    lastScore: f.cursor.m,
    complete: f.pages[f.pages.length - 1]!.next === undefined,
  };
}

/** The cursor after `consumed` more results of the fetched pages; null when the peer's list is used up. */
function advance(f: PeerFetch, consumed: number, lastScore: number, map: ScoreMap): PeerCursor | null {
  let skip = f.cursor.s + consumed;
  const base = { u: f.peer.baseUrl, m: lastScore, c: map.from };
  for (const page of f.pages) {
    if (skip < page.answer.results.length) return { ...base, ...(page.token ? { t: page.token } : {}), s: skip };
    skip -= page.answer.results.length;
    if (!page.next) return null;
  }
  return { ...base, t: f.pages[f.pages.length - 1]!.next, s: 0 };
}

function tolerate(deps: FederatedSearchDeps, peer: string, kind: (typeof TOLERATED_KINDS)[number], n: number): void {
  deps.federation.metrics.countTolerated(peer, kind, n);
  if (deps.federation.metrics.firstSeen(peer, `tolerated ${kind}`)) {
    deps.logger.info({ peer, kind }, 'peer answer departs from the schema; tolerated (logged once per peer and kind, counted in /metrics)');
  }
}

async function callPeer(
  deps: FederatedSearchDeps,
  peer: Peer,
  request: PeerSearchRequest,
  options: { headers: Record<string, string>; timeoutMs: number; signal: AbortSignal },
): Promise<PeerAnswer | null> {
  const { breakers, metrics, clients } = deps.federation;
  const key = peer.baseUrl;
  if (options.signal.aborted || options.timeoutMs <= 0) {
    metrics.record(key, 'timeout');
    return null;
  }
  if (breakers.state(key) === 'half-open') {
    metrics.record(key, 'circuit_open');
    return null;
  }
  const started = Date.now();
  try {
    const answer = await breakers.execute(key, () => searchPeer(clients.forPeer(peer), peer, request, options));
    metrics.record(key, 'ok', Date.now() - started);
    for (const kind of TOLERATED_KINDS) if (answer.tolerated[kind]) tolerate(deps, key, kind, answer.tolerated[kind]);
    for (const d of answer.dropped) {
      metrics.countDropped(key, d.reason);
      if (metrics.firstSeen(key, `drop ${d.reason}`))
        deps.logger.warn(
          { peer: key, reason: d.reason, identifier: d.identifier, detail: d.detail },
          'peer search result dropped (logged once per peer and reason)',
        );
    }
    return answer;
  } catch (err) {
    if (!(err instanceof PeerSearchError)) {
      if (err instanceof CircuitOpenError) {
        metrics.record(key, 'circuit_open');
        return null;
      }
      throw err;
    }
    const latency = Date.now() - started;
    metrics.record(key, err.outcome, latency);
    deps.logger.warn(
      { peer: key, outcome: err.outcome, status: err.status, latencyMs: latency, circuit: breakers.state(key), err: err.message },
      'peer search failed; left out of the results',
    );
    return null;
  }
}

function readState(x: unknown): FederatedState {
  const s = (x ?? {}) as Partial<FederatedState>;
  const valid =
    Array.isArray(s.p) &&
    Array.isArray(s.h) &&
    Array.isArray(s.l) &&
    s.p.every(
      (c) => !!c && typeof c.u === 'string' && typeof c.s === 'number' && typeof c.m === 'number' && isScoreMap({ from: c.c, to: s.l }),
    );
  if (!valid) throw new InvalidArgumentError('pageToken is invalid: it does not continue a federated search');
  return { p: s.p!, h: s.h!, l: s.l! };
}
