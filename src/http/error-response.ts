// The one place errors become responses: {errorCode, message} with the status the ARD spec gives.
// Anything that is not an ApiError is a 500 whose message names the request id and nothing else.
import type { Logger } from '../logger';
import { ApiError, RateLimitError, type ErrorBody } from '../errors';

export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

export function toErrorResponse(error: unknown, requestId: string, logger: Logger): ErrorResponse {
  if (error instanceof ApiError) {
    if (error.status >= 500) logger.error({ err: error, requestId }, error.message);
    const headers: Record<string, string> = { ...error.headers };
    if (error instanceof RateLimitError) headers['Retry-After'] = String(error.retryAfterSeconds);
    return { status: error.status, body: { errorCode: error.errorCode, message: error.message }, headers };
  }
  if (isDatabaseUnavailable(error)) {
    logger.error({ err: error, requestId }, 'database unavailable');
    return {
      status: 503,
      body: { errorCode: 'UNAVAILABLE', message: `the registry's database is unavailable; retry later (request ${requestId})` },
      headers: { 'Retry-After': '5' },
    };
  }
  logger.error({ err: error, requestId }, 'unhandled error');
  return {
    status: 500,
    body: { errorCode: 'INTERNAL_ERROR', message: `internal error; quote request id ${requestId} when reporting it` },
    headers: {},
  };
}

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08000', '08003', '08006']);

const PG_CODELESS_UNAVAILABLE = /^(timeout exceeded when trying to connect|Connection terminated unexpectedly|Connection terminated due to connection timeout)/i;

/** pg connection failures carry a code (a node errno or SQLSTATE class 08/57P): never parse messages. */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
    // pg gives these two no code: a connect timeout, and a socket lost mid-query (database restart).
    if (current instanceof Error && current.name === 'Error' && PG_CODELESS_UNAVAILABLE.test(current.message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
