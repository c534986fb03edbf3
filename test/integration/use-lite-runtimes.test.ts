import { EmbedderUnavailableError } from '../../src/embedding/embedder';
import { glossFor } from '../../src/catalog/product-glossary';
import { entryEmbeddingTexts } from '../../src/embedding/entry-texts';
import { UseLiteEmbedder } from '../../src/embedding/use-lite-embedder';
import { int8WeightType } from '../../src/embedding/int8-weights';
import { EmbedderClosedError, ONNX_RUNTIME_PACKAGE, requirePackage } from '../../src/embedding/use-lite-onnx';
import { WorkerTimeoutError } from '../../src/worker-thread';
import { loadCorpusEntries } from '../helpers/corpus';

// The bundled model on onnxruntime-node (the package's weights as an ONNX graph, src/embedding/use-lite-graph.ts)
// must give the vectors of the package's own TF.js graph: both share the model id 'use-lite-512', so vectors
// stored by one are compared with query vectors of the other. In float32 they agree to ~1e-6; in int8 (the
// default, decision 0048) to a cosine of 0.998 (the demo corpus: min 0.9985, median 0.9995; the test allows 0.997).
const corpusTexts = (() => {
  const entries = loadCorpusEntries();
  // Every 8th entry of the demo corpus and Alexandria: ~100 entries, both fields (names, descriptions, tags).
  return entries.filter((_, i) => i % 8 === 0).flatMap(({ entry }) => Object.values(entryEmbeddingTexts(entry, glossFor(entry))));
})();
const edgeTexts = [
  '',
  '   ',
  'a',
  '😀',
  'データベース 検索',
  'k8s kubernets deploymnt',
  // Past the graph's 128 tokens: both keep the first 128.
  'send a message to a slack channel and then '.repeat(30),
];

const maxDifference = (a: number[], b: number[]) => Math.max(...a.map((x, i) => Math.abs(x - b[i])));
const dot = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i], 0);

