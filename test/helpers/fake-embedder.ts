// A deterministic stand-in for the bundled embedder (same id and dimensions, so it reads the vectors
// of the demo-corpus template): unit vectors from a hash of the text, an optional delay per call to
// make requests slow on purpose, and no 250 MB model in the test process.
import { createHash } from 'node:crypto';
import { normalise } from '../../src/embedding/embedder';
import type { QueryEmbedder } from '../../src/search/relevance';

export function fakeEmbedder(options: { delayMs?: number } = {}): QueryEmbedder & { calls: number } {
  const vectorOf = (text: string) => {
    const out: number[] = [];
    for (let block = 0; out.length < 512; block++) {
      const digest = createHash('sha256').update(`${block}:${text}`).digest();
      for (let i = 0; i < digest.length && out.length < 512; i++) out.push(digest[i] - 127.5);
    }
    return normalise(out);
  };
  const pause = () => (options.delayMs ? new Promise((resolve) => setTimeout(resolve, options.delayMs)) : Promise.resolve());
  const embedder = {
    id: 'use-lite-512',
    dimensions: 512,
    calls: 0,
    async embed(texts: string[]) {
      embedder.calls++;
      await pause();
      return texts.map(vectorOf);
    },
    async embedOne(text: string) {
      embedder.calls++;
      await pause();
      return vectorOf(text);
    },
  };
  return embedder;
}
