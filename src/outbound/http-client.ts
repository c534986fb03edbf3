/**
 * The registry's one outbound HTTP client (crawler and federation). Every request has
 * a deadline, a body cap, a redirect cap, and goes only to vetted public addresses.
 *
 * Redirects are followed here rather than by undici so that each hop gets the same
 * scheme, address and loop checks as the first request.
 */
import pLimit from 'p-limit';
import { Agent, errors as undiciErrors } from 'undici';
import type { Dispatcher } from 'undici';
import { createAddressPolicy, createVettingLookup, parseIp, systemResolver } from './address-policy';
import type { AddressPolicy, Resolver } from './address-policy';
import { BlockedAddressError, BodyTooLargeError, OutboundError, OutboundTimeoutError } from './errors';

export const DEFAULTS = Object.freeze({
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 10_000,
  totalTimeoutMs: 30_000,
  maxBodyBytes: 5 * 1024 * 1024,
  maxRedirects: 5,
  maxConnectionsPerOrigin: 4,
  maxConcurrentRequests: 64,
});

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

export interface HttpClientOptions {
  /** Sent on every request, e.g. `ard-registry/0.1 (+https://github.com/org/repo)`. Required. */
  userAgent: string;
  /** DNS + TCP (+ TLS) handshake. */
  connectTimeoutMs?: number;
  /** From request sent to response headers received. */
  headersTimeoutMs?: number;
  /** Longest silence between two body chunks. */
  bodyTimeoutMs?: number;
  /** Deadline for the whole request: every redirect hop and the full body. */
  totalTimeoutMs?: number;
  /** Largest body accepted (bytes); per request `maxBytes` overrides it. */
  maxBodyBytes?: number;
  maxRedirects?: number;
  /** Permit loopback/private/link-local/... destinations. Development and tests only. */
  allowPrivateAddresses?: boolean;
  /** Replaces the policy built from `allowPrivateAddresses` (e.g. to allow-list an internal peer CIDR). */
  addressPolicy?: AddressPolicy;
  /** DNS hook; defaults to getaddrinfo. Tests inject fake answers here. */
  resolver?: Resolver;
  /** Keep-alive sockets per origin (undici `connections`). */
  maxConnectionsPerOrigin?: number;
  /** Requests in flight across all origins; further requests wait for a slot. */
  maxConcurrentRequests?: number;
  /** Added to every request; per-request headers win. */
  defaultHeaders?: Readonly<Record<string, string>>;
}

export interface OutboundRequest {
  method?: HttpMethod;
  url: string | URL;
  headers?: Readonly<Record<string, string>>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /** Body cap for this request (bytes). */
  maxBytes?: number;
  /** Overall deadline for this request (ms), replacing `totalTimeoutMs`. */
  timeoutMs?: number;
  maxRedirects?: number;
  /**
   * Return the first `maxBytes` bytes (with `truncated: true`) instead of failing with
   * BODY_TOO_LARGE. For robots.txt and HTML pages, whose useful part comes first.
   */
  truncate?: boolean;
}

export interface OutboundResponse {
  status: number;
  /** Lower-cased names; repeated headers joined with ", " (set-cookie with "\n"). */
  headers: Record<string, string>;
  /** Over BODY_COPY_THRESHOLD bytes, the body owns its memory (its ArrayBuffer is shared with nothing else). */
  body: Buffer;
  /** Final URL after redirects. */
  url: string;
  /** URLs that answered with a redirect, in order (empty when none). */
  redirects: string[];
  /** True when `truncate` was set and the body was cut at `maxBytes`. */
  truncated: boolean;
}

export interface TextResponse extends OutboundResponse {
  text: string;
}

export interface JsonResponse extends OutboundResponse {
  /**
   * Parsed body. 2xx with a body: parsed, or INVALID_JSON is thrown. Other statuses:
   * parsed when it parses (peers send ARD Error objects), otherwise undefined.
   */
  json: unknown;
}

export type HelperOptions = Omit<OutboundRequest, 'url' | 'method' | 'body'>;

