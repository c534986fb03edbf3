import { createHostLimiter, HostLimiterClearedError } from '../../src/outbound';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('createHostLimiter', () => {
  it('spaces task starts on one host by minDelayMs', async () => {
    const limiter = createHostLimiter({ minDelayMs: 100, maxConcurrentPerHost: 1 });
    const starts: number[] = [];
    const t0 = performance.now();
    await Promise.all(
      [1, 2, 3, 4].map(() =>
        limiter.schedule('example.com', async () => {
          starts.push(performance.now() - t0);
        }),
      ),
    );
    expect(starts).toHaveLength(4);
    expect(starts[0]).toBeLessThan(50);
    for (let i = 1; i < starts.length; i++) {
      // setTimeout may fire a millisecond early relative to performance.now().
      expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(98);
    }
  });

  it('serialises tasks on one host when maxConcurrentPerHost is 1', async () => {
    const limiter = createHostLimiter({ minDelayMs: 0, maxConcurrentPerHost: 1 });
    let running = 0;
    let peak = 0;
    const task = async (): Promise<void> => {
      running++;
      peak = Math.max(peak, running);
      await sleep(20);
      running--;
    };
    await Promise.all([task, task, task].map((t) => limiter.schedule('a.example', t)));
    expect(peak).toBe(1);
  });

  it('allows up to maxConcurrentPerHost tasks at once', async () => {
    const limiter = createHostLimiter({ minDelayMs: 0, maxConcurrentPerHost: 2 });
    let running = 0;
    let peak = 0;
    const task = async (): Promise<void> => {
      running++;
      peak = Math.max(peak, running);
      await sleep(30);
      running--;
    };
    await Promise.all(Array.from({ length: 5 }, () => limiter.schedule('a.example', task)));
    expect(peak).toBe(2);
  });

  it('keeps hosts independent, and treats host names case-insensitively', async () => {
    const limiter = createHostLimiter({ minDelayMs: 200 });
    const t0 = performance.now();
    const starts: Record<string, number[]> = { a: [], b: [] };
    await Promise.all([
      limiter.schedule('A.example', async () => starts.a!.push(performance.now() - t0)),
      limiter.schedule('b.example', async () => starts.b!.push(performance.now() - t0)),
      limiter.schedule('a.example', async () => starts.a!.push(performance.now() - t0)),
    ]);
    expect(starts.b![0]).toBeLessThan(50);
    expect(starts.a![1]! - starts.a![0]!).toBeGreaterThanOrEqual(198);
  });

  it('passes results and errors through, and keeps going after a failure', async () => {
    const limiter = createHostLimiter({ minDelayMs: 0 });
    const failing = limiter.schedule('h.example', async () => {
      throw new RangeError('boom');
    });
    const ok = limiter.schedule('h.example', async () => 42);
    const syncThrow = limiter.schedule('h.example', () => {
      throw new TypeError('sync');
    });
    await expect(failing).rejects.toBeInstanceOf(RangeError);
    await expect(ok).resolves.toBe(42);
    await expect(syncThrow).rejects.toBeInstanceOf(TypeError);
    expect(limiter.pending('h.example')).toBe(0);
  });

  it('honours a per-host delay raised by setHostDelay (robots Crawl-delay)', async () => {
    const limiter = createHostLimiter({ minDelayMs: 10 });
    limiter.setHostDelay('slow.example', 150);
    limiter.setHostDelay('fast.example', 1); // cannot go below the floor
    const t0 = performance.now();
    const starts: number[] = [];
    await Promise.all([1, 2].map(() => limiter.schedule('slow.example', async () => starts.push(performance.now() - t0))));
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(148);
    const fast: number[] = [];
    await Promise.all([1, 2].map(() => limiter.schedule('fast.example', async () => fast.push(performance.now()))));
    expect(fast[1]! - fast[0]!).toBeGreaterThanOrEqual(9);
  });

  it('removes a queued task when its signal aborts', async () => {
    const limiter = createHostLimiter({ minDelayMs: 0 });
    let release!: () => void;
    const first = limiter.schedule('q.example', () => new Promise<void>((resolve) => (release = resolve)));
    const controller = new AbortController();
    let ran = false;
    const second = limiter.schedule(
      'q.example',
      async () => {
        ran = true;
      },
      controller.signal,
    );
    expect(limiter.pending('q.example')).toBe(2);
    controller.abort(new Error('crawl cancelled'));
    await expect(second).rejects.toThrow('crawl cancelled');
    expect(limiter.pending('q.example')).toBe(1);
    release();
    await first;
    expect(ran).toBe(false);
  });

  it('clear() rejects queued tasks and leaves no timer behind', async () => {
    const limiter = createHostLimiter({ minDelayMs: 10_000 });
    const first = limiter.schedule('c.example', async () => 'first');
    const queued = limiter.schedule('c.example', async () => 'never');
    await expect(first).resolves.toBe('first');
    limiter.clear();
    await expect(queued).rejects.toBeInstanceOf(HostLimiterClearedError);
  });

  it('validates its options', () => {
    expect(() => createHostLimiter({ maxConcurrentPerHost: 0 })).toThrow(TypeError);
    expect(() => createHostLimiter({ minDelayMs: -1 })).toThrow(TypeError);
  });
});
