// Typed API errors carry their HTTP status and ARD error code (ARD Appendix B). One middleware
// maps them to {errorCode, message}; anything else becomes a 500 that leaks nothing.

export type ErrorCode =
  'INVALID_ARGUMENT' | 'UNAUTHENTICATED' | 'NOT_FOUND' | 'METHOD_NOT_ALLOWED' | 'RATE_LIMIT_EXCEEDED' | 'INTERNAL_ERROR' | 'UNAVAILABLE';

export abstract class ApiError extends Error {
  abstract readonly status: number;
  abstract readonly errorCode: ErrorCode;
  /** Response headers the error carries (e.g. Cache-Control of a 404 Retrieve). */
  readonly headers: Readonly<Record<string, string>>;
  constructor(message: string, options?: { cause?: unknown; headers?: Record<string, string> }) {
    super(message, options);
    this.name = new.target.name;
    this.headers = options?.headers ?? {};
  }
}

export class InvalidArgumentError extends ApiError {
  readonly status = 400;
  readonly errorCode = 'INVALID_ARGUMENT' as const;
}

export class UnauthenticatedError extends ApiError {
  readonly status = 401;
  readonly errorCode = 'UNAUTHENTICATED' as const;
}

export class NotFoundError extends ApiError {
  readonly status = 404;
  readonly errorCode = 'NOT_FOUND' as const;
}

export class MethodNotAllowedError extends ApiError {
  readonly status = 405;
  readonly errorCode = 'METHOD_NOT_ALLOWED' as const;
}

export class RateLimitError extends ApiError {
  readonly status = 429;
  readonly errorCode = 'RATE_LIMIT_EXCEEDED' as const;
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** A request body that is not JSON: 415, with the code of a client mistake (ARD Appendix B has no 415 code). */
export class UnsupportedMediaTypeError extends ApiError {
  readonly status = 415;
  readonly errorCode = 'INVALID_ARGUMENT' as const;
}

/** A request body larger than the registry accepts (MAX_BODY_BYTES). */
export class PayloadTooLargeError extends ApiError {
  readonly status = 413;
  readonly errorCode = 'INVALID_ARGUMENT' as const;
}

/** The database (or another dependency) cannot be reached right now; retrying later may work (Retry-After). */
export class ServiceUnavailableError extends ApiError {
  readonly status = 503;
  readonly errorCode = 'UNAVAILABLE' as const;
  constructor(
    message: string,
    readonly retryAfterSeconds = 5,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface ErrorBody {
  errorCode: string;
  message: string;
}

/** The default of an exhaustive switch: the type checker proves it unreachable; at run time it throws. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value ${JSON.stringify(value)}`);
}
