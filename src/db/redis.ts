// The Redis connection every registry process shares for rate-limit counters. Redis is an
// optimisation of fairness, not a dependency of serving: commands fail at once while it is
// unreachable (no offline queue, short command timeout) so a caller can fail open without waiting.
import { Redis } from 'ioredis';
import type { Logger } from '../logger';

export interface RedisHandle {
  client: Redis;
  close(): Promise<void>;
}

/** Connects, waiting at most `readyWithinMs` for the first connection; a late Redis is used once it is up. */
export async function connectRedis(url: string, logger: Logger, readyWithinMs = 1000): Promise<RedisHandle> {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 250,
    connectTimeout: 1000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  let lastWarning = 0;
  client.on('error', (err: NodeJS.ErrnoException) => {
    // ioredis reports every failed reconnect; one line per 30 s is enough to see the outage.
    if (Date.now() - lastWarning < 30_000) return;
    lastWarning = Date.now();
    logger.warn({ err: { code: err.code, message: err.message } }, 'redis unavailable: rate limits are not enforced until it returns');
  });
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, readyWithinMs);
    client.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return {
    client,
    async close() {
      client.disconnect();
    },
  };
}
