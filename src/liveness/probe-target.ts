// What to probe for an entry, read only from what the entry states (docs/liveness.md "What is probed"):
// an MCP server's remote endpoint (an inline server card's `remotes`, else the catalog's
// `metadata.remoteUrl`), an A2A agent's card (`url`), any other entry's `url`. Nothing is guessed: an MCP
// server with no remote is stdio-only, and an entry with no URL has no remote endpoint.
import { MEDIA_TYPES, type CatalogEntry } from '../catalog/catalog-entry';
import type { NoProbeReason, ProbeKind } from './liveness-state';

export type ProbeTarget =
  { probe: Exclude<ProbeKind, 'none'>; url: string } | { probe: 'none'; url: string | null; reason: NoProbeReason; detail: string };

/** MCP transports a probe speaks: Streamable HTTP (the MCP registry's `streamable-http`, Claude's `http`). */
const STREAMABLE_HTTP = new Set(['streamable-http', 'http']);

export function probeTargetOf(entry: CatalogEntry): ProbeTarget {
  if (entry.type === MEDIA_TYPES.mcpServer) return mcpTarget(entry);
  if (entry.type === MEDIA_TYPES.a2aAgent) {
    const url = httpUrl(entry.url);
    if (url) return { probe: 'a2a-card', url };
    // An inline card: what answers is the agent's own endpoint.
    const endpoint = httpUrl(entry.data?.url);
    if (endpoint) return { probe: 'url', url: endpoint };
    return none(null, 'no-url', 'the agent card is inline and names no endpoint URL');
  }
  const url = httpUrl(entry.url);
  return url ? { probe: 'url', url } : none(null, 'no-url', 'the entry has no URL (its content is inline)');
}

function mcpTarget(entry: CatalogEntry): ProbeTarget {
  const remotes = arrayOf(entry.data?.remotes);
  for (const remote of remotes) {
    const url = httpUrl(remote.url);
    if (url && (remote.type === undefined || STREAMABLE_HTTP.has(String(remote.type)))) return { probe: 'mcp-initialize', url };
  }
  const metadata = entry.metadata ?? {};
  const remoteUrl = httpUrl(metadata.remoteUrl);
  if (remoteUrl && (metadata.transport === undefined || STREAMABLE_HTTP.has(String(metadata.transport))))
    return { probe: 'mcp-initialize', url: remoteUrl };
  const sse = remoteUrl ?? remotes.map((r) => httpUrl(r.url)).find((u) => u !== undefined);
  if (sse) return none(sse, 'transport-unsupported', 'the remote endpoint speaks the SSE transport, which the probes do not');
  return none(null, 'stdio-only', 'the server states no remote endpoint: it runs over stdio where it is installed');
}

function none(url: string | null, reason: NoProbeReason, detail: string): ProbeTarget {
  return { probe: 'none', url, reason, detail };
}

function arrayOf(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null) : [];
}

function httpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  try {
    const url = new URL(value.trim());
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
