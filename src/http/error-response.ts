// The one place errors become responses: {errorCode, message} with the status the ARD spec gives.
// A client error raised by express or its body parser (an http-errors 4xx: a body that is not encoded as its
// Content-Encoding says, a broken percent-escape in a path) keeps its status. Anything else that is not an
// ApiError is a 500 whose message names the request id and nothing else. Every 503 carries Retry-After.
import type { ErrorCode } from '../errors';
import type { Logger } from '../logger';
import { ApiError, RateLimitError, ServiceUnavailableError, type ErrorBody } from '../errors';
import { storableText } from '../storable-text';

export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

export function toErrorResponse(error: unknown, requestId: string, logger: Logger): ErrorResponse {
  if (error instanceof ApiError) {
    if (error.status >= 500) logger.error({ err: error, requestId }, error.message);
    const headers: Record<string, string> = { ...error.headers };
    if (error instanceof RateLimitError || error instanceof ServiceUnavailableError)
      headers['Retry-After'] = String(error.retryAfterSeconds);
    else if (error.status === 503) headers['Retry-After'] = '5';
    return { status: error.status, body: { errorCode: error.errorCode, message: error.message }, headers };
  }
  const client = clientError(error);
  if (client) return client;
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

const CLIENT_ERROR_CODES: Record<number, ErrorCode> = {
  401: 'UNAUTHENTICATED',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  429: 'RATE_LIMIT_EXCEEDED',
};

/** The messages of express's and body-parser's client errors, by their `type` or cause, said for a client. */
function clientErrorMessage(error: { type?: unknown; code?: unknown; message?: unknown; expose?: unknown }, status: number): string {
  if (error instanceof URIError) return 'the request path is not valid UTF-8 percent-encoding';
  // zlib's codes (Z_DATA_ERROR) and brotli's (ERR__ERROR_FORMAT_PADDING_2): the body is not what its Content-Encoding says.
  if (typeof error.code === 'string' && /^(Z_|ERR__)/.test(error.code))
    return 'the request body is not encoded as its Content-Encoding says';
  switch (error.type) {
    case 'encoding.unsupported':
      return 'the request body has a Content-Encoding the registry does not read (gzip, deflate and br are read)';
    case 'request.aborted':
      return 'the request body ended before its announced length';
    case 'request.size.invalid':
      return 'the request body is not as long as its Content-Length says';
    case 'parameters.too.many':
      return 'the request has too many parameters';
    default:
      break;
  }
  const message = error.expose === true && typeof error.message === 'string' ? storableText(error.message.slice(0, 200)) : '';
  return message || `the request was refused (HTTP ${status})`;
}

/** An http-errors client error (4xx, `expose`), as express, its router and body-parser raise them. */
function clientError(error: unknown): ErrorResponse | null {
  if (!error || typeof error !== 'object') return null;
  const e = error as { status?: unknown; statusCode?: unknown; type?: unknown; code?: unknown; message?: unknown; expose?: unknown };
  const status = typeof e.status === 'number' ? e.status : e.statusCode;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 499) return null;
  return {
    status,
    body: { errorCode: CLIENT_ERROR_CODES[status] ?? 'INVALID_ARGUMENT', message: clientErrorMessage(e, status) },
    headers: {},
  };
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08003',
  '08006',
]);

const PG_CODELESS_UNAVAILABLE =
  /^(timeout exceeded when trying to connect|Connection terminated unexpectedly|Connection terminated due to connection timeout)/i;

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
