import { cacheableResponse, etagOfBody, ifNoneMatchHits } from '../../src/http/caching';
import type { HandlerRequest } from '../../src/http/handler';

const request = (ifNoneMatch?: string): HandlerRequest => ({
  body: undefined,
  query: {},
  params: {},
  headers: ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch },
  requestId: 'r',
  receivedAt: 0,
});

describe('HTTP caching helpers', () => {
  it('gives equal bodies equal strong ETags and different bodies different ones', () => {
    expect(etagOfBody({ a: 1 })).toBe(etagOfBody({ a: 1 }));
    expect(etagOfBody({ a: 1 })).not.toBe(etagOfBody({ a: 2 }));
    expect(etagOfBody({ a: 1 })).toMatch(/^"[A-Za-z0-9_-]+"$/);
  });

  it('If-None-Match: weak comparison, lists and * (RFC 9110 §13.1.2)', () => {
    expect(ifNoneMatchHits('"abc"', '"abc"')).toBe(true);
    expect(ifNoneMatchHits('W/"abc"', '"abc"')).toBe(true);
    expect(ifNoneMatchHits('"x", "abc"', '"abc"')).toBe(true);
    expect(ifNoneMatchHits('*', '"abc"')).toBe(true);
    expect(ifNoneMatchHits('"abcd"', '"abc"')).toBe(false);
    expect(ifNoneMatchHits(undefined, '"abc"')).toBe(false);
  });

  it('answers 304 without a body but with the validators, else 200 with them', () => {
    const body = { items: [] };
    const ok = cacheableResponse(request(), body);
    expect(ok).toEqual({ status: 200, body, headers: { ETag: etagOfBody(body), 'Cache-Control': expect.stringContaining('max-age') } });
    const notModified = cacheableResponse(request(ok.headers!.ETag), body);
    expect(notModified).toEqual({ status: 304, headers: ok.headers });
  });
});
