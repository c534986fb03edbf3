// The match cache's bookkeeping (src/search/relevance/match-cache.ts): lists under the generation they were ranked at,
// a size limit counted in matches, frozen lists. What invalidates it in a database is test/integration/match-cache.test.ts.
import { MatchCache, type Match } from '../../src/search/relevance';

function list(n: number, prefix: string): Match[] {
  return Array.from({ length: n }, (_, i) => ({
    identifier: `${prefix}${i}`,
    relevance: 1 - i / 100,
    score: 100 - i,
    type: null,
    semantic: 0.5,
    lexical: 0.5,
    cosine: 0.6,
    topic: 0,
    agreement: 1,
  }));
}

describe('MatchCache', () => {
  it('answers a list only at the generation it was kept under, and drops it at another', () => {
    const cache = new MatchCache(100);
    const key = MatchCache.key('model', 'weather forecast', []);
    cache.set(key, '7', list(3, 'w'));
    expect(cache.get(key, '7')?.map((m) => m.identifier)).toEqual(['w0', 'w1', 'w2']);
    expect(cache.get(key, '8')).toBeUndefined();
    expect(cache.get(key, '7')).toBeUndefined();
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 2, lists: 0, matches: 0 });
  });

  it('keys by model, text and filter', () => {
    expect(MatchCache.key('a', 'text', [])).not.toBe(MatchCache.key('b', 'text', []));
    expect(MatchCache.key('a', 'text', [])).not.toBe(MatchCache.key('a', 'text ', []));
    expect(MatchCache.key('a', 'text', [])).not.toBe(MatchCache.key('a', 'text', [{ path: 'type', values: ['x'] }] as never));
  });

  it('holds at most its size in matches, dropping the least recently used list first', () => {
    const cache = new MatchCache(25);
    const [a, b, c] = ['a', 'b', 'c'].map((t) => MatchCache.key('m', t, []));
    cache.set(a, '1', list(10, 'a'));
    cache.set(b, '1', list(10, 'b'));
    expect(cache.get(a, '1')).toBeDefined(); // a is now the more recent
    cache.set(c, '1', list(10, 'c'));
    expect(cache.get(b, '1')).toBeUndefined();
    expect(cache.get(a, '1')).toBeDefined();
    expect(cache.get(c, '1')).toBeDefined();
    expect(cache.stats()).toMatchObject({ lists: 2, matches: 20 });
  });

  it('keeps the list frozen: no caller reorders or shortens what another request reads', () => {
    const cache = new MatchCache(100);
    const key = MatchCache.key('m', 't', []);
    cache.set(key, '1', list(2, 'x'));
    const kept = cache.get(key, '1') as Match[];
    expect(() => kept.sort((a, b) => a.score - b.score)).toThrow(TypeError);
    expect(() => kept.pop()).toThrow(TypeError);
    expect(kept.map((m) => m.identifier)).toEqual(['x0', 'x1']);
  });
});
