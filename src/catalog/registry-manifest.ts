// This registry's own capability manifest, served at /.well-known/ard.json (ARD v0.91 §5.1, `entries` and
// the transport-defined `host`) and /.well-known/ai-catalog.json (v0.9 §4.1, for older consumers): an entry
// of type application/ai-registry+json whose url is the API base (POST {url}search, {url}explore, ...), so
// other registries and clients can discover and federate it, plus the Alexandria MCP endpoint.
import { type CatalogManifest, isValidIdentifier, MEDIA_TYPES } from './catalog-entry';

export const REGISTRY_NAME = 'ard-registry';

/**
 * The URN publisher segment for a public URL: its host name (no port). ARD identifiers allow only
 * [A-Za-z0-9.-] there, so an IPv6 literal ([::1]) has its brackets dropped and ':' written as '-'.
 */
export function publisherForPublicUrl(publicUrl: string): string {
  const host = new URL(publicUrl).hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/:/g, '-');
  return host.replace(/[^a-z0-9.-]/g, '-');
}

export function registryIdentifier(publicUrl: string): string {
  return `urn:air:${publisherForPublicUrl(publicUrl)}:registry:${REGISTRY_NAME}`;
}

/** True when PUBLIC_URL's host is an IP address: the URN publisher is then not a domain (ARD Appendix C). */
export function publicUrlHasIpHost(publicUrl: string): boolean {
  const host = new URL(publicUrl).hostname.replace(/^\[|\]$/g, '');
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');
}

/** The v0.91 form of the manifest (/.well-known/ard.json): `entries`, plus `host` as a transport-defined member. */
export function selfArdManifest(publicUrl: string): { host: CatalogManifest['host']; entries: CatalogManifest['entries'] } {
  const { host, entries } = selfCatalogManifest(publicUrl);
  return { host, entries };
}

export function selfCatalogManifest(publicUrl: string): CatalogManifest {
  const base = new URL(publicUrl).toString();
  const publisher = publisherForPublicUrl(base);
  const manifest: CatalogManifest = {
    specVersion: '1.0',
    host: { displayName: `ard-registry at ${publisher}` },
    entries: [
      {
        identifier: registryIdentifier(base),
        displayName: `ARD registry (${publisher})`,
        type: MEDIA_TYPES.registry,
        url: base,
        description:
          'ARD Agent Registry: POST search and explore over MCP servers, A2A agents, skills and the Alexandria ' +
          'library of agent papers, repositories and posts. Free, unauthenticated reads.',
        tags: ['registry', 'search', 'federation'],
        representativeQueries: [
          'find an MCP server that can read my calendar',
          'which agents can book flights?',
          'search a registry of AI agents and tools',
        ],
      },
      {
        identifier: `urn:air:${publisher}:mcp:alexandria`,
        displayName: 'Alexandria agent library (MCP)',
        type: MEDIA_TYPES.mcpServer,
        url: new URL('mcp', base).toString(),
        description:
          'Streamable HTTP MCP server with three read-only tools over a curated library of agent papers, ' +
          'repositories and posts: search, get_resource, list_topics.',
        tags: ['agents', 'research', 'library'],
        capabilities: ['search', 'get_resource', 'list_topics'],
        representativeQueries: ['how do I add memory to my agent?', 'papers on agent benchmarks'],
      },
    ],
  };
  for (const entry of manifest.entries) {
    if (!isValidIdentifier(entry.identifier)) throw new Error(`PUBLIC_URL ${publicUrl} gives an invalid identifier ${entry.identifier}`);
  }
  return manifest;
}
