// The portal's only way to the index: the registry's public HTTP API (POST /search, POST /explore,
// GET /agents, GET /agents/{identifier}), the routes a third-party portal would call, over HTTP to the
// socket the page request arrived on. So each call passes the same middleware a network client's does
// (routing, OpenAPI validation, deadline, error mapping) and the portal reads the same JSON.
// The calls carry a key of this process: the rate limit exempts them, since the page request that made
// them was counted against the person's address (docs/decisions/0027-portal-calls-the-public-api.md).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { CatalogEntry } from '../catalog/catalog-entry';
import type { FederatedSearchOutput, FederationMode } from '../federation/federated-search';
import type { ListInput, ListOutput } from '../listing/list-agents';
import type { ExploreOutput, FacetRequest } from '../search/explore-service';
import type { SearchResultItem } from '../search/search-service';

// The shapes of the API's JSON are the types its handlers send (type-only imports: nothing of the domain runs here).
export type { CatalogEntry } from '../catalog/catalog-entry';
export type { FacetBucket, FacetResult } from '../search/explore-service';
export type SearchResult = SearchResultItem;
export type SearchResponse = FederatedSearchOutput;
export type Federation = FederationMode;
export type ExploreResponse = ExploreOutput;
export type ListRequest = ListInput;
export type ListResponse = ListOutput;
/** `query.filter` as the portal sends it: every value a list. */
export type QueryFilter = Record<string, string[]>;

/** `trustManifest` as ai-catalog.schema.json `$defs/trustManifest` describes it. */
export interface TrustManifest {
  identity: string;
  identityType?: string;
  trustSchema?: { identifier: string; version: string; governanceUri?: string; verificationMethods?: string[] };
  attestations?: Array<{ type: string; uri: string; mediaType: string; digest?: string }>;
  provenance?: Array<{ relation: string; sourceId: string; sourceDigest?: string }>;
  signature?: string;
}

export interface SearchRequest {
  query: { text: string; filter?: QueryFilter };
  federation?: Federation;
  pageSize?: number;
  pageToken?: string;
}

export interface ExploreRequest {
  query?: { text?: string; filter?: QueryFilter };
  resultType: { facets: FacetRequest[] };
}

/** The API's answer: its body (and response headers, lower-case names) on 200, its `{errorCode, message}` otherwise. */
export type ApiAnswer<T> =
  { ok: true; body: T; headers?: Record<string, string> } | { ok: false; status: number; errorCode: string; message: string };

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
    if (response.status === 200) {
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      return { ok: true, body: parsed as T, headers };
    }
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
