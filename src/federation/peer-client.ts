// POST {peer}/search through the outbound module (the only HTTP client). Two clients: operator-
// configured peers are trusted configuration and may live on private addresses (an internal peer
// registry is a normal deployment); discovered peers are URLs strangers published, so they get the
// crawler's SSRF policy (private addresses only with CRAWL_ALLOW_PRIVATE). Neither follows redirects:
// a search endpoint that redirects a POST is misconfigured, and a redirect must not carry a trusted
// call to an address nobody configured.
import { createHttpClient, OutboundError, type HttpClient } from '../outbound';
import type { QueryFilter } from '../search/query-filter';
import type { PeerOutcome } from './metrics';
import { searchUrlOf, type Peer } from './peer-directory';
import { InvalidPeerResponseError, readPeerAnswer, type PeerAnswer } from './peer-response';

/** Largest peer answer read: 100 results of generous entries; a peer sending more is cut off. */
export const PEER_MAX_BODY_BYTES = 2 * 1024 * 1024;
const USER_AGENT = 'ard-registry/0.1 (federation)';

export interface PeerClients {
  forPeer(peer: Peer): HttpClient;
  close(): Promise<void>;
}

export function createPeerClients(options: { maxConcurrency: number; allowPrivateDiscovered: boolean }): PeerClients {
  const common = {
    userAgent: USER_AGENT,
    maxBodyBytes: PEER_MAX_BODY_BYTES,
    maxRedirects: 0,
    maxConcurrentRequests: options.maxConcurrency,
    connectTimeoutMs: 2000,
  };
  const trusted = createHttpClient({ ...common, allowPrivateAddresses: true });
  const discovered = createHttpClient({ ...common, allowPrivateAddresses: options.allowPrivateDiscovered });
  return {
    forPeer: (peer) => (peer.configured ? trusted : discovered),
    async close() {
      await Promise.all([trusted.close(), discovered.close()]);
    },
  };
}

export interface PeerSearchRequest {
  text: string;
  filter?: QueryFilter;
  pageSize: number;
  pageToken?: string;
  federation: 'auto' | 'none';
}

export class PeerSearchError extends Error {
  override name = 'PeerSearchError';
  constructor(
    readonly outcome: Exclude<PeerOutcome, 'ok' | 'circuit_open'>,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** 4xx other than 429 says the peer is alive and refused this query (e.g. a filter it does not support). */
  get countsAgainstPeer(): boolean {
    return !(this.outcome === 'http_status' && this.status !== undefined && this.status >= 400 && this.status < 500 && this.status !== 429);
  }
}

export async function searchPeer(
  http: HttpClient,
  peer: Peer,
  request: PeerSearchRequest,
  options: { headers: Record<string, string>; timeoutMs: number; signal: AbortSignal },
): Promise<PeerAnswer> {
  const payload = {
    query: { text: request.text, ...(request.filter ? { filter: request.filter } : {}) },
    federation: request.federation,
    pageSize: request.pageSize,
    ...(request.pageToken ? { pageToken: request.pageToken } : {}),
  };
  let res;
  try {
    res = await http.postJson(searchUrlOf(peer.baseUrl), payload, {
      headers: options.headers,
      timeoutMs: Math.max(1, options.timeoutMs),
      signal: options.signal,
    });
  } catch (err) {
    throw toPeerSearchError(err, peer);
  }
  if (res.status !== 200) {
    throw new PeerSearchError('http_status', `peer ${peer.baseUrl} answered HTTP ${res.status}`, res.status);
  }
  try {
    return readPeerAnswer(res.json);
  } catch (err) {
    if (err instanceof InvalidPeerResponseError)
      throw new PeerSearchError('invalid_response', `peer ${peer.baseUrl}: ${err.message}`, 200, { cause: err });
    throw err;
  }
}

/**
 * GET {peer}/agents/{identifier} (ARD v0.91 §5.3.4: the identifier percent-encoded as one path segment):
 * the peer's complete entry, unchecked, or null when the peer has none (404, another status, an
 * answer that is not a JSON object). Network errors and timeouts throw PeerSearchError.
 */
export async function retrievePeerEntry(
  http: HttpClient,
  peer: Peer,
  identifier: string,
  options: { timeoutMs: number; signal: AbortSignal },
): Promise<Record<string, unknown> | null> {
  let res;
  try {
    res = await http.getJson(new URL(`agents/${encodeURIComponent(identifier)}`, peer.baseUrl), {
      timeoutMs: Math.max(1, options.timeoutMs),
      signal: options.signal,
    });
  } catch (err) {
    throw toPeerSearchError(err, peer);
  }
  if (res.status !== 200 || !res.json || typeof res.json !== 'object' || Array.isArray(res.json)) return null;
  return res.json as Record<string, unknown>;
}

function toPeerSearchError(err: unknown, peer: Peer): PeerSearchError {
  if (!(err instanceof OutboundError))
    return new PeerSearchError('network', `peer ${peer.baseUrl}: ${String(err)}`, undefined, { cause: err });
  switch (err.code) {
    case 'TIMEOUT':
    case 'ABORTED':
      return new PeerSearchError('timeout', err.message, undefined, { cause: err });
    case 'BODY_TOO_LARGE':
      return new PeerSearchError('too_large', err.message, undefined, { cause: err });
    case 'INVALID_JSON':
      return new PeerSearchError('invalid_response', err.message, undefined, { cause: err });
    case 'TOO_MANY_REDIRECTS':
    case 'REDIRECT_LOOP':
      return new PeerSearchError('http_status', err.message, undefined, { cause: err });
    case 'BLOCKED_ADDRESS':
    case 'BAD_SCHEME':
    case 'INVALID_URL':
    case 'NETWORK':
    case 'CLOSED':
      return new PeerSearchError('network', err.message, undefined, { cause: err });
    default: {
      const unreachable: never = err.code;
      return new PeerSearchError('network', String(unreachable), undefined, { cause: err });
    }
  }
}
