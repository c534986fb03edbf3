// The match cache's bookkeeping (src/search/relevance/match-cache.ts): lists under the generation they were ranked at,
// a size limit counted in matches, frozen lists. What invalidates it in a database is test/integration/match-cache.test.ts.
import { MatchCache, type Match } from '../../src/search/relevance';

/** The kept list a lookup finds, or undefined. */
function kept(cache: MatchCache, key: string, generation: string): readonly Match[] | undefined {
  const found = cache.lookup(key, generation);
  return found && 'kept' in found ? found.kept : undefined;
}

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
    expect(kept(cache, key, '7')?.map((m) => m.identifier)).toEqual(['w0', 'w1', 'w2']);
    expect(kept(cache, key, '8')).toBeUndefined();
    expect(kept(cache, key, '7')).toBeUndefined();
    expect(cache.stats()).toMatchObject({ hits: 1, joined: 0, misses: 2, lists: 0, matches: 0 });
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
    expect(kept(cache, a, '1')).toBeDefined(); // a is now the more recent
    cache.set(c, '1', list(10, 'c'));
    expect(kept(cache, b, '1')).toBeUndefined();
    expect(kept(cache, a, '1')).toBeDefined();
    expect(kept(cache, c, '1')).toBeDefined();
    expect(cache.stats()).toMatchObject({ lists: 2, matches: 20 });
  });

  it('keeps the list frozen: no caller reorders or shortens what another request reads', () => {
    const cache = new MatchCache(100);
    const key = MatchCache.key('m', 't', []);
    cache.set(key, '1', list(2, 'x'));
    const shared = kept(cache, key, '1') as Match[];
    expect(() => shared.sort((a, b) => a.score - b.score)).toThrow(TypeError);
    expect(() => shared.pop()).toThrow(TypeError);
    expect(shared.map((m) => m.identifier)).toEqual(['x0', 'x1']);
  });

  it('shares a ranking in flight with lookups of the same key and generation, until it settles, failed or not', async () => {
    const cache = new MatchCache(100);
    const key = MatchCache.key('m', 't', []);
    let finish!: (list: Match[]) => void;
    const ranking = cache.ranking(key, '1', new Promise<Match[]>((resolve) => (finish = resolve)));
    const found = cache.lookup(key, '1');
    expect(found && 'ranking' in found ? found.ranking : undefined).toBe(ranking);
    expect(cache.lookup(key, '2')).toBeUndefined();
    expect(cache.rankingsInFlight).toBe(1);
    finish(list(1, 'r'));
    await ranking;
    await Promise.resolve();
    expect(cache.rankingsInFlight).toBe(0);
    expect(cache.lookup(key, '1')).toBeUndefined();
    const failing = cache.ranking(key, '1', Promise.reject(new Error('database gone')));
    await expect(failing).rejects.toThrow('database gone');
    await Promise.resolve();
    expect(cache.rankingsInFlight).toBe(0);
    expect(cache.stats()).toMatchObject({ joined: 1, misses: 2 });
  });
});
