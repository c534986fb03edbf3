import { InvalidArgumentError } from '../../src/errors';
import { createPageTokenCodec, queryKey } from '../../src/search/paging';

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
    expect(rejection(() => codec.decode(`${forged}.${signature}`, key)).message).toBe('pageToken is invalid: it was not issued by this registry or was modified');
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
