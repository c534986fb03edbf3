// The MCP handshake of a liveness probe (src/liveness/, docs/liveness.md): the SDK's client sends
// `initialize` over Streamable HTTP, and every request it makes goes through the registry's outbound
// client (src/outbound: deadline, body cap, redirect cap, SSRF guard) by way of a fetch adapter.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ProbeFailedError, type McpHandshake } from '../liveness';
import { isOutboundError, type HttpClient, type HttpMethod } from '../outbound';
import { REGISTRY_VERSION } from '../version';

/** An MCP `initialize` result is a few KiB; a larger answer is refused ('too-large'). */
export const MCP_HANDSHAKE_MAX_BYTES = 256 * 1024;

/** Statuses whose Response carries no body (the Fetch standard refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * `fetch` for the SDK's transport over the outbound client. A GET (the standalone SSE stream the client opens
 * once initialised) is answered 405 without a request: the probe needs the handshake only, and that stream
 * would stay open until the deadline.
 */
export function outboundFetch(http: HttpClient, options: { timeoutMs: number; signal?: AbortSignal }): FetchLike {
  return async (url, init) => {
    const method = (init?.method ?? 'GET').toUpperCase() as HttpMethod;
    if (method === 'GET') return new Response(null, { status: 405 });
    const signals = [options.signal, init?.signal ?? undefined].filter((s): s is AbortSignal => s !== undefined);
    const res = await http.request({
      url: String(url),
      method,
      headers: headersRecord(new Headers(init?.headers)),
      body: typeof init?.body === 'string' ? init.body : undefined,
      timeoutMs: options.timeoutMs,
      maxBytes: MCP_HANDSHAKE_MAX_BYTES,
      signal: signals.length > 0 ? AbortSignal.any(signals) : undefined,
    });
    const body = NULL_BODY_STATUSES.has(res.status) ? null : new Uint8Array(res.body);
    return new Response(body, { status: res.status, headers: res.headers });
  };
}

function headersRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

/** The handshake the liveness probes use, over `http`. */
export function mcpLivenessHandshake(http: HttpClient): McpHandshake {
  return async (url, { timeoutMs, signal }) => {
    const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: outboundFetch(http, { timeoutMs, signal }) });
    const client = new Client({ name: 'ard-registry-liveness', version: REGISTRY_VERSION });
    try {
      await client.connect(transport, { timeout: timeoutMs, signal });
      const server = client.getServerVersion();
      return { serverName: server?.name ?? 'unnamed server', protocolVersion: transport.protocolVersion ?? 'unknown' };
    } catch (error) {
      if (isOutboundError(error) || signal?.aborted) throw error;
      const message = error instanceof Error ? error.message : String(error);
      // The client's own deadline can fire just before the outbound one: the same timeout.
      if (error instanceof McpError && error.code === Number(ErrorCode.RequestTimeout))
        throw new ProbeFailedError('timeout', `initialize timed out after ${timeoutMs} ms`, { cause: error });
      if (error instanceof StreamableHTTPError && typeof error.code === 'number' && error.code >= 300)
        throw new ProbeFailedError('http-status', `initialize answered HTTP ${error.code}`, { cause: error });
      throw new ProbeFailedError('mcp-handshake-failed', `initialize failed: ${message.slice(0, 300)}`, { cause: error });
    } finally {
      await client.close().catch(() => undefined);
    }
  };
}
