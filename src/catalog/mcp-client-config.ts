// The `mcpServers` block an MCP client (Claude Desktop, Cursor, Claude Code, ...) reads, derived only from
// what the entry states: an inline server card's remotes or packages (`data`), else the catalog's
// `metadata.remoteUrl`, else a container image that speaks stdio. Nothing is guessed: an entry whose
// launch cannot be read from it gets no snippet.
import type { CatalogEntry } from './catalog-entry';

export const MCP_SERVER_CARD_TYPE = 'application/mcp-server-card+json';

export type McpServerLaunch = { command: string; args: string[] } | { type: 'http' | 'sse'; url: string };

export interface McpClientConfig {
  /** The key under `mcpServers`. */
  serverKey: string;
  launch: McpServerLaunch;
  /** Where the launch was read from, said for a person. */
  readFrom: string;
}

export function mcpClientConfig(entry: CatalogEntry): McpClientConfig | null {
  if (entry.type !== MCP_SERVER_CARD_TYPE) return null;
  const found = fromServerCard(entry.data) ?? fromCatalogMetadata(entry.metadata);
  return found && { serverKey: serverKey(entry), ...found };
}

/** The snippet as a person pastes it into the client's configuration file; `args` on one line. */
export function mcpClientConfigJson(config: McpClientConfig): string {
  const text = JSON.stringify({ mcpServers: { [config.serverKey]: config.launch } }, null, 2);
  return text.replace(
    /\[\n\s*((?:"(?:[^"\\]|\\.)*",?\n\s*)*)\]/g,
    (_all, items: string) =>
      `[${items
        .split(/,?\n\s*/)
        .filter(Boolean)
        .join(', ')}]`,
  );
}

type Found = { launch: McpServerLaunch; readFrom: string };

/** An MCP registry `server.json` held inline: `remotes[].{type,url}` or `packages[]` run over stdio. */
function fromServerCard(data: Record<string, unknown> | undefined): Found | null {
  if (!data) return null;
  for (const remote of arrayOf(data.remotes)) {
    const url = httpUrl(remote.url);
    if (url) return { launch: { type: remote.type === 'sse' ? 'sse' : 'http', url }, readFrom: 'the server card’s remote endpoint' };
  }
  for (const pkg of arrayOf(data.packages)) {
    const transport = (pkg.transport as { type?: unknown } | undefined)?.type;
    if (transport !== undefined && transport !== 'stdio') continue;
    const registry = text(pkg.registryType) ?? text(pkg.registry_name);
    const name = text(pkg.identifier) ?? text(pkg.name);
    if (!name) continue;
    const version = text(pkg.version);
    const readFrom = 'the server card’s package';
    if (registry === 'npm') return { launch: { command: 'npx', args: ['-y', version ? `${name}@${version}` : name] }, readFrom };
    if (registry === 'pypi') return { launch: { command: 'uvx', args: [version ? `${name}==${version}` : name] }, readFrom };
    if (registry === 'oci' || registry === 'docker')
      return { launch: dockerRun(version && !name.includes(':') ? `${name}:${version}` : name), readFrom };
  }
  return null;
}

/** The catalogs' metadata: `remoteUrl` with `transport`, or a stdio container `image`. */
function fromCatalogMetadata(metadata: CatalogEntry['metadata']): Found | null {
  if (!metadata) return null;
  const remote = httpUrl(metadata.remoteUrl);
  if (remote) return { launch: { type: metadata.transport === 'sse' ? 'sse' : 'http', url: remote }, readFrom: 'the entry’s remote URL' };
  const image = text(metadata.image);
  const transport = metadata.transport;
  if (image && (transport === undefined || transport === 'stdio'))
    return { launch: dockerRun(image), readFrom: 'the entry’s container image' };
  return null;
}

function dockerRun(image: string): McpServerLaunch {
  return { command: 'docker', args: ['run', '-i', '--rm', image] };
}

function serverKey(entry: CatalogEntry): string {
  const named = text(entry.metadata?.serverName) ?? entry.displayName;
  const slug = named
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || 'server';
}

function arrayOf(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null) : [];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function httpUrl(value: unknown): string | undefined {
  const raw = text(value);
  if (!raw) return undefined;
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || url.protocol === 'http:' ? raw : undefined;
  } catch {
    return undefined;
  }
}
