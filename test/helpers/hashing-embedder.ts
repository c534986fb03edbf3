// A deterministic, instant test embedder: each word hashed into one of `dimensions` buckets. Texts
// sharing words get similar vectors, so tests can check which model's vectors search reads.
import { createHash } from 'node:crypto';
import { normalise, withQueryCache, type Embedder } from '../../src/embedding/embedder';

export function hashingEmbedder(id: string, dimensions: number) {
  const inner: Embedder & { calls: number } = {
    id,
    dimensions,
    calls: 0,
    async embed(texts: string[]) {
      inner.calls += texts.length;
      return texts.map((text) => {
        const v = new Array<number>(dimensions).fill(0);
        for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? ['']) {
          v[createHash('sha1').update(word).digest().readUInt32BE(0) % dimensions] += 1;
        }
        v[0] += 1e-6;
        return normalise(v);
      });
    },
  };
  return Object.assign(withQueryCache(inner), { inner });
}
