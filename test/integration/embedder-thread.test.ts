import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { UseLiteEmbedder } from '../../src/embedding/use-lite-embedder';

// On TF.js, the bundled model computes on a worker thread (src/embedding/use-lite-embedder.ts) so a query
// embedding does not stop the event loop; it must give exactly the vectors of the in-process model.
const texts = ['send a message to a slack channel', 'query a postgres database', 'kubernetes cluster management', ''];

describe('USE-lite on TF.js on a worker thread', () => {
  const worker = new UseLiteEmbedder({ runtime: 'tfjs' });
  const inProcess = new UseLiteEmbedder({ runtime: 'tfjs', thread: 'main' });
  afterAll(async () => {
    await worker.close();
    await inProcess.close();
  });

  it('gives the same vectors as the in-process model, in order', async () => {
    const [a, b] = await Promise.all([worker.embed(texts), inProcess.embed(texts)]);
    expect(a).toHaveLength(texts.length);
    expect(a).toEqual(b);
    expect(a[0]).toHaveLength(512);
  });

  it('answers concurrent single-text calls with their own vectors', async () => {
    const batch = await worker.embed(texts);
    const singles = await Promise.all(texts.map((t) => worker.embed([t])));
    expect(singles.map((s) => s[0])).toEqual(batch);
  });

  it('keeps the event loop turning while it embeds', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await worker.embed(Array.from({ length: 64 }, (_, i) => `a longer text to embed, number ${i}, about tools`));
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(5);
  });

  it('starts a new worker after close()', async () => {
    const before = await worker.embed(['weather']);
    await worker.close();
    expect(await worker.embed(['weather'])).toEqual(before);
  });

  it.each(['tfjs', 'onnxruntime'])(
    'on %s, never keeps a process alive on its own, and never lets it exit with an embedding pending',
    (runtime) => {
      const script = `
      const { UseLiteEmbedder } = require(${JSON.stringify(path.join(__dirname, '../../src/embedding/use-lite-embedder.ts'))});
      new UseLiteEmbedder({ runtime: '${runtime}' }).embed(['hello']).then((v) => console.log('dims', v[0].length));`;
      const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', timeout: 60_000 });
      expect(run.status).toBe(0);
      expect(run.stdout.trim()).toBe('dims 512');
    },
  );
});
