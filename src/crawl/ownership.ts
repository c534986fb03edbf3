// The identifier-ownership rule (docs/ingestion.md): an entry crawled from the web may only claim
// identifiers under a domain that vouches for the catalog. `urn:air:<publisher>:...` is accepted when
// <publisher> equals, or is a parent domain of, one of the document's authorities: the host that
// served it, and the authorities of whatever pointed at it (the registered domain whose robots.txt,
// well-known path or HTML page led there; the catalog that nested it). Trusted sources skip the rule.
import { publisherOf } from '../catalog/catalog-entry';

export function hostAuthority(url: string): string {
  return new URL(url).hostname
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[|\]$/g, '');
}

/** Why `identifier` may not come from a document vouched for by `authorities`; null when it may. */
export function ownershipProblem(identifier: string, authorities: ReadonlySet<string>): string | null {
  const publisher = publisherOf(identifier).replace(/\.$/, '');
  // A single label ("com", "localhost") would be a parent of every host under it.
  if (publisher.includes('.')) {
    for (const host of authorities) {
      if (host === publisher || host.endsWith(`.${publisher}`)) return null;
    }
  }
  return (
    `identifier publisher '${publisher}' does not match the host serving this catalog ` +
    `(${[...authorities].join(', ')}); a catalog may only list identifiers of its own domain or a parent domain`
  );
}
