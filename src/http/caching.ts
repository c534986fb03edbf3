// HTTP caching for the deterministic reads (GET /agents, GET /agents/{identifier}): a strong ETag
// and Cache-Control on every 200, and 304 Not Modified when If-None-Match names the current ETag.
import { createHash } from 'node:crypto';
import type { HandlerRequest, HandlerResponse } from './handler';

/** Short enough that a changed entry shows within a minute; revalidation is cheap (304). */
export const CACHE_CONTROL = 'public, max-age=60';

/** A 404 of Retrieve: fresh for 10 s at most, then revalidated (ARD v0.91 §5.3.4). */
export const NOT_FOUND_CACHE_CONTROL = 'public, max-age=10, must-revalidate';

/** A strong ETag from a hash the caller already has (e.g. the stored content hash). */
export function strongEtag(hash: string): string {
  return `"${hash}"`;
}

/** A strong ETag of a JSON body: the same bytes give the same tag. */
export function etagOfBody(body: unknown): string {
  return strongEtag(createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 32));
}

/**
 * RFC 9110 §13.1.2: If-None-Match uses the weak comparison (W/ ignored), `*` matches any current
 * representation, and the header may list several tags.
 */
export function ifNoneMatchHits(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const tags = (Array.isArray(header) ? header.join(',') : header).split(',').map(opaque).filter(Boolean);
  return tags.some((tag) => tag === '*' || tag === opaque(etag));
}

/** 200 with the body, or 304 without it when the client's copy is current; both carry the validators. */
export function cacheableResponse(request: HandlerRequest, body: unknown, etag: string = etagOfBody(body)): HandlerResponse {
  const headers = { ETag: etag, 'Cache-Control': CACHE_CONTROL };
  if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return { status: 304, headers };
  return { status: 200, body, headers };
}
