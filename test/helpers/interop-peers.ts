// Peer registries that no one here wrote, as test doubles: one that answers like the ARD working
// group's reference registry, one in the v0.91 shape, hostile ones, and one that implements `auto` by
// asking its caller back while ignoring every header. Each is a node:http server on loopback.
import http from 'node:http';
import { json, startFakePeer, type FakePeer } from './peers';

export interface PeerEntryDoc {
  identifier: string;
  displayName: string;
  type: string;
  url: string;
  description?: string;
  [field: string]: unknown;
}

export const peerEntry = (publisher: string, name: string, description: string): PeerEntryDoc => ({
  identifier: `urn:air:${publisher}:mcp:${name}`,
  displayName: name.replace(/-/g, ' '),
  type: 'application/mcp-server-card+json',
  url: `https://${publisher}/${name}`,
  description,
});

/** Entries whose text holds a word of the query, with a score falling by rank (the reference's way). */
function matching(entries: readonly PeerEntryDoc[], text: string): PeerEntryDoc[] {
  const words = text
    .toLowerCase()
    .split(/\W+/)
    .filter((w) => w.length > 2);
  return entries.filter((e) => words.some((w) => `${e.displayName} ${e.description ?? ''}`.toLowerCase().includes(w)));
}

function queryText(body: unknown): string {
  return String((body as { query?: { text?: unknown } } | undefined)?.query?.text ?? '');
}

/** What a `retrievable` returns for a GET /agents/{identifier} that is never answered (closed with the peer). */
export const NEVER_ANSWER = Symbol('never answer');

/** GET /agents/{identifier} from `lookup`; the identifier is one percent-encoded path segment (ARD v0.91 §5.3.4). */
function retrieve(req: http.IncomingMessage, res: http.ServerResponse, lookup: (id: string) => unknown): boolean {
  const match = /^\/agents\/([^/?]+)$/.exec(req.url ?? '');
  if (req.method !== 'GET' || !match) return false;
  const found = lookup(decodeURIComponent(match[1]!));
  if (found === NEVER_ANSWER) return true;
  if (found) json(res, 200, found);
  else json(res, 404, { errorCode: 'NOT_FOUND', message: 'no such entry' });
  return true;
}

/**
 * Like the reference registry: valid v0.9 results, `"pageToken": null` on every answer, a `total`
 * field, zero results when nothing matches, no well-known manifest (404).
 */
export function startReferenceLikePeer(entries: readonly PeerEntryDoc[]): Promise<FakePeer> {
  let url = '';
  const started = startFakePeer((req, res, body) => {
    if (req.method === 'GET' && req.url?.startsWith('/.well-known/'))
      return json(res, 404, { errorCode: 'NOT_FOUND', message: 'not found' });
    if (retrieve(req, res, (id) => entries.find((e) => e.identifier === id))) return;
    const found = matching(entries, queryText(body));
    json(res, 200, {
      results: found.map((e, i) => ({ ...e, score: 90 - 7 * i, source: url })),
      pageToken: null,
      total: found.length,
    });
  });
  return started.then((peer) => ((url = peer.url), peer));
}

/**
 * Like a v0.91 registry: an `@context` on the answer, results that carry only identifier, score and
 * source (ARD v0.91 §5.3.2), complete entries (with their own `@context`) from GET /agents/{identifier}.
 * `retrievable` maps an identifier to what GET answers (undefined: 404).
 */
export function startV091LikePeer(
  listed: ReadonlyArray<{ identifier: string; score: number }>,
  retrievable: (id: string) => unknown,
): Promise<FakePeer> {
  let url = '';
  const started = startFakePeer((req, res) => {
    if (retrieve(req, res, retrievable)) return;
    json(res, 200, {
      '@context': 'https://agenticresourcediscovery.org/context/v1',
      results: listed.map((r) => ({ identifier: r.identifier, score: r.score, source: url })),
    });
  });
  return started.then((peer) => ((url = peer.url), peer));
}

/** Answers every search with `results` as given (spoofs, inflated scores, duplicates: whatever the test writes). */
export function startScriptedPeer(results: () => unknown[], extra: Record<string, unknown> = {}): Promise<FakePeer> {
  return startFakePeer((_req, res) => json(res, 200, { results: results(), ...extra }));
}

/** Answers 200 with an HTML page, as a misconfigured route or a login wall would. */
export function startHtmlPeer(): Promise<FakePeer> {
  return startFakePeer((_req, res) => {
    const page = '<!doctype html><html><body><h1>Welcome</h1></body></html>';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(page) });
    res.end(page);
  });
}

/** Redirects every request to `target` (307, so a client that follows would POST again there). */
export function startRedirectingPeer(target: string): Promise<FakePeer> {
  return startFakePeer((_req, res) => {
    res.writeHead(307, { location: new URL('search', target).toString(), 'content-length': 0 });
    res.end();
  });
}

/**
 * Implements `auto` by asking its caller back with `auto`, pageSize doubled (up to 100), and no
 * federation header at all; merges the caller's answer under its own results, named as its own.
 * `callerUrl()` is read at request time (the caller starts after this peer).
 */
export function startHeaderIgnoringLoopPeer(own: readonly PeerEntryDoc[], callerUrl: () => string): Promise<FakePeer> {
  let url = '';
  const started = startFakePeer((_req, res, body) => {
    const asked = body as { query: { text: string }; pageSize?: number };
    const pageSize = Math.min(100, (asked.pageSize ?? 10) * 2);
    void fetch(new URL('search', callerUrl()), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: asked.query, federation: 'auto', pageSize }),
    })
      .then((r) => r.json() as Promise<{ results?: Array<Record<string, unknown>> }>)
      .catch(() => ({ results: [] }))
      .then((back) => {
        const mine = own.map((e, i) => ({ ...e, score: 80 - i, source: url }));
        json(res, 200, { results: [...mine, ...(back.results ?? []).map((r) => ({ ...r, source: url }))] });
      });
  });
  return started.then((peer) => ((url = peer.url), peer));
}

/** What a change-feed peer's script answers for one GET /changes: a body to send as JSON, or raw bytes. */
export type FeedAnswer = { json: unknown; status?: number } | { raw: string | Buffer; contentType: string };

/**
 * A registry that serves a change feed (GET /changes, docs/api.md "Change feed") written by the test:
 * `feed` gets the `since` sent (null: none) and the `limit`, and says what to answer. POST /search
 * answers `results()` (so a test can see whether it is asked live).
 */
export function startChangeFeedPeer(
  feed: (since: string | null, limit: number) => FeedAnswer,
  results: () => unknown[] = () => [],
): Promise<FakePeer> {
  return startFakePeer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://peer.test');
    if (req.method === 'GET' && url.pathname === '/changes') {
      const answer = feed(url.searchParams.get('since'), Number(url.searchParams.get('limit') ?? '100'));
      if ('json' in answer) return json(res, answer.status ?? 200, answer.json);
      res.writeHead(200, { 'content-type': answer.contentType, 'content-length': Buffer.byteLength(answer.raw) });
      return res.end(answer.raw);
    }
    if (req.method === 'POST' && url.pathname === '/search') return json(res, 200, { results: results() });
    json(res, 404, { errorCode: 'NOT_FOUND', message: 'not found' });
  });
}