export interface HttpClient {
  request(req: OutboundRequest): Promise<OutboundResponse>;
  getText(url: string | URL, options?: HelperOptions): Promise<TextResponse>;
  getJson(url: string | URL, options?: HelperOptions): Promise<JsonResponse>;
  postJson(url: string | URL, payload: unknown, options?: HelperOptions): Promise<JsonResponse>;
  readonly userAgent: string;
  /** Destroys the agent and its sockets; in-flight requests fail with CLOSED/NETWORK. */
  close(): Promise<void>;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Hop-by-hop or computed by undici; a caller-supplied Host would also break virtual hosting checks.
const DROPPED_REQUEST_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'expect',
  'proxy-connection',
]);
// Credentials never follow a redirect to another origin.
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
// Cap on what is drained from a redirect response to keep its socket reusable.
const REDIRECT_DRAIN_LIMIT = 64 * 1024;

export function parseHttpUrl(input: string | URL, base?: string | URL): URL {
  let url: URL;
  try {
    url = typeof input === 'string' ? new URL(input, base) : new URL(input.href);
  } catch (err) {
    throw new OutboundError('INVALID_URL', `invalid URL: ${JSON.stringify(String(input))}`, {
      url: String(input),
      cause: err,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError('BAD_SCHEME', `unsupported URL scheme ${url.protocol} in ${url.href}; only http: and https:`, {
      url: url.href,
    });
  }
  if (url.username || url.password) {
    // Userinfo in crawled URLs leaks credentials into logs and Authorization headers.
    throw new OutboundError('INVALID_URL', `URL must not contain credentials: ${url.origin}${url.pathname}`, {
      url: `${url.origin}${url.pathname}`,
    });
  }
  url.hash = '';
  return url;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!(v > 0)) throw new TypeError(`${name} must be a positive number, got ${v}`);
  return v;
}

/**
 * Waits for a slot of `limit` and holds it until the returned release is called. A caller abort while
 * waiting rejects at once; p-limit cannot drop a queued task, so the abandoned place is handed on the
 * moment it comes up. (p-limit 3 is its CommonJS line: 4 and later are ESM-only, which this CommonJS
 * build could load only from Node 20.19 on, and package.json promises 20.11.)
 */
function acquireSlot(limit: pLimit.Limit, signal: AbortSignal | undefined): Promise<() => void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    void limit(
      () =>
        new Promise<void>((release) => {
          signal?.removeEventListener('abort', onAbort);
          if (signal?.aborted) release();
          else resolve(() => release());
        }),
    );
  });
}

function flattenHeaders(raw: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    out[key] = Array.isArray(value) ? value.join(key === 'set-cookie' ? '\n' : ', ') : value;
  }
  return out;
}

function findInCauses<T>(err: unknown, ctor: abstract new (...args: never[]) => T): T | undefined {
  let current: unknown = err;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    if (current instanceof ctor) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function charsetOf(contentType: string | undefined): string {
  const match = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '');
  return match?.[1] ?? 'utf-8';
}

/** Bodies up to this size are gathered and joined at the end; larger ones are copied as they arrive. */
export const BODY_COPY_THRESHOLD = 256 * 1024;

/** Bytes copied into a large body between two turns of the event loop. */
const BODY_COPY_PER_TURN = 256 * 1024;

/**
 * A response body gathered chunk by chunk. Past BODY_COPY_THRESHOLD each chunk is copied, as it arrives,
 * into memory reserved for up to `expected` bytes, BODY_COPY_PER_TURN bytes per turn of the event loop:
 * joining 10 MiB at the end held the event loop ~0.2-0.3 s on a busy machine (first touches of fresh
 * memory cost ~45 ms per MiB there). The memory is the body's own, so a reader may move it to a worker
 * thread (src/crawl/catalog-body.ts).
 */
class BodyBuffer {
  private chunks: Buffer[] = [];
  private target: Buffer | null = null;
  private copiedThisTurn = 0;
  received = 0;

  constructor(private readonly expected: number) {}

