// The portal's only way to the index: the registry's public HTTP API (POST /search, POST /explore,
// GET /agents, GET /agents/{identifier}), the routes a third-party portal would call, over HTTP to the
// socket the page request arrived on. So each call passes the same middleware a network client's does
// (routing, OpenAPI validation, deadline, error mapping) and the portal reads the same JSON.
// The calls carry a key of this process: the rate limit exempts them, since the page request that made
// them was counted against the person's address (docs/decisions/0030-portal-calls-the-public-api.md).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** A catalog entry as the API returns it (openapi/ai-catalog.schema.json `$defs/catalogEntry`). */
export interface CatalogEntry {
  identifier: string;
  displayName: string;
  type: string;
  url?: string;
  data?: Record<string, unknown>;
  description?: string;
  tags?: string[];
  capabilities?: string[];
  representativeQueries?: string[];
  version?: string;
  updatedAt?: string;
  metadata?: Record<string, string | number | boolean | null>;
  trustManifest?: TrustManifest;
}

export interface TrustManifest {
  identity: string;
  identityType?: string;
  trustSchema?: { identifier: string; version: string; governanceUri?: string; verificationMethods?: string[] };
  attestations?: Array<{ type: string; uri: string; mediaType: string; digest?: string }>;
  provenance?: Array<{ relation: string; sourceId: string; sourceDigest?: string }>;
  signature?: string;
}

export type SearchResult = CatalogEntry & { score: number; source: string };
export interface Referral {
  identifier: string;
  displayName: string;
  type: string;
  url: string;
}
export interface SearchResponse {
  results: SearchResult[];
  referrals?: Referral[];
  pageToken?: string;
}

export type Federation = 'auto' | 'referrals' | 'none';
export type QueryFilter = Record<string, string[]>;

export interface SearchRequest {
  query: { text: string; filter?: QueryFilter };
  federation?: Federation;
  pageSize?: number;
  pageToken?: string;
}

export interface FacetBucket {
  value: string;
  count: number;
}
export interface FacetResult {
  buckets: FacetBucket[];
  otherCount?: number;
}
export interface ExploreRequest {
  query?: { text?: string; filter?: QueryFilter };
  resultType: { facets: Array<{ field: string; limit?: number; minCount?: number }> };
}
export interface ExploreResponse {
  resultType: 'facets';
  facets: Record<string, FacetResult>;
}

export interface ListRequest {
  filter?: string;
  orderBy?: string;
  pageSize?: number;
  pageToken?: string;
}
export interface ListResponse {
  items: CatalogEntry[];
  total?: number;
  pageToken?: string;
}

/** The API's answer: its body on 200, its `{errorCode, message}` otherwise. */
export type ApiAnswer<T> = { ok: true; body: T } | { ok: false; status: number; errorCode: string; message: string };

export interface RegistryApi {
  search(request: SearchRequest): Promise<ApiAnswer<SearchResponse>>;
  explore(request: ExploreRequest): Promise<ApiAnswer<ExploreResponse>>;
  listAgents(request: ListRequest): Promise<ApiAnswer<ListResponse>>;
  getEntry(identifier: string): Promise<ApiAnswer<CatalogEntry>>;
}

/** Where and for whom a page calls the API. */
export interface ApiCaller {
  /** `http://<address>:<port>` of the socket the page request arrived on. */
  baseUrl: string;
  /** The page request's id, so its API calls log under the same id. */
  requestId?: string;
  /** The process's portal key (`PortalKey.value`). */
  key: string;
  timeoutMs: number;
}

export const PORTAL_KEY_HEADER = 'x-registry-portal-key';

/** A random key per process: only this process's portal can show it. */
export class PortalKey {
  readonly value = randomBytes(24).toString('base64url');
  private readonly bytes = Buffer.from(this.value);

  /** The request is the portal's own API call (the rate limit skips it). */
  matches(req: IncomingMessage): boolean {
    const sent = req.headers[PORTAL_KEY_HEADER];
    if (typeof sent !== 'string' || sent.length !== this.value.length) return false;
    return timingSafeEqual(Buffer.from(sent), this.bytes);
  }
}

/** The base URL of the socket a request arrived on: the registry itself, whatever it listens on. */
export function ownBaseUrl(req: IncomingMessage): string {
  const address = req.socket.localAddress ?? '127.0.0.1';
  const host = address.includes(':') ? `[${address}]` : address;
  return `http://${host}:${req.socket.localPort}`;
}

export function registryApi(caller: ApiCaller): RegistryApi {
  const call = async <T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiAnswer<T>> => {
    const headers: Record<string, string> = { accept: 'application/json', [PORTAL_KEY_HEADER]: caller.key };
    if (caller.requestId) headers['x-request-id'] = caller.requestId;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${caller.baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(caller.timeoutMs),
    });
    const parsed = parseJson(await response.text());
    if (response.status === 200) return { ok: true, body: parsed as T };
    const error = parsed as { errorCode?: unknown; message?: unknown } | undefined;
    return {
      ok: false,
      status: response.status,
      errorCode: typeof error?.errorCode === 'string' ? error.errorCode : 'UNAVAILABLE',
      message: typeof error?.message === 'string' ? error.message : `the registry answered HTTP ${response.status}`,
    };
  };
  return {
    search: (request) => call('POST', '/search', request),
    explore: (request) => call('POST', '/explore', request),
    listAgents: (request) => call('GET', `/agents${queryString(request)}`),
    getEntry: (identifier) => call('GET', `/agents/${encodeURIComponent(identifier)}`),
  };
}

function queryString(request: ListRequest): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(request)) {
    if (value !== undefined && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}
