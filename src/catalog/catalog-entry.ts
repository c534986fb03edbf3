// The ARD catalog entry (ARD §4.2) and what the registry derives from it.
import { createHash } from 'node:crypto';

export interface CatalogEntry {
  identifier: string;
  displayName: string;
  type: string;
  url?: string;
  data?: Record<string, unknown>;
  description?: string;
  tags?: string[];
  capabilities?: string[];
  representativeQueries?: string[];
  version?: string;
  updatedAt?: string;
  metadata?: Record<string, string | number | boolean | null>;
  trustManifest?: Record<string, unknown>;
  [extension: string]: unknown;
}

export interface HostInfo {
  displayName: string;
  identifier?: string;
  documentationUrl?: string;
  logoUrl?: string;
  trustManifest?: Record<string, unknown>;
}

export interface CatalogManifest {
  specVersion: string;
  host?: HostInfo;
  entries: CatalogEntry[];
}

export const MEDIA_TYPES = {
  mcpServer: 'application/mcp-server-card+json',
  a2aAgent: 'application/a2a-agent-card+json',
  skill: 'application/ai-skill',
  catalog: 'application/ai-catalog+json',
  registry: 'application/ai-registry+json',
  registryLegacy: 'application/ai-registry',
} as const;

const URN_PATTERN = /^urn:air:[a-zA-Z0-9.-]+(:[a-zA-Z0-9._-]+)+$/;

export function isValidIdentifier(identifier: string): boolean {
  return URN_PATTERN.test(identifier);
}

/** The <publisher> segment of `urn:air:<publisher>:...` (ARD §4.2.1, §7.1), lower-cased like DNS. */
export function publisherOf(identifier: string): string {
  return identifier.split(':')[2].toLowerCase();
}

/** JSON with object keys sorted: equal content gives equal text, whatever the key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  });
}

export function contentHash(entry: CatalogEntry, host: HostInfo | undefined): string {
  return createHash('sha256')
    .update(canonicalJson({ entry, host: host ?? null }))
    .digest('hex');
}

/**
 * The text lexical search and the embedder read, one field per line. representativeQueries are
 * left out on purpose: measured on our corpora they attract unrelated questions when only some
 * entries have them (../shared/notes/search.md); the relevance work measures them separately.
 */
export function searchableText(entry: CatalogEntry): string {
  return [
    entry.displayName,
    entry.description ?? '',
    (entry.tags ?? []).join(', '),
    (entry.capabilities ?? []).map(splitIdentifierWords).join(', '),
  ]
    .filter((part) => part.trim() !== '')
    .join('\n');
}

/** "get_weather_forecast" / "getWeatherForecast" -> "get weather forecast", so tool names read as words. */
export function splitIdentifierWords(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-./]+/g, ' ')
    .trim();
}
