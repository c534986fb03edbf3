// A background job run every `pollMs` (the first time one `pollMs` after start; 0 disables the timer), one
// run at a time, stopped by aborting its signal: the trust and liveness upkeeps run this way.
import { setMaxListeners } from 'node:events';
import type { Logger } from './logger';

export interface PeriodicTask<T> {
  /** Runs the job now (or joins the run under way); null when it failed. */
  tick(): Promise<T | null>;
  /** Aborts the job's signal, stops the timer and waits for the run under way. */
  stop(): Promise<void>;
}

export function startPeriodicTask<T>(
  job: (signal: AbortSignal) => Promise<T>,
  pollMs: number,
  log: { logger?: Logger; done: (result: T, logger: Logger) => void; failed: string },
): PeriodicTask<T> {
  const abort = new AbortController();
  // Every queued and running request of a run listens for the stop: far more than the default warning's 10.
  setMaxListeners(0, abort.signal);
  let running: Promise<T | null> | null = null;
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    running ??= job(abort.signal)
      .then((result) => {
        if (log.logger) log.done(result, log.logger);
        return result;
      })
      .catch((error: unknown) => {
        if (!abort.signal.aborted) log.logger?.warn({ err: error }, log.failed);
        return null;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };
  const schedule = () => {
    if (pollMs <= 0 || abort.signal.aborted) return;
    timer = setTimeout(() => {
      void tick().then(schedule);
    }, pollMs);
    timer.unref();
  };
  schedule();
  return {
    tick,
    async stop() {
      abort.abort(new Error('registry stopping'));
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