  /** Adds a chunk; true when the caller should let the event loop turn before the next one. */
  add(chunk: Buffer): boolean {
    if (!this.target && this.received + chunk.length > BODY_COPY_THRESHOLD) {
      this.target = Buffer.allocUnsafeSlow(Math.max(this.expected, this.received + chunk.length));
      let offset = 0;
      for (const earlier of this.chunks) offset += earlier.copy(this.target, offset);
      this.chunks = [];
    }
    this.received += chunk.length;
    if (!this.target) {
      this.chunks.push(chunk);
      return false;
    }
    const at = this.received - chunk.length;
    if (this.received > this.target.length) this.grow(this.received, at);
    chunk.copy(this.target, at);
    this.copiedThisTurn += chunk.length;
    if (this.copiedThisTurn < BODY_COPY_PER_TURN) return false;
    this.copiedThisTurn = 0;
    return true;
  }

  done(): Buffer {
    return this.target ? this.target.subarray(0, this.received) : Buffer.concat(this.chunks, this.received);
  }

  /** A body longer than announced (the cap still applies): rare, so a plain copy. */
  private grow(size: number, filled: number): void {
    const bigger = Buffer.allocUnsafeSlow(Math.max(size, (this.target as Buffer).length * 2));
    (this.target as Buffer).copy(bigger, 0, 0, filled);
    this.target = bigger;
  }
}

