// Rate limiting of reads (RATE_LIMIT_PER_MINUTE per client; 0 = off). A client is its IP address
// (IPv6: its /56), as seen through TRUST_PROXY hops. Counters live in Redis when REDIS_URL is set,
// so the limit holds across every registry process, else in this process.
// Redis down: the request is let through (fail open) with a logged warning. Availability of
// search matters more than exact fairness for the minutes Redis is away, and a 500 or a hang
// because a counter store is missing would turn a Redis outage into a registry outage.
import type { Redis } from 'ioredis';
import type { Request, RequestHandler } from 'express';
import { rateLimit, type Store } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import { RateLimitError } from '../errors';
import type { Logger } from '../logger';

export interface RateLimitOptions {
  perMinute: number;
  redis: Redis | null;
  logger: Logger;
  /** Requests never counted: health checks, metrics, authenticated admin routes, the portal's own API calls. */
  exempt?: (path: string, req: Request) => boolean;
}

const WINDOW_MS = 60_000;

export function createRateLimiter(options: RateLimitOptions): RequestHandler | null {
  if (options.perMinute <= 0) return null;
  let lastWarning = 0;
  const warn = (error: unknown) => {
    if (Date.now() - lastWarning < 30_000) return;
    lastWarning = Date.now();
    options.logger.warn({ err: error }, 'rate-limit store unavailable: allowing requests without a limit');
  };
  return rateLimit({
    windowMs: WINDOW_MS,
    limit: options.perMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    store: options.redis ? redisStore(options.redis) : undefined,
    passOnStoreError: true,
    logger: {
      error: warn,
      warn: (error: unknown, message?: string) => options.logger.warn({ err: error }, message ?? 'express-rate-limit warning'),
    },
    skip: (req) => options.exempt?.(req.path, req) ?? false,
    handler: (req, _res, next) => {
      const resetTime = (req as { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const retryAfter = Math.max(1, Math.ceil(((resetTime?.getTime() ?? Date.now() + WINDOW_MS) - Date.now()) / 1000));
      next(new RateLimitError(`rate limit of ${options.perMinute} requests per minute exceeded; retry in ${retryAfter} s`, retryAfter));
    },
  });
}

/**
 * Failed admin authentication per client: after `perMinute` 401s within a minute, every admin request of
 * that client is a 429 until the window ends, the right token included (else a guess that stops getting
 * 429 would be a found token). Requests that pass authentication are not counted. Same client key and
 * store (Redis when configured) as the read limit; a store outage fails open like it.
 */
export function createAdminAuthLimiter(options: { perMinute: number; redis: Redis | null; logger: Logger }): RequestHandler {
  return rateLimit({
    windowMs: WINDOW_MS,
    limit: options.perMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    store: options.redis ? redisStore(options.redis, 'ard:admin-auth:') : undefined,
    passOnStoreError: true,
    skipSuccessfulRequests: true,
    requestWasSuccessful: (_req, res) => res.statusCode !== 401,
    logger: {
      error: (error: unknown) => options.logger.warn({ err: error }, 'admin authentication limit store unavailable'),
      warn: () => undefined,
    },
    handler: (req, _res, next) => {
      const resetTime = (req as { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const retryAfter = Math.max(1, Math.ceil(((resetTime?.getTime() ?? Date.now() + WINDOW_MS) - Date.now()) / 1000));
      next(new RateLimitError(`too many failed admin authentications from this client; retry in ${retryAfter} s`, retryAfter));
    },
  });
}

function redisStore(client: Redis, prefix = 'ard:rl:'): Store {
  const store = new RedisStore({
    prefix,
    sendCommand: (command: string, ...args: string[]) => client.call(command, ...args) as Promise<string | number>,
  });
  // The store loads its Lua scripts at construction and reloads them on the next failure; while
  // Redis is down at start those first promises reject with nobody awaiting them yet.
  store.incrementScriptSha.catch(() => undefined);
  store.getScriptSha.catch(() => undefined);
  return store;
}
