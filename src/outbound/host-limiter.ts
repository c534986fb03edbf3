/**
 * Crawl politeness: per host, at most `maxConcurrentPerHost` tasks run at once and
 * two task starts are at least `minDelayMs` apart. Hosts are independent of each other.
 *
 * Kept in the registry's own code: no CommonJS library holds all of a per-host queue, a spacing
 * a host's robots.txt Crawl-delay raises at run time, and one queued task dropped when its
 * caller aborts. p-queue 10 is ESM-only and needs Node 22, and its interval is fixed per queue;
 * Bottleneck's Group comes closest but has no per-job abort and no release since 2.19.5.
 */

export interface HostLimiterOptions {
  /** Minimum spacing between the starts of two tasks on the same host. Default 1000 ms. */
  minDelayMs?: number;
  /** Tasks running at once on the same host. Default 1 (fully serialised). */
  maxConcurrentPerHost?: number;
}

export interface HostLimiter {
  /** Runs `task` when the host's turn comes; resolves or rejects with the task's outcome. */
  schedule<T>(host: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /**
   * Raises the spacing for one host above `minDelayMs` (robots.txt Crawl-delay, a
   * Retry-After). Never lowers it below the limiter's floor.
   */
  setHostDelay(host: string, delayMs: number): void;
  /** Tasks queued or running for `host`. */
  pending(host: string): number;
  /** Rejects every queued (not yet started) task and stops timers. */
  clear(reason?: unknown): void;
}

interface Waiter {
  start: () => void;
  cancel: (reason: unknown) => void;
}

interface HostState {
  queue: Waiter[];
  active: number;
  /** performance.now() of the last start: a monotonic clock, so a wall-clock step cannot shorten a host's delay. */
  lastStart: number;
  delayMs: number;
  timer: NodeJS.Timeout | undefined;
}

// Idle host entries are dropped once the map grows past this, so a crawl over millions
// of hosts does not keep one record per host forever.
const PRUNE_THRESHOLD = 10_000;

export class HostLimiterClearedError extends Error {
  override readonly name = 'HostLimiterClearedError';
}

export function createHostLimiter(options: HostLimiterOptions = {}): HostLimiter {
  const minDelayMs = options.minDelayMs ?? 1000;
  const maxConcurrent = options.maxConcurrentPerHost ?? 1;
  if (!(minDelayMs >= 0)) throw new TypeError('minDelayMs must be >= 0');
  if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) throw new TypeError('maxConcurrentPerHost must be an integer >= 1');
  const hosts = new Map<string, HostState>();

  const keyOf = (host: string): string => host.trim().toLowerCase().replace(/\.+$/, '');

  function stateOf(key: string): HostState {
    let state = hosts.get(key);
    if (!state) {
      if (hosts.size >= PRUNE_THRESHOLD) prune();
      state = { queue: [], active: 0, lastStart: -Infinity, delayMs: minDelayMs, timer: undefined };
      hosts.set(key, state);
    }
    return state;
  }

  function prune(): void {
    const now = performance.now();
    for (const [key, s] of hosts) {
      if (s.active === 0 && s.queue.length === 0 && now - s.lastStart >= s.delayMs) hosts.delete(key);
    }
  }

  function pump(state: HostState): void {
    if (state.timer) return;
    while (state.active < maxConcurrent && state.queue.length > 0) {
      const wait = state.lastStart + state.delayMs - performance.now();
      if (wait > 0) {
        state.timer = setTimeout(() => {
          state.timer = undefined;
          pump(state);
        }, wait);
        return;
      }
      const next = state.queue.shift()!;
      state.active++;
      state.lastStart = performance.now();
      next.start();
    }
  }

  return {
    schedule<T>(host: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      const state = stateOf(keyOf(host));
      return new Promise<T>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const onAbort = (): void => {
          const i = state.queue.indexOf(waiter);
          if (i >= 0) {
            state.queue.splice(i, 1);
            reject(signal?.reason);
          }
        };
        const waiter: Waiter = {
          start: () => {
            signal?.removeEventListener('abort', onAbort);
            let running: Promise<T>;
            try {
              running = Promise.resolve(task());
            } catch (err) {
              running = Promise.reject(err);
            }
            running.then(resolve, reject).finally(() => {
              state.active--;
              pump(state);
            });
          },
          cancel: (reason) => {
            signal?.removeEventListener('abort', onAbort);
            reject(reason);
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        state.queue.push(waiter);
        pump(state);
      });
    },
    setHostDelay(host, delayMs) {
      const state = stateOf(keyOf(host));
      state.delayMs = Math.max(minDelayMs, delayMs);
    },
    pending(host) {
      const state = hosts.get(keyOf(host));
      return state ? state.queue.length + state.active : 0;
    },
    clear(reason = new HostLimiterClearedError('host limiter cleared')) {
      for (const state of hosts.values()) {
        if (state.timer) clearTimeout(state.timer);
        state.timer = undefined;
        for (const waiter of state.queue.splice(0)) waiter.cancel(reason);
      }
    },
  };
}