describe('the bundled model on onnxruntime-node', () => {
  const onnx = new UseLiteEmbedder({ runtime: 'onnxruntime' });
  const float32 = new UseLiteEmbedder({ runtime: 'onnxruntime', precision: 'float32' });
  const tfjs = new UseLiteEmbedder({ runtime: 'tfjs', thread: 'main' });
  afterAll(async () => {
    await onnx.close();
    await float32.close();
    await tfjs.close();
  });

  it('runs on the runtime it was asked for', async () => {
    expect(await onnx.runtime()).toBe('onnxruntime');
    expect(await tfjs.runtime()).toBe('tfjs');
  });

  it('in float32 gives the vectors of the TF.js graph, to 1e-5 per dimension; in int8 (the 8-bit form of the weights this CPU gets, and the uint8 form every CPU runs) within cosine 0.997', async () => {
    const texts = [...corpusTexts, ...edgeTexts];
    expect(corpusTexts.length).toBeGreaterThan(150);
    const [int8, a, b] = await Promise.all([onnx.embed(texts), float32.embed(texts), tfjs.embed(texts)]);
    expect(a).toHaveLength(texts.length);
    const worst = texts
      .map((text, i) => ({ text, difference: maxDifference(a[i], b[i]), cosine: dot(a[i], b[i]) }))
      .sort((x, y) => y.difference - x.difference)[0];
    expect(worst.difference).toBeLessThan(1e-5);
    expect(worst.cosine).toBeGreaterThan(0.99999);
    // int8 is not float32 computed another way: its vectors move (past 1e-3 in some dimension of most texts), but
    // stay close enough to be searched against float32 vectors stored before (and TF.js's).
    // The form of the weights this CPU gets (int8-weights.ts) and, on a CPU that gets int8 weights, the uint8 form as
    // well, which every CPU can run. int8 weights on an x64 CPU without VNNI go through onnxruntime's U8S8 kernels,
    // whose 16-bit sums saturate (decision 0048): that form is never chosen there, so it is not checked there.
    const forms = [int8];
    if (int8WeightType() === 'int8') {
      const unsigned = new UseLiteEmbedder({ runtime: 'onnxruntime', int8Weights: 'uint8' });
      forms.push(await unsigned.embed(texts).finally(() => unsigned.close()));
    }
    for (const vectors of forms) {
      const cosines = texts.map((_, i) => dot(vectors[i], b[i])).sort((x, y) => x - y);
      expect(cosines[0]).toBeGreaterThan(0.997);
      expect(cosines[Math.floor(cosines.length / 2)]).toBeGreaterThan(0.999);
      expect(texts.filter((_, i) => maxDifference(vectors[i], b[i]) > 1e-3).length).toBeGreaterThan(texts.length / 2);
    }
    for (const v of [...a, ...forms.flat()]) {
      expect(v).toHaveLength(512);
      expect(dot(v, v)).toBeCloseTo(1, 6);
    }
  }, 300_000); // Three models over ~200 texts: minutes when the 2 cores are shared.

  it('keeps only the first 128 tokens, as the TF.js graph does', async () => {
    const base = 'send a message to a slack channel and then '.repeat(30);
    const [long, longer] = await onnx.embed([base, `${base} query a postgres database about invoices`]);
    expect(long).toEqual(longer);
  });

  it("answers concurrent callers with their own vectors, a single text between a batch's sentences", async () => {
    const batchTexts = corpusTexts.slice(0, 40);
    const expected = await onnx.embed([...batchTexts, ...edgeTexts]);
    const finished: string[] = [];
    const batch = onnx.embed(batchTexts).then((v) => (finished.push('batch'), v));
    const singles = edgeTexts.map((t, i) => onnx.embed([t]).then((v) => (finished.push(`single ${i}`), v[0])));
    expect(await batch).toEqual(expected.slice(0, batchTexts.length));
    expect(await Promise.all(singles)).toEqual(expected.slice(batchTexts.length));
    // Turns are taken sentence by sentence: the single texts do not wait for the 40 of the batch.
    expect(finished.indexOf('batch')).toBe(finished.length - 1);
  });

  it('puts a single text (a query) ahead of the batches queued: it waits for the sentence in flight, not one of each batch', async () => {
    // onnxruntime-node with each run's token count recorded as the run starts.
    const runs: number[] = [];
    const loader = async (name: string) => {
      const ort = (await requirePackage(name)) as {
        Tensor: unknown;
        InferenceSession: {
          create(...args: unknown[]): Promise<{ run(feeds: { ids: { dims: number[] } }): Promise<unknown>; release(): Promise<void> }>;
        };
      };
      return {
        Tensor: ort.Tensor,
        InferenceSession: {
          create: async (...args: unknown[]) => {
            const session = await ort.InferenceSession.create(...args);
            return {
              run: (feeds: { ids: { dims: number[] } }) => (runs.push(feeds.ids.dims[0]), session.run(feeds)),
              release: () => session.release(),
            };
          },
        },
      };
    };
    // On the calling thread, where the loader's session is the one that runs (the order is the same on a worker).
    const counted = new UseLiteEmbedder({ runtime: 'onnxruntime', thread: 'main', loader });
    try {
      const [alone] = await counted.embed(['a']);
      expect(runs).toEqual([1]);
      const texts = corpusTexts.slice(0, 40);
      const expected = await onnx.embed(texts);
      runs.length = 0;
      const batches = [counted.embed(texts.slice(0, 20)), counted.embed(texts.slice(20))];
      // A failed expectation below closes the embedder under them: their rejections are this test's failure already.
      for (const batch of batches) batch.catch(() => undefined);
      while (runs.length < 3) await new Promise((resolve) => setImmediate(resolve));
      const queuedAt = runs.length;
      const single = counted.embed(['a']);
      expect((await single)[0]).toEqual(alone);
      // The run after the one in flight is the query's (1 token), not the other batch's next sentence.
      expect(runs[queuedAt]).toBe(1);
      expect([...(await batches[0]), ...(await batches[1])]).toEqual(expected);
    } finally {
      await counted.close();
    }
  });

  it('computes on a worker thread the vectors of the calling thread, exactly', async () => {
    const onThisThread = new UseLiteEmbedder({ runtime: 'onnxruntime', thread: 'main' });
    try {
      const texts = [...corpusTexts.slice(0, 30), ...edgeTexts];
      expect(await onnx.embed(texts)).toEqual(await onThisThread.embed(texts));
    } finally {
      await onThisThread.close();
    }
  });

  it('a sentence past EMBEDDING_ITEM_TIMEOUT_MS fails by name; the worker finishes it and answers the next', async () => {
    // 1 ms: a 128-token sentence takes ~12 ms of the worker's thread, a limit only work off the event loop can have.
    const limited = new UseLiteEmbedder({ runtime: 'onnxruntime', itemTimeoutMs: 1 });
    try {
      const long = edgeTexts.at(-1)!;
      const [expected, longVector] = await onnx.embed(['weather forecast', long]);
      // Eight at once: each waits in the worker behind the ones before it, so the last is answered ~90 ms after its
      // 1 ms limit, a margin that a busy machine's late timers do not eat (a single sentence's 11 ms can be).
      const attempts = await Promise.all(Array.from({ length: 8 }, () => limited.embed([long]).catch((error: Error) => error)));
      const last = attempts.at(-1);
      expect(last).toBeInstanceOf(WorkerTimeoutError);
      expect((last as Error).message).toBe('the USE-lite ONNX session did not finish within 1 ms');
      for (const attempt of attempts)
        if (attempt instanceof Error) expect(attempt).toBeInstanceOf(WorkerTimeoutError);
        else expect(attempt[0]).toEqual(longVector);
      // Past its limit too (1 ms), or answered if the worker caught up: never another sentence's vector.
      const next = await limited.embed(['weather forecast']).catch((error: Error) => error);
      if (next instanceof Error) expect(next).toBeInstanceOf(WorkerTimeoutError);
      else expect(next[0]).toEqual(expected);
    } finally {
      await limited.close();
    }
  });

  it('keeps the event loop turning while it embeds (the session runs on a worker thread)', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await onnx.embed(Array.from({ length: 64 }, (_, i) => `a longer text to embed, number ${i}, about tools`));
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(5);
  });

  it('close() fails the embeddings it cuts short by name, waits for the sentence in flight, and the next call loads again', async () => {
    const cut = onnx.embed(corpusTexts.slice(0, 40));
    const queued = onnx.embed(['weather forecast']);
    await onnx.close();
    await expect(cut).rejects.toBeInstanceOf(EmbedderClosedError);
    await expect(queued).rejects.toThrow('the USE-lite ONNX session was closed before this embedding finished');
    expect((await onnx.embed(['weather forecast']))[0]).toHaveLength(512);
  });

  it('loads again after close()', async () => {
    const [before] = await onnx.embed(['weather forecast']);
    await onnx.close();
    expect((await onnx.embed(['weather forecast']))[0]).toEqual(before);
  });
});

