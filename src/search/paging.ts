// Paging, shared by search (offset pages over the ranked list) and listing (keyset pages): the page size
// check and opaque, signed page tokens. A token names the query it belongs to (a hash of the normalised
// request), so a tampered token or one reused with another query is rejected with 400.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../catalog/catalog-entry';
import { InvalidArgumentError } from '../errors';

export interface PageTokenCodec {
  encode(payload: PagePayload): string;
  decode(token: string, queryKey: string): PagePayload;
}

export interface PagePayload {
  /** Hash of the request this token continues. */
  q: string;
  /** Offset into the ranked list. */
  o: number;
  /** Anything a caller needs to continue (e.g. peers' own tokens in federation). */
  x?: unknown;
}

export function queryKey(request: unknown): string {
  return createHash('sha256').update(canonicalJson(request)).digest('base64url').slice(0, 22);
}

export function createPageTokenCodec(secret: string): PageTokenCodec {
  const sign = (body: string) => createHmac('sha256', secret).update(body).digest('base64url').slice(0, 32);
  return {
    encode(payload) {
      const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
      return `${body}.${sign(body)}`;
    },
    decode(token, expectedQuery) {
      const invalid = (why: string) => new InvalidArgumentError(`pageToken is invalid: ${why}`);
      if (token.length > 16384) throw invalid('it is too long');
      const [body, signature, extra] = token.split('.');
      if (!body || !signature || extra !== undefined) throw invalid('it was not issued by this registry');
      const expected = sign(body);
      if (signature.length !== expected.length || !timingSafeEqual(Buffer.from(signature), Buffer.from(expected))) {
        throw invalid('it was not issued by this registry or was modified');
      }
      let payload: PagePayload;
      try {
        payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as PagePayload;
      } catch {
        throw invalid('it was not issued by this registry');
      }
      if (payload.q !== expectedQuery) {
        throw invalid('it belongs to a different query; send the same query, filter and pageSize as the first page');
      }
      if (!Number.isInteger(payload.o) || payload.o < 0) throw invalid('its offset is out of range');
      return payload;
    },
  };
}

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

/** pageSize or the default; 400 unless an integer from 1 to max. GET /agents passes its own bounds. */
export function checkPageSize(pageSize: number | undefined, bounds = { fallback: DEFAULT_PAGE_SIZE, max: MAX_PAGE_SIZE }): number {
  const size = pageSize ?? bounds.fallback;
  if (!Number.isInteger(size) || size < 1 || size > bounds.max) {
    throw new InvalidArgumentError(`pageSize must be an integer from 1 to ${bounds.max}; got ${pageSize}`);
  }
  return size;
}

/** A request's page: where it starts, and how the token of a later page is made. */
export interface PageRequest {
  /** The query key: every token of this request carries it. */
  key: string;
  /** The payload of the request's pageToken; null on the first page. */
  token: PagePayload | null;
  /** The token's offset; 0 on the first page. */
  offset: number;
  /** The token of the page starting at `offset`, carrying `state` (what the caller needs to continue). */
  next(offset: number, state?: unknown): string;
}

/**
 * The page a request asks for. `query` is everything that makes two requests the same query (an `op` naming
 * the operation, the normalised text, filter, order and the checked page size); a pageToken issued for
 * another query is refused.
 */
export function openPage(
  codec: PageTokenCodec,
  query: { op: string; pageSize: number } & Record<string, unknown>,
  pageToken: string | undefined,
): PageRequest {
  const key = queryKey(query);
  const token = pageToken ? codec.decode(pageToken, key) : null;
  return {
    key,
    token,
    offset: token?.o ?? 0,
    next: (offset, state) => codec.encode({ q: key, o: offset, ...(state === undefined ? {} : { x: state }) }),
  };
}
