// The embedder interface: everything else sees only this, so an operator can plug another model.

export interface Embedder {
  /** Stable id of the model, stored with every vector (e.g. 'use-lite-512'). */
  readonly id: string;
  readonly dimensions: number;
  /** One vector per text, in order; unit length, so cosine similarity is a dot product. */
  embed(texts: string[]): Promise<number[][]>;
  /**
   * The share (0-1) of a text's characters, white space aside, that the model's vocabulary holds: an embedding of
   * characters the model cannot read is that of unknown tokens, alike for any such text, and ranking gives it that
   * much less weight (docs/relevance.md "Chinese, Japanese and Korean text"). Absent: the model reads every character.
   */
  readableShare?(text: string): number;
  close?(): Promise<void>;
}

/** The bundled model's runtime or an operator's model cannot be loaded (a missing package, a broken folder). */
export class EmbedderUnavailableError extends Error {
  override name = 'EmbedderUnavailableError';
}

/** A package import, replaceable in tests. */
export type ModuleLoader = (name: string) => Promise<unknown>;

export function normalise(vector: ArrayLike<number>): number[] {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i] * vector[i];
  norm = Math.sqrt(norm) || 1;
  return Array.from(vector, (v) => v / norm);
}

/**
 * Remembers recent query embeddings: orchestrators repeat queries (and page through them). A new text's
 * embedding is ~2 ms of a ~30-45 ms search at 10k entries (docs/performance.md), and it takes a core from the
 * statements beside it: a repeated text answers ~6 ms sooner.
 */
export function withQueryCache(embedder: Embedder, capacity = 1000): Embedder & { embedOne(text: string): Promise<number[]> } {
  const cache = new Map<string, number[]>();
  return {
    id: embedder.id,
    dimensions: embedder.dimensions,
    embed: (texts) => embedder.embed(texts),
    readableShare: embedder.readableShare?.bind(embedder),
    close: embedder.close?.bind(embedder),
    async embedOne(text: string) {
      const hit = cache.get(text);
      if (hit) {
        cache.delete(text);
        cache.set(text, hit);
        return hit;
      }
      const [vector] = await embedder.embed([text]);
      cache.set(text, vector);
      if (cache.size > capacity) cache.delete(cache.keys().next().value as string);
      return vector;
    },
  };
}
