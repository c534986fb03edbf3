// The peer registries this registry knows: the operator's PEERS (trusted configuration) and the
// registries discovered by crawling (live entries of type application/ai-registry[+json], whose
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

/**
 * Configured peers first (in PEERS order), then discovered ones; a base URL listed both ways keeps
 * the discovered identity (a real catalog entry) but the configured trust. This registry's own
 * PUBLIC_URL is never a peer.
 */
export function mergePeers(configured: readonly string[], discovered: readonly Peer[], publicUrl: string): Peer[] {
  const self = normalisePeerBase(publicUrl);
  const byBase = new Map<string, Peer>();
  for (const raw of configured) {
    const base = normalisePeerBase(raw);
    if (base && base !== self && !byBase.has(base)) byBase.set(base, configuredPeer(base));
  }
  for (const peer of discovered) {
    if (peer.baseUrl === self) continue;
    const known = byBase.get(peer.baseUrl);
    if (!known) byBase.set(peer.baseUrl, peer);
    else byBase.set(peer.baseUrl, { ...peer, configured: known.configured });
  }
  return [...byBase.values()];
}

export async function listKnownPeers(db: Kysely<Database>, configured: readonly string[], publicUrl: string): Promise<Peer[]> {
  return mergePeers(configured, await discoveredPeers(db), publicUrl);
}
