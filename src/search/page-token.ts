// Opaque, signed page tokens. A token names the query it belongs to (a hash of the normalised
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
