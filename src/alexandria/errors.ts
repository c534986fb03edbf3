/**
 * Errors of the Alexandria domain. Each carries the facts a caller needs to explain itself to an agent
 * (which value was wrong, what is allowed) so transports never have to parse messages (STYLE habit 3).
 * Every message here is composed from caller input and constants only: safe to show to clients.
 */

/** Base class: anything an agent did wrong that it can fix by changing its request. */
export abstract class AlexandriaClientError extends Error {
  abstract readonly code: 'INVALID_ARGUMENT' | 'MALFORMED_RESOURCE_ID' | 'RESOURCE_NOT_FOUND';
}

/** A resource id that does not follow `arxiv:<id>`, `github:<owner>/<repo>` or `post:<host>/<slug>`. */
export class MalformedResourceIdError extends AlexandriaClientError {
  override readonly name = 'MalformedResourceIdError';
  readonly code = 'MALFORMED_RESOURCE_ID' as const;
  constructor(
    readonly id: string,
    readonly reason: string,
  ) {
    super(`malformed resource id ${JSON.stringify(truncateForMessage(id))}: ${reason}`);
  }
}

/** A well-formed id that the library does not hold. Never answered with a near match. */
export class ResourceNotFoundError extends AlexandriaClientError {
  override readonly name = 'ResourceNotFoundError';
  readonly code = 'RESOURCE_NOT_FOUND' as const;
  constructor(readonly id: string) {
    super(`resource not found: ${JSON.stringify(truncateForMessage(id))} is not in the Alexandria library`);
  }
}

/** A tool argument outside its allowed values; the message names the value and lists what is allowed. */
export class InvalidToolArgumentError extends AlexandriaClientError {
  override readonly name = 'InvalidToolArgumentError';
  readonly code = 'INVALID_ARGUMENT' as const;
  constructor(
    readonly argument: string,
    readonly value: unknown,
    readonly expectation: string,
  ) {
    super(`invalid ${argument} ${describeValue(value)}: ${expectation}`);
  }
}

/** The library file (or a record in it) does not satisfy schema v1. Raised at load time, never to agents. */
export class InvalidLibraryError extends Error {
  override readonly name = 'InvalidLibraryError';
  constructor(
    readonly problems: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(
      `invalid Alexandria library (${problems.length} problem${problems.length === 1 ? '' : 's'}): ` +
        problems.slice(0, 10).join('; ') +
        (problems.length > 10 ? `; ... ${problems.length - 10} more` : ''),
      options,
    );
  }
}

/** A catalog entry that is not the image of a valid v1 record under `recordToCatalogEntry`. */
export class CatalogEntryMappingError extends Error {
  override readonly name = 'CatalogEntryMappingError';
  constructor(
    readonly identifier: unknown,
    readonly problems: readonly string[],
  ) {
    super(`catalog entry ${JSON.stringify(identifier)} is not an Alexandria v1 record: ${problems.join('; ')}`);
  }
}

const MAX_ECHOED_CHARS = 200;

/** Caller-supplied values are echoed back, but bounded so an error cannot be used to amplify a payload. */
export function truncateForMessage(value: string): string {
  return value.length > MAX_ECHOED_CHARS ? `${value.slice(0, MAX_ECHOED_CHARS)}...` : value;
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(truncateForMessage(value));
  if (value === undefined) return '(missing)';
  try {
    return truncateForMessage(JSON.stringify(value) ?? String(value));
  } catch {
    return `(${typeof value})`;
  }
}
