// One probe of one target, through src/outbound/ (timeouts, size caps, redirect cap, SSRF guard). The MCP
// handshake is given by the caller (src/mcp/liveness-probe.ts: the domain never imports the MCP SDK).
import { assertNever } from '../errors';
import { isOutboundError, type HttpClient, type OutboundError, type OutboundErrorCode } from '../outbound';
import type { ProbeFailureReason, ProbeOutcome } from './liveness-state';
import type { ProbeTarget } from './probe-target';

/** A failed probe with its reason; what an McpHandshake throws when the endpoint answers but not as MCP. */
export class ProbeFailedError extends Error {
  override readonly name = 'ProbeFailedError';
  constructor(
    readonly reason: ProbeFailureReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The MCP `initialize` handshake over Streamable HTTP with `url`, within `timeoutMs`; resolves with the
 * server's name and protocol version, throws a ProbeFailedError or an OutboundError.
 */
export type McpHandshake = (
  url: string,
  options: { timeoutMs: number; signal?: AbortSignal },
) => Promise<{ serverName: string; protocolVersion: string }>;

export interface ProbeDeps {
  http: HttpClient;
  mcpHandshake: McpHandshake;
  /** Deadline of one probe (LIVENESS_TIMEOUT_MS). */
  timeoutMs: number;
}

/** Bytes read of a URL probed for an answer: enough to see it is a response, not the document. */
export const URL_PROBE_MAX_BYTES = 64 * 1024;
/** An agent card is a few KiB; a larger one is refused as 'too-large'. */
export const A2A_CARD_MAX_BYTES = 256 * 1024;
/** The fields an A2A AgentCard must have (A2A specification, AgentCard). */
export const A2A_CARD_REQUIRED_FIELDS = [
  'name',
  'description',
  'url',
  'version',
  'capabilities',
  'defaultInputModes',
  'defaultOutputModes',
  'skills',
] as const;

export async function probe(
  target: Extract<ProbeTarget, { probe: 'mcp-initialize' | 'a2a-card' | 'url' }>,
  deps: ProbeDeps,
  signal?: AbortSignal,
): Promise<ProbeOutcome> {
  const start = performance.now();
  const elapsed = () => Math.round(performance.now() - start);
  try {
    const detail = await probeOnce(target, deps, signal);
    return { ok: true, latencyMs: elapsed(), detail };
  } catch (error) {
    if (signal?.aborted) throw error;
    return { ok: false, latencyMs: elapsed(), ...failureOf(error) };
  }
}

async function probeOnce(
  target: Extract<ProbeTarget, { probe: 'mcp-initialize' | 'a2a-card' | 'url' }>,
  deps: ProbeDeps,
  signal: AbortSignal | undefined,
): Promise<string> {
  switch (target.probe) {
    case 'mcp-initialize': {
      const server = await deps.mcpHandshake(target.url, { timeoutMs: deps.timeoutMs, signal });
      return `initialize answered by ${server.serverName} (MCP ${server.protocolVersion})`;
    }
    case 'a2a-card': {
      const res = await deps.http.getJson(target.url, { timeoutMs: deps.timeoutMs, maxBytes: A2A_CARD_MAX_BYTES, signal });
      if (res.status < 200 || res.status > 299) throw new ProbeFailedError('http-status', `the agent card answered HTTP ${res.status}`);
      const card = res.json;
      if (typeof card !== 'object' || card === null || Array.isArray(card))
        throw new ProbeFailedError('card-invalid-json', 'the agent card is not a JSON object');
      const missing = A2A_CARD_REQUIRED_FIELDS.filter((f) => (card as Record<string, unknown>)[f] === undefined);
      if (missing.length > 0) throw new ProbeFailedError('card-missing-fields', `the agent card lacks ${missing.join(', ')}`);
      return `agent card of ${String((card as Record<string, unknown>).name).slice(0, 200)} served`;
    }
    case 'url': {
      const res = await deps.http.request({
        url: target.url,
        method: 'GET',
        timeoutMs: deps.timeoutMs,
        maxBytes: URL_PROBE_MAX_BYTES,
        truncate: true,
        signal,
      });
      if (res.status < 200 || res.status > 299) throw new ProbeFailedError('http-status', `answered HTTP ${res.status}`);
      return `answered HTTP ${res.status}`;
    }
    default:
      return assertNever(target.probe);
  }
}

function failureOf(error: unknown): { reason: ProbeFailureReason; detail: string } {
  if (error instanceof ProbeFailedError) return { reason: error.reason, detail: error.message };
  const outbound = outboundErrorIn(error);
  if (outbound) return { reason: OUTBOUND_REASONS[outbound.code], detail: outbound.message };
  return { reason: 'network', detail: error instanceof Error ? error.message : String(error) };
}

/** The outbound error itself, or the one the MCP SDK's transport wrapped. */
function outboundErrorIn(error: unknown): OutboundError | null {
  if (isOutboundError(error)) return error;
  const cause = error instanceof Error ? error.cause : undefined;
  return isOutboundError(cause) ? cause : null;
}

const OUTBOUND_REASONS: Record<OutboundErrorCode, ProbeFailureReason> = {
  TIMEOUT: 'timeout',
  BODY_TOO_LARGE: 'too-large',
  TOO_MANY_REDIRECTS: 'too-many-redirects',
  REDIRECT_LOOP: 'too-many-redirects',
  BLOCKED_ADDRESS: 'blocked-address',
  BAD_SCHEME: 'invalid-url',
  INVALID_URL: 'invalid-url',
  NETWORK: 'network',
  INVALID_JSON: 'card-invalid-json',
  ABORTED: 'timeout',
  CLOSED: 'network',
};
