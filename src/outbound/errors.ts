/**
 * Typed errors of the outbound HTTP module. Callers branch on `code` (or on the
 * subclass), never on the message. Every error names the URL it concerns and keeps
 * the underlying error as `cause`.
 */

export type OutboundErrorCode =
  | 'TIMEOUT'
  | 'BODY_TOO_LARGE'
  | 'TOO_MANY_REDIRECTS'
  | 'REDIRECT_LOOP'
  | 'BLOCKED_ADDRESS'
  | 'BAD_SCHEME'
  | 'NETWORK'
  | 'INVALID_URL'
  | 'INVALID_JSON'
  | 'ABORTED'
  | 'CLOSED';

export interface OutboundErrorInit {
  /** The URL being fetched when the error happened (the hop, for redirects). Empty when unknown. */
  url?: string;
  cause?: unknown;
}

export class OutboundError extends Error {
  override readonly name: string = 'OutboundError';
  readonly code: OutboundErrorCode;
  readonly url: string;

  constructor(code: OutboundErrorCode, message: string, init: OutboundErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = code;
    this.url = init.url ?? '';
  }
}

/** Which limit ran out: connecting (DNS included), waiting for headers, a silent body, or the overall deadline. */
export type TimeoutPhase = 'connect' | 'headers' | 'body' | 'total';

export class OutboundTimeoutError extends OutboundError {
  override readonly name = 'OutboundTimeoutError';
  readonly phase: TimeoutPhase;
  readonly timeoutMs: number;

  constructor(phase: TimeoutPhase, timeoutMs: number, init: OutboundErrorInit & { url: string }) {
    super('TIMEOUT', `${phaseText(phase)} timed out after ${timeoutMs} ms for ${init.url}`, init);
    this.phase = phase;
    this.timeoutMs = timeoutMs;
  }
}

function phaseText(phase: TimeoutPhase): string {
  switch (phase) {
    case 'connect':
      return 'connecting (DNS + TCP/TLS)';
    case 'headers':
      return 'waiting for response headers';
    case 'body':
      return 'waiting for more of the response body';
    case 'total':
      return 'the request (overall deadline)';
    default: {
      const unreachable: never = phase;
      return String(unreachable);
    }
  }
}

export class BodyTooLargeError extends OutboundError {
  override readonly name = 'BodyTooLargeError';
  readonly limitBytes: number;
  /** Bytes announced by Content-Length, or bytes received when the cap was crossed. */
  readonly observedBytes: number;
  readonly announced: boolean;

  constructor(limitBytes: number, observedBytes: number, announced: boolean, init: OutboundErrorInit & { url: string }) {
    super(
      'BODY_TOO_LARGE',
      announced
        ? `response from ${init.url} announces ${observedBytes} bytes (Content-Length), over the ${limitBytes}-byte cap`
        : `response body from ${init.url} exceeded the ${limitBytes}-byte cap; download aborted`,
      init,
    );
    this.limitBytes = limitBytes;
    this.observedBytes = observedBytes;
    this.announced = announced;
  }
}

/** Why an address is refused; see address-policy.ts for the ranges behind each reason. */
export type BlockReason =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unspecified'
  | 'cgnat'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'reserved'
  | 'local-hostname';

export class BlockedAddressError extends OutboundError {
  override readonly name = 'BlockedAddressError';
  readonly hostname: string;
  /** The IP refused; empty when the hostname itself was refused before DNS (e.g. `localhost`). */
  readonly address: string;
  readonly reason: BlockReason;

  constructor(hostname: string, address: string, reason: BlockReason, init: OutboundErrorInit = {}) {
    const what = address && address !== hostname ? `${hostname} resolves to ${address}` : hostname;
    super(
      'BLOCKED_ADDRESS',
      `refusing to connect: ${what} is a ${reason} address${init.url ? ` (fetching ${init.url})` : ''}; ` +
        'set allowPrivateAddresses (CRAWL_ALLOW_PRIVATE=true) to permit it',
      init,
    );
    this.hostname = hostname;
    this.address = address;
    this.reason = reason;
  }

  /** The same refusal, attached to the URL being fetched (the DNS hook does not know it). */
  withUrl(url: string): BlockedAddressError {
    return new BlockedAddressError(this.hostname, this.address, this.reason, { url, cause: this.cause });
  }
}

export function isOutboundError(err: unknown): err is OutboundError {
  return err instanceof OutboundError;
}
