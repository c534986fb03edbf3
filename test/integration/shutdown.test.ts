// Graceful shutdown: stop() stops accepting, lets in-flight requests finish, then closes the database.
import type { QueryEmbedder } from '../../src/search/relevance';
import { startTestRegistry } from '../helpers/registry';

/** An embedder whose query embedding waits until the test releases it: a request held in flight. */
function gatedEmbedder() {
  let release!: () => void;
  let entered!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const started = new Promise<void>((resolve) => (entered = resolve));
  const unit = Array.from({ length: 512 }, (_, i) => (i === 0 ? 1 : 0));
  const embedder: QueryEmbedder = {
    id: 'use-lite-512',
    dimensions: 512,
    embed: async (texts) => texts.map(() => unit),
    embedOne: async () => {
      entered();
      await gate;
      return unit;
    },
  };
  return { embedder, release, started };
}

describe('graceful shutdown', () => {
  it('finishes an in-flight request after stop() is called, then refuses new connections', async () => {
    const { embedder, release, started } = gatedEmbedder();
    const registry = await startTestRegistry({ withDemoCorpus: false, context: { embedder } });
    try {
      const inFlight = registry.post('/search', { query: { text: 'weather' } });
      await started;
      let stopped = false;
      const stopping = registry.stop().then(() => {
        stopped = true;
      });
      // Give the server a turn to close its listener; the held request keeps it from finishing.
      await new Promise((resolve) => setImmediate(resolve));
      expect(stopped).toBe(false);
      await expect(fetch(`${registry.url}/healthz`)).rejects.toThrow();
      release();
      const res = await inFlight;
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ results: [] });
      await stopping;
      expect(stopped).toBe(true);
    } finally {
      release();
      await registry.close();
    }
  });
});