function decodeText(body: Buffer, contentType: string | undefined): string {
  try {
    return new TextDecoder(charsetOf(contentType)).decode(body);
  } catch {
    // Unknown charset label: UTF-8 is the web's default and never throws in non-fatal mode.
    return new TextDecoder('utf-8').decode(body);
  }
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  if (!options.userAgent || !options.userAgent.trim()) throw new TypeError('createHttpClient: userAgent is required');
  const userAgent = options.userAgent.trim();
  const connectTimeoutMs = positive('connectTimeoutMs', options.connectTimeoutMs, DEFAULTS.connectTimeoutMs);
  const headersTimeoutMs = positive('headersTimeoutMs', options.headersTimeoutMs, DEFAULTS.headersTimeoutMs);
  const bodyTimeoutMs = positive('bodyTimeoutMs', options.bodyTimeoutMs, DEFAULTS.bodyTimeoutMs);
  const totalTimeoutMs = positive('totalTimeoutMs', options.totalTimeoutMs, DEFAULTS.totalTimeoutMs);
  const maxBodyBytes = positive('maxBodyBytes', options.maxBodyBytes, DEFAULTS.maxBodyBytes);
  const maxRedirects = options.maxRedirects ?? DEFAULTS.maxRedirects;
  if (!Number.isInteger(maxRedirects) || maxRedirects < 0) throw new TypeError('maxRedirects must be an integer >= 0');
  const policy = options.addressPolicy ?? createAddressPolicy({ allowPrivateAddresses: options.allowPrivateAddresses ?? false });
  const resolver = options.resolver ?? systemResolver;
  const slots = pLimit(positive('maxConcurrentRequests', options.maxConcurrentRequests, DEFAULTS.maxConcurrentRequests));

  const agent = new Agent({
    connect: {
      timeout: connectTimeoutMs,
      lookup: createVettingLookup(policy, resolver),
    },
    headersTimeout: headersTimeoutMs,
    bodyTimeout: bodyTimeoutMs,
    connections: positive('maxConnectionsPerOrigin', options.maxConnectionsPerOrigin, DEFAULTS.maxConnectionsPerOrigin),
  });
  let closed = false;

  const baseHeaders: Record<string, string> = {
    accept: '*/*',
    // Compressed bodies would make maxBytes count wire bytes, not what we parse; ask for identity.
    'accept-encoding': 'identity',
  };
  for (const [k, v] of Object.entries(options.defaultHeaders ?? {})) baseHeaders[k.toLowerCase()] = v;
  baseHeaders['user-agent'] = userAgent;

  /** Literal IPs and `localhost` never reach the lookup hook (net.connect skips DNS for IPs). */
  function checkLiteralHost(url: URL): void {
    const host = url.hostname;
    const byName = policy.checkHostname(host);
    if (byName) throw new BlockedAddressError(host, '', byName, { url: url.href });
    if (parseIp(host)) {
      const bare = host.startsWith('[') ? host.slice(1, -1) : host;
      const reason = policy.checkAddress(bare);
      if (reason) throw new BlockedAddressError(bare, bare, reason, { url: url.href });
    }
  }

  async function readBody(
    res: Dispatcher.ResponseData,
    url: string,
    limit: number,
    truncate: boolean,
  ): Promise<{ body: Buffer; truncated: boolean }> {
    const announced = Number(res.headers['content-length']);
    if (!truncate && Number.isFinite(announced) && announced > limit) {
      res.body.destroy();
      throw new BodyTooLargeError(limit, announced, true, { url });
    }
    const body = new BodyBuffer(Number.isFinite(announced) && announced >= 0 ? Math.min(announced, limit) : limit);
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      if (body.received + chunk.length > limit) {
        if (!truncate) {
          res.body.destroy();
          throw new BodyTooLargeError(limit, body.received + chunk.length, false, { url });
        }
        body.add(chunk.subarray(0, limit - body.received));
        res.body.destroy();
        return { body: body.done(), truncated: true };
      }
      // Chunks already buffered are iterated without a turn of the event loop in between.
      if (body.add(chunk)) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return { body: body.done(), truncated: false };
  }

  async function request(req: OutboundRequest): Promise<OutboundResponse> {
    if (closed) throw new OutboundError('CLOSED', `HTTP client is closed; cannot fetch ${String(req.url)}`, { url: String(req.url) });
    let url = parseHttpUrl(req.url);
    const limit = positive('maxBytes', req.maxBytes, maxBodyBytes);
    const deadlineMs = positive('timeoutMs', req.timeoutMs, totalTimeoutMs);
    const hopLimit = req.maxRedirects ?? maxRedirects;

    const controller = new AbortController();
    let deadlineFired = false;
    const onCallerAbort = (): void => controller.abort(req.signal?.reason);
    let release: (() => void) | undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      release = await acquireSlot(slots, req.signal);
      if (req.signal?.aborted) throw req.signal.reason;
      req.signal?.addEventListener('abort', onCallerAbort, { once: true });
      timer = setTimeout(() => {
        deadlineFired = true;
        controller.abort(new OutboundTimeoutError('total', deadlineMs, { url: url.href }));
      }, deadlineMs);

      let method: HttpMethod = req.method ?? 'GET';
      let body = req.body;
      const headers: Record<string, string> = { ...baseHeaders };
      for (const [k, v] of Object.entries(req.headers ?? {})) {
        const key = k.toLowerCase();
        if (!DROPPED_REQUEST_HEADERS.has(key)) headers[key] = v;
      }
      headers['user-agent'] = userAgent;
      const redirects: string[] = [];
      const visited = new Set<string>([`${method} ${url.href}`]);

      for (;;) {
        checkLiteralHost(url);
        const res = await agent.request({
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method,
          headers,
          body: body ?? null,
          signal: controller.signal,
        });

        const location = res.headers['location'];
        if (REDIRECT_STATUSES.has(res.statusCode) && typeof location === 'string' && location !== '') {
          await res.body.dump({ limit: REDIRECT_DRAIN_LIMIT, signal: controller.signal }).catch(() => undefined);
          const next = parseHttpUrl(location, url);
          if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
            // What browsers do, and what peers expect after a POST (RFC 9110 §15.4).
            if (method !== 'HEAD') method = 'GET';
            body = undefined;
            delete headers['content-type'];
          }
          const key = `${method} ${next.href}`;
          if (visited.has(key)) {
            throw new OutboundError('REDIRECT_LOOP', `redirect loop: ${url.href} redirects back to ${next.href}`, {
              url: url.href,
            });
          }
          if (redirects.length >= hopLimit) {
            throw new OutboundError(
              'TOO_MANY_REDIRECTS',
              `more than ${hopLimit} redirects starting at ${parseHttpUrl(req.url).href} (last: ${url.href} -> ${next.href})`,
              { url: url.href },
            );
          }
          if (next.origin !== url.origin) for (const h of CREDENTIAL_HEADERS) delete headers[h];
          visited.add(key);
          redirects.push(url.href);
          url = next;
          continue;
        }

        const read = await readBody(res, url.href, limit, req.truncate ?? false);
        return {
          status: res.statusCode,
          headers: flattenHeaders(res.headers),
          body: read.body,
          url: url.href,
          redirects,
          truncated: read.truncated,
        };
      }
    } catch (err) {
      throw toOutboundError(err, url.href, { deadlineFired, deadlineMs, callerAborted: req.signal?.aborted ?? false });
    } finally {
      if (timer) clearTimeout(timer);
      req.signal?.removeEventListener('abort', onCallerAbort);
      release?.();
    }
  }

  function toOutboundError(
    err: unknown,
    url: string,
    ctx: { deadlineFired: boolean; deadlineMs: number; callerAborted: boolean },
  ): OutboundError {
    if (ctx.deadlineFired) {
      return err instanceof OutboundTimeoutError ? err : new OutboundTimeoutError('total', ctx.deadlineMs, { url, cause: err });
    }
    if (ctx.callerAborted) return new OutboundError('ABORTED', `request to ${url} was aborted by the caller`, { url, cause: err });
    if (err instanceof OutboundError && !(err instanceof BlockedAddressError)) {
      return err.url ? err : new OutboundError(err.code, `${err.message} (fetching ${url})`, { url, cause: err });
    }
    const blocked = findInCauses(err, BlockedAddressError);
    if (blocked) return blocked.url ? blocked : blocked.withUrl(url);
    if (err instanceof undiciErrors.ConnectTimeoutError) return new OutboundTimeoutError('connect', connectTimeoutMs, { url, cause: err });
    if (err instanceof undiciErrors.HeadersTimeoutError) return new OutboundTimeoutError('headers', headersTimeoutMs, { url, cause: err });
    if (err instanceof undiciErrors.BodyTimeoutError) return new OutboundTimeoutError('body', bodyTimeoutMs, { url, cause: err });
    const dns = findInCauses(err, OutboundError);
    if (dns) return new OutboundError(dns.code, `${dns.message} (fetching ${url})`, { url, cause: err });
    if (closed || err instanceof undiciErrors.ClientDestroyedError || err instanceof undiciErrors.ClientClosedError) {
      return new OutboundError('CLOSED', `HTTP client closed while fetching ${url}`, { url, cause: err });
    }
    const detail = err instanceof Error ? `${(err as NodeJS.ErrnoException).code ?? err.name}` : 'unknown error';
    return new OutboundError('NETWORK', `network error fetching ${url} (${detail})`, { url, cause: err });
  }

  function parseJson(res: OutboundResponse): JsonResponse {
    const ok = res.status >= 200 && res.status < 300;
    if (res.body.length === 0) return { ...res, json: undefined };
    try {
      return { ...res, json: JSON.parse(decodeText(res.body, res.headers['content-type'])) as unknown };
    } catch (err) {
      if (!ok) return { ...res, json: undefined };
      throw new OutboundError('INVALID_JSON', `response from ${res.url} (HTTP ${res.status}) is not valid JSON`, {
        url: res.url,
        cause: err,
      });
    }
  }

  return {
    userAgent,
    request,
    async getText(url, opts = {}) {
      const res = await request({ ...opts, url, method: 'GET' });
      return { ...res, text: decodeText(res.body, res.headers['content-type']) };
    },
    async getJson(url, opts = {}) {
      const res = await request({
        ...opts,
        url,
        method: 'GET',
        headers: { accept: 'application/json', ...opts.headers },
      });
      return parseJson(res);
    },
    async postJson(url, payload, opts = {}) {
      const res = await request({
        ...opts,
        url,
        method: 'POST',
        headers: { accept: 'application/json', ...opts.headers, 'content-type': 'application/json' },
        body: JSON.stringify(payload),
      });
      return parseJson(res);
    },
    async close() {
      if (closed) return;
      closed = true;
      await agent.destroy();
    },
  };
}
