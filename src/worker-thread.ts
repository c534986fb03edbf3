// A worker thread running one small CommonJS program that answers requests one at a time, with a time
// limit per request: past it the request fails with WorkerTimeoutError and the worker is terminated (the only
// way to stop synchronous work such as a tokenizer or a JSON parse); the next request starts a new worker. A
// worker whose work must not be cut (a native call: terminating onnxruntime-node mid-run aborts the process) is
// kept: its late answer is dropped and the next request waits behind it. Work that would hold the event loop for long (a publisher's 10 MB text) runs here.
// The worker holds the process open only while a request is pending, so a forgotten embedder never hangs
// exit and a script awaiting an embedding never exits early.
import { Worker } from 'node:worker_threads';

/** A request took longer than its time limit (EMBEDDING_ITEM_TIMEOUT_MS per text for the embedders). */
export class WorkerTimeoutError extends Error {
  override name = 'WorkerTimeoutError';
}

interface Pending {
  resolve(output: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * `source` is the worker's program: it reads `workerData`, listens for `{id, input}` and posts back
 * `{id, output}` or `{id, error}` (a string).
 */
export class ThreadWorker {
  private worker: Worker | null = null;
  private next = 1;
  private readonly pending = new Map<number, Pending>();
  /** Requests posted and not answered yet, abandoned ones included ('keep'): close() lets them finish. */
  private outstanding = 0;
  private drained: (() => void) | null = null;
  /** The next request is the first of a new worker: its limit also covers loading the program. */
  private fresh = false;

  constructor(
    private readonly source: string,
    private readonly workerData: Record<string, unknown>,
    private readonly name: string,
    /** Added to the time limit of a new worker's first request (loading a model or a package takes seconds on a busy machine). */
    private readonly startAllowanceMs = 60_000,
    /** 'keep': a request past its limit fails, the worker runs on (its work cannot be cut safely). */
    private readonly onTimeout: 'terminate' | 'keep' = 'terminate',
  ) {}

  private start(): Worker {
    this.fresh = true;
    const worker = new Worker(this.source, { eval: true, workerData: this.workerData });
    worker.on('message', (message: { id: number; output?: unknown; error?: string }) => {
      if (--this.outstanding === 0) this.drained?.();
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.settle(worker, message.id);
      if (message.error !== undefined) waiting.reject(new Error(`${this.name} failed: ${message.error}`));
      else waiting.resolve(message.output);
    });
    const fail = (error: Error) => {
      this.outstanding = 0;
      this.drained?.();
      if (this.worker !== worker) return;
      this.worker = null;
      this.failAll(error);
    };
    worker.on('error', (error) => fail(error));
    worker.on('exit', (code) => fail(new Error(`${this.name} worker exited with code ${code}`)));
    // After the listeners: adding a 'message' listener refs the worker again.
    worker.unref();
    return worker;
  }

  /** `transfer`: ArrayBuffers moved to the worker rather than copied (detached here). */
  request<T>(input: unknown, timeoutMs: number, transfer: ArrayBuffer[] = []): Promise<T> {
    const worker = (this.worker ??= this.start());
    const id = this.next++;
    const limit = timeoutMs + (this.fresh ? this.startAllowanceMs : 0);
    this.fresh = false;
    return new Promise<T>((resolve, reject) => {
      if (this.pending.size === 0) worker.ref();
      const timer = setTimeout(() => {
        const error = new WorkerTimeoutError(`${this.name} did not finish within ${limit} ms`);
        if (this.onTimeout === 'keep') {
          this.settle(worker, id);
          reject(error);
          return;
        }
        // Synchronous work cannot be interrupted: the worker goes, with what it held.
        if (this.worker === worker) this.worker = null;
        this.failAll(error);
        void worker.terminate();
      }, limit);
      timer.unref();
      this.pending.set(id, { resolve: resolve as (output: unknown) => void, reject, timer });
      this.outstanding++;
      worker.postMessage({ id, input }, transfer);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (!worker) return;
    if (this.onTimeout === 'keep' && this.outstanding > 0) {
      worker.ref();
      await new Promise<void>((resolve) => (this.drained = resolve));
    }
    await worker.terminate();
  }

  private settle(worker: Worker, id: number): void {
    clearTimeout(this.pending.get(id)?.timer);
    this.pending.delete(id);
    if (this.pending.size === 0) worker.unref();
  }

  private failAll(error: Error): void {
    for (const waiting of this.pending.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(error);
    }
    this.pending.clear();
  }
}
