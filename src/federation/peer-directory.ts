// The peer registries this registry knows: the operator's PEERS and PEERS_MIRROR (trusted configuration)
// and the registries discovered by crawling (live entries of type application/ai-registry[+json], whose
// `url` is the peer's base URL). One list, de-duplicated by normalised base URL, itself excluded.
import type { Kysely } from 'kysely';
import { MEDIA_TYPES } from '../catalog/catalog-entry';
import { listKnownRegistries } from '../catalog/known-registries';
import type { Database } from '../db/schema';

export { REGISTRY_TYPES } from '../catalog/known-registries';

export interface Peer {
  /** Normalised base URL (ends with '/'); the key of the peer in breakers, metrics and page tokens. */
  baseUrl: string;
  identifier: string;
  displayName: string;
  type: string;
  /**
   * true for PEERS given by the operator: trusted configuration, reached even on private addresses.
   * Discovered peers are strangers' URLs and go through the SSRF policy (CRAWL_ALLOW_PRIVATE).
   */
  configured: boolean;
  /** What the peer's catalog entry says of it (empty for a configured peer without one): referrals rank by it. */
  text: string;
  /** true for PEERS_MIRROR: followed through its change feed and served locally, so `auto` does not ask it live. */
  mirrored?: boolean;
}

/**
 * A peer's base URL: http(s), no query or fragment, path ending in '/'. A registry entry whose url
 * names the search route itself (`.../search`, as in the ARD §8 example) is reduced to its base.
 * Null when the URL is unusable.
 */
export function normalisePeerBase(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) return null;
  url.hash = '';
  url.search = '';
  let path = url.pathname.replace(/\/search\/?$/, '/');
  if (!path.endsWith('/')) path += '/';
  url.pathname = path;
  return url.toString();
}

/** The URL of a peer's POST /search. */
export function searchUrlOf(baseUrl: string): string {
  return new URL('search', baseUrl).toString();
}

/**
 * A configured peer has no catalog entry, so it gets a synthesized one: identifier
 * `urn:air:<host>:registry:<port and path, '-' joined, or 'root'>`, displayName `Peer registry <host><path>`.
 */
export function configuredPeer(baseUrl: string): Peer {
  const url = new URL(baseUrl);
  const parts = [url.port, ...url.pathname.split('/')].filter(Boolean).map((p) => p.replace(/[^a-zA-Z0-9._-]/g, '-'));
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/[^a-zA-Z0-9.-]/g, '-');
  return {
    baseUrl,
    identifier: `urn:air:${host}:registry:${parts.length > 0 ? parts.join('-') : 'root'}`,
    displayName: `Peer registry ${url.host}${url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '')}`,
    type: MEDIA_TYPES.registry,
    configured: true,
    text: '',
  };
}

/** Live registry entries with a usable url, as peers (not configured), by identifier. */
export async function discoveredPeers(db: Kysely<Database>): Promise<Peer[]> {
  const peers: Peer[] = [];
  for (const registry of await listKnownRegistries(db)) {
    const baseUrl = registry.url ? normalisePeerBase(registry.url) : null;
    if (baseUrl)
      peers.push({
        baseUrl,
        identifier: registry.identifier,
        displayName: registry.displayName,
        type: registry.type,
        configured: false,
        text: registry.text,
      });
  }
  return peers;
}

/** The normalised base URLs of PEERS_MIRROR, this registry's own left out. */
export function mirroredBases(mirrored: readonly string[], publicUrl: string): string[] {
  const self = normalisePeerBase(publicUrl);
  const bases = mirrored.map(normalisePeerBase).filter((b): b is string => b !== null && b !== self);
  return [...new Set(bases)];
}

/**
 * Configured peers first (in PEERS order, then PEERS_MIRROR's), then discovered ones; a base URL listed
 * both ways keeps the discovered identity (a real catalog entry) but the configured trust, and a mirrored
 * peer stays mirrored. This registry's own PUBLIC_URL is never a peer.
 */
export function mergePeers(
  configured: readonly string[],
  discovered: readonly Peer[],
  publicUrl: string,
  mirrored: readonly string[] = [],
): Peer[] {
  const self = normalisePeerBase(publicUrl);
  const byBase = new Map<string, Peer>();
  for (const raw of configured) {
    const base = normalisePeerBase(raw);
    if (base && base !== self && !byBase.has(base)) byBase.set(base, configuredPeer(base));
  }
  for (const base of mirroredBases(mirrored, publicUrl))
    byBase.set(base, { ...(byBase.get(base) ?? configuredPeer(base)), mirrored: true });
  for (const peer of discovered) {
    if (peer.baseUrl === self) continue;
    const known = byBase.get(peer.baseUrl);
    if (!known) byBase.set(peer.baseUrl, peer);
    else byBase.set(peer.baseUrl, { ...peer, configured: known.configured, mirrored: known.mirrored });
  }
  return [...byBase.values()];
}

export async function listKnownPeers(
  db: Kysely<Database>,
  configured: readonly string[],
  publicUrl: string,
  mirrored: readonly string[] = [],
): Promise<Peer[]> {
  return mergePeers(configured, await discoveredPeers(db), publicUrl, mirrored);
}

/** The URL of a peer's GET /changes from `since` (a registry extension, docs/api.md "Change feed"). */
export function changesUrlOf(baseUrl: string, since: string | null, limit: number): string {
  const url = new URL('changes', baseUrl);
  if (since !== null) url.searchParams.set('since', since);
  url.searchParams.set('limit', String(limit));
  return url.toString();
}
