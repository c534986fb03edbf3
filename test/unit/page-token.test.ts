import { InvalidArgumentError } from '../../src/errors';
import { checkPageSize, createPageTokenCodec, MAX_PAGE_SIZE, openPage, queryKey } from '../../src/search/paging';

const codec = createPageTokenCodec('test-secret');
const key = queryKey({ op: 'search', text: 'weather', filter: [], pageSize: 10 });

function rejection(fn: () => unknown): InvalidArgumentError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidArgumentError);
    return error as InvalidArgumentError;
  }
  throw new Error('expected a rejection');
}

describe('page tokens (ARD §7.2 pageToken)', () => {
  it('round-trips the payload', () => {
    const token = codec.encode({ q: key, o: 20, x: { peer: 'abc' } });
    expect(codec.decode(token, key)).toEqual({ q: key, o: 20, x: { peer: 'abc' } });
  });

  it('gives the same key for the same request whatever the key order, and another key for another request', () => {
    expect(queryKey({ a: 1, b: { c: 2, d: 3 } })).toBe(queryKey({ b: { d: 3, c: 2 }, a: 1 }));
    expect(queryKey({ text: 'weather' })).not.toBe(queryKey({ text: 'weather!' }));
  });

  it('rejects a token with a changed body', () => {
    const token = codec.encode({ q: key, o: 10 });
    const [body, signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ q: key, o: 0 })).toString('base64url');
    expect(forged).not.toBe(body);
    expect(rejection(() => codec.decode(`${forged}.${signature}`, key)).message).toBe(
      'pageToken is invalid: it was not issued by this registry or was modified',
    );
  });

  it('rejects a token signed with another secret', () => {
    const other = createPageTokenCodec('another-secret').encode({ q: key, o: 10 });
    expect(rejection(() => codec.decode(other, key)).message).toMatch(/not issued by this registry or was modified/);
  });

  it('rejects a token reused with another query', () => {
    const token = codec.encode({ q: key, o: 10 });
    const otherKey = queryKey({ op: 'search', text: 'stocks', filter: [], pageSize: 10 });
    expect(rejection(() => codec.decode(token, otherKey)).message).toMatch(/belongs to a different query/);
  });

  it.each(['', 'garbage', 'a.b.c', '.', 'x'.repeat(9000)])('rejects garbage %#', (token) => {
    expect(rejection(() => codec.decode(token, key)).message).toMatch(/^pageToken is invalid: /);
  });

  it('rejects a correctly signed token with a bad offset', () => {
    const token = codec.encode({ q: key, o: -3 });
    expect(rejection(() => codec.decode(token, key)).message).toMatch(/offset is out of range/);
  });
});

describe('openPage (search and listing pages)', () => {
  const query = { op: 'search', text: 'weather', filter: [], pageSize: 10 };

  it('opens the first page at 0 and continues where the token of a later page says, with its state', () => {
    const first = openPage(codec, query, undefined);
    expect([first.key, first.token, first.offset]).toEqual([key, null, 0]);
    const plain = first.next(10);
    expect(codec.decode(plain, key)).toEqual({ q: key, o: 10 });
    const later = openPage(codec, query, first.next(20, { p: ['peer'] }));
    expect([later.offset, later.token?.x]).toEqual([20, { p: ['peer'] }]);
  });

  it('refuses a token of another query: another text, operation or page size', () => {
    const token = openPage(codec, query, undefined).next(10);
    for (const other of [
      { ...query, text: 'rain' },
      { ...query, op: 'search-auto' },
      { ...query, pageSize: 20 },
    ]) {
      expect(rejection(() => openPage(codec, other, token)).message).toMatch(/belongs to a different query/);
    }
  });

  it('checks the page size against the bounds it is given', () => {
    expect(checkPageSize(undefined)).toBe(10);
    expect(checkPageSize(undefined, { fallback: 20, max: 100 })).toBe(20);
    expect(rejection(() => checkPageSize(MAX_PAGE_SIZE + 1)).message).toBe(
      `pageSize must be an integer from 1 to ${MAX_PAGE_SIZE}; got ${MAX_PAGE_SIZE + 1}`,
    );
    expect(rejection(() => checkPageSize(2.5)).message).toMatch(/got 2.5/);
  });
});