describe('choosing the runtime when onnxruntime-node cannot be loaded', () => {
  const missing = async (name: string) => {
    throw new Error(`Cannot find module '${name}'`);
  };

  it("'onnxruntime' fails, naming the package and the way out", async () => {
    const embedder = new UseLiteEmbedder({ runtime: 'onnxruntime', loader: missing });
    const attempt = embedder.embed(['hello']);
    await expect(attempt).rejects.toBeInstanceOf(EmbedderUnavailableError);
    await expect(attempt).rejects.toThrow(
      `the bundled model cannot run on ${ONNX_RUNTIME_PACKAGE}: Cannot find module '${ONNX_RUNTIME_PACKAGE}'`,
    );
    await expect(attempt).rejects.toThrow('EMBEDDING_RUNTIME=tfjs');
  });

  it("'auto' runs on TF.js and says why", async () => {
    const reasons: Error[] = [];
    const embedder = new UseLiteEmbedder({ runtime: 'auto', thread: 'main', loader: missing, onFallback: (error) => reasons.push(error) });
    const reference = new UseLiteEmbedder({ runtime: 'tfjs', thread: 'main' });
    try {
      expect(await embedder.runtime()).toBe('tfjs');
      expect(reasons).toHaveLength(1);
      expect(reasons[0]).toBeInstanceOf(EmbedderUnavailableError);
      expect(reasons[0].message).toContain(ONNX_RUNTIME_PACKAGE);
      expect(await embedder.embed(['weather forecast'])).toEqual(await reference.embed(['weather forecast']));
    } finally {
      await embedder.close();
      await reference.close();
    }
  });
});
