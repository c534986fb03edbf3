// The product key cache of the collapse (src/search/product-collapse.ts): keys computed once per content version,
// kept per index generation by identifier, each side bounded by its limit with the least recently used dropped.
import { ProductKeyCache } from '../../src/search/product-collapse';

const repositoryOf = (name: string) => ({ metadata: { repositoryUrl: `https://github.com/acme/${name}` } });

describe('ProductKeyCache', () => {
  it('computes the keys of a content version once, and again once the version was dropped as least recently used', () => {
    const cache = new ProductKeyCache(2);
    expect(cache.keysOf('h1', repositoryOf('one')).repository).toEqual({ base: 'github.com/acme/one' });
    // The same version: the keys read before, whatever fields come with it.
    expect(cache.keysOf('h1', repositoryOf('other')).repository).toEqual({ base: 'github.com/acme/one' });
    cache.keysOf('h2', repositoryOf('two'));
    cache.keysOf('h1', repositoryOf('other')); // h1 used last: h2 is the one dropped next
    cache.keysOf('h3', repositoryOf('three'));
    expect(cache.keysOf('h1', repositoryOf('other')).repository).toEqual({ base: 'github.com/acme/one' });
    expect(cache.keysOf('h2', repositoryOf('again')).repository).toEqual({ base: 'github.com/acme/again' });
  });

  it('keeps keys by identifier for one generation, at most its limit, and forgets them at another', () => {
    const cache = new ProductKeyCache(3);
    const keys = (name: string) => cache.keysOf(name, repositoryOf(name));
    for (const id of ['a', 'b', 'c']) cache.rememberAt('g1', id, keys(id));
    expect(cache.keysAt('g1', 'a')?.repository).toEqual({ base: 'github.com/acme/a' }); // a used last: b goes next
    cache.rememberAt('g1', 'd', keys('d'));
    expect(cache.keysAt('g1', 'b')).toBeUndefined();
    expect(['a', 'c', 'd'].map((id) => cache.keysAt('g1', id)?.repository?.base)).toEqual([
      'github.com/acme/a',
      'github.com/acme/c',
      'github.com/acme/d',
    ]);
    // Keys read at one generation are not served for another, and a list of another generation starts them anew.
    expect(cache.keysAt('g2', 'a')).toBeUndefined();
    cache.rememberAt('g2', 'e', keys('e'));
    expect(cache.keysAt('g1', 'a')).toBeUndefined();
    expect(cache.keysAt('g2', 'e')?.repository).toEqual({ base: 'github.com/acme/e' });
  });

  it('stays within its limit over many more entries than it holds', () => {
    const cache = new ProductKeyCache(100);
    for (let i = 0; i < 5000; i++) cache.rememberAt('g', `id${i}`, cache.keysOf(`h${i}`, repositoryOf(`r${i}`)));
    const kept = Array.from({ length: 5000 }, (_, i) => cache.keysAt('g', `id${i}`)).filter((k) => k !== undefined);
    expect(kept).toHaveLength(100);
    expect(cache.keysAt('g', 'id4999')?.repository).toEqual({ base: 'github.com/acme/r4999' });
    expect(cache.keysAt('g', 'id4899')).toBeUndefined();
  });
});
