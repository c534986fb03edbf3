// The publisher authority binding (ARD v0.91 §4.5.1): the trust domain named by
// `trustManifest.identity` must be the URN's <publisher> or a parent domain of it. Pure: no network.
import { publisherOf, type CatalogEntry } from '../catalog/catalog-entry';

/** What an identity names: a DNS trust domain, a DID without one (did:plc, did:key), or nothing usable. */
export type IdentityAnchor =
  { kind: 'domain'; domain: string; form: 'spiffe' | 'did:web' | 'https' | 'dns' } | { kind: 'did'; did: string } | { kind: 'none' };

const DNS_NAME = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * The anchor of an identity: `spiffe://<trust-domain>/...`, `did:web:<host>[:path]` (the host, its
 * percent-encoded port dropped), an `https://` (X.509 / JWKS) URL's host, or a bare DNS name.
 */
export function identityAnchor(identity: string): IdentityAnchor {
  const value = identity.trim();
  const lower = value.toLowerCase();
  if (lower.startsWith('spiffe://')) {
    const domain = lower.slice('spiffe://'.length).split('/')[0];
    return DNS_NAME.test(domain) ? { kind: 'domain', domain, form: 'spiffe' } : { kind: 'none' };
  }
  if (lower.startsWith('did:web:')) {
    const host = decodeDidWebSegment(value.split(':')[2] ?? '')
      .toLowerCase()
      .replace(/:\d+$/, '');
    return DNS_NAME.test(host) ? { kind: 'domain', domain: host, form: 'did:web' } : { kind: 'none' };
  }
  if (/^did:[a-z0-9]+:/.test(lower)) return { kind: 'did', did: value.split(':').slice(0, 3).join(':') };
  if (lower.startsWith('https://') || lower.startsWith('http://')) {
    try {
      const host = new URL(value).hostname.toLowerCase();
      return DNS_NAME.test(host) ? { kind: 'domain', domain: host, form: 'https' } : { kind: 'none' };
    } catch {
      return { kind: 'none' };
    }
  }
  const bare = lower.replace(/\.$/, '');
  return DNS_NAME.test(bare) && bare.includes('.') ? { kind: 'domain', domain: bare, form: 'dns' } : { kind: 'none' };
}

function decodeDidWebSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}

/** `domain` equals `publisher` or is a parent of it; a single label ("com") is a parent of nothing. */
export function isSameOrParentDomain(domain: string, publisher: string): boolean {
  if (domain === publisher) return true;
  return domain.includes('.') && publisher.endsWith(`.${domain}`);
}

/**
 * Why the entry's trust manifest does not bind to its identifier's publisher (§4.5.1); null when it
 * does, or when the entry has no `trustManifest.identity` (nothing is claimed). A DID-anchored
 * identifier (`urn:air:did:<method>:<id>:...`) binds to exactly that DID.
 */
export function bindingProblem(entry: Pick<CatalogEntry, 'identifier' | 'trustManifest'>): string | null {
  const identity = entry.trustManifest?.identity;
  if (identity === undefined) return null;
  if (typeof identity !== 'string' || identity.trim() === '') return 'trustManifest.identity is not a non-empty string (ARD v0.91 §4.5.1)';
  const publisher = publisherOf(entry.identifier).replace(/\.$/, '');
  const anchor = identityAnchor(identity);
  if (publisher === 'did') {
    const urnDid = entry.identifier.split(':').slice(2, 5).join(':').toLowerCase();
    const claimed =
      anchor.kind === 'did'
        ? anchor.did.toLowerCase()
        : anchor.kind === 'domain' && anchor.form === 'did:web'
          ? `did:web:${anchor.domain}`
          : null;
    if (claimed === urnDid) return null;
    return `trustManifest.identity '${identity}' is not the DID '${urnDid}' the identifier is anchored to (ARD v0.91 §4.5.1)`;
  }
  switch (anchor.kind) {
    case 'domain':
      if (isSameOrParentDomain(anchor.domain, publisher)) return null;
      return (
        `trustManifest.identity '${identity}' names the trust domain '${anchor.domain}', which is neither the identifier's ` +
        `publisher '${publisher}' nor a parent domain of it (ARD v0.91 §4.5.1)`
      );
    case 'did':
      return `trustManifest.identity '${identity}' is a DID without a domain; it cannot bind to the publisher '${publisher}' (ARD v0.91 §4.5.1)`;
    case 'none':
      return `trustManifest.identity '${identity}' names no trust domain (spiffe://, did:web:, https:// or a DNS name) to bind to the publisher '${publisher}' (ARD v0.91 §4.5.1)`;
    default:
      return assertNever(anchor);
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected identity anchor ${JSON.stringify(value)}`);
}

/**
 * Splits results received from elsewhere (a federated peer's) into those whose trust manifest binds to
 * their publisher and those that do not, with the reason: the §4.5.1 check for entries that are not ingested.
 */
export function partitionByBinding<T extends { identifier: string; trustManifest?: unknown }>(
  items: readonly T[],
): { bound: T[]; unbound: Array<{ identifier: string; reason: string }> } {
  const bound: T[] = [];
  const unbound: Array<{ identifier: string; reason: string }> = [];
  for (const item of items) {
    const manifest =
      item.trustManifest && typeof item.trustManifest === 'object' ? (item.trustManifest as Record<string, unknown>) : undefined;
    const reason = typeof item.identifier === 'string' ? bindingProblem({ identifier: item.identifier, trustManifest: manifest }) : null;
    if (reason) unbound.push({ identifier: item.identifier, reason });
    else bound.push(item);
  }
  return { bound, unbound };
}
