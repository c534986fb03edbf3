// The query's `@context` (ARD v0.91 §5.3.1): filter keys that name terms are resolved to IRIs through
// the ARD base context plus the query's `@context`. A key that resolves into the ARD namespace becomes
// the core term it names (`ard:tags` -> `tags`); a key in another namespace becomes its absolute IRI
// (`okf:taxonomy` -> `https://openknowledgeformat.org/ns#taxonomy`), which query-filter.ts matches
// against each entry's own `@context`, whatever prefix the entry chose. Keys without a bound prefix are
// unchanged, so a 0.5.0 query (no `@context`) means what it always did. Only the leading segment of a
// dot-path is a term; the rest is a literal JSON path (§5.3.1 "non-expanded members"). POST /explore's
// facet fields use the same syntax as filter keys (§5.3.3) and are resolved the same way.
import { InvalidArgumentError } from '../errors';
import type { QueryFilter } from './query-filter';

export const ARD_BASE_CONTEXT = 'https://agenticresourcediscovery.org/context/v1';
export const ARD_NAMESPACE = 'https://agenticresourcediscovery.org/ns#';

/** Term or prefix -> IRI, from the query's `@context` (an object, the base context URL, or an array of those). */
export function readQueryContext(context: unknown): Map<string, string> {
  const bindings = new Map<string, string>();
  if (context === undefined || context === null) return bindings;
  for (const [i, item] of (Array.isArray(context) ? context : [context]).entries()) {
    const where = Array.isArray(context) ? `query['@context'][${i}]` : "query['@context']";
    if (typeof item === 'string') {
      if (item !== ARD_BASE_CONTEXT) {
        throw new InvalidArgumentError(
          `${where} is the remote context '${item.slice(0, 200)}'; this registry does not fetch contexts: bind prefixes inline, e.g. {"okf": "https://openknowledgeformat.org/ns#"}`,
        );
      }
      continue;
    }
    if (!item || typeof item !== 'object')
      throw new InvalidArgumentError(`${where} must be an object of prefix: IRI, or '${ARD_BASE_CONTEXT}'`);
    for (const [term, value] of Object.entries(item as Record<string, unknown>)) {
      if (term.startsWith('@')) continue;
      const iri =
        typeof value === 'string' ? value : value && typeof value === 'object' ? (value as { '@id'?: unknown })['@id'] : undefined;
      if (typeof iri !== 'string' || !/^[a-z][a-z0-9+.-]*:/i.test(iri)) {
        throw new InvalidArgumentError(
          `${where}['${term}'] must be an absolute IRI (or {"@id": IRI}); got ${JSON.stringify(value)?.slice(0, 200)}`,
        );
      }
      bindings.set(term, iri);
    }
  }
  return bindings;
}

/** True when a filter key is an absolute IRI (after resolution, or as the client wrote it). */
export function isIriKey(key: string): boolean {
  return /^(https?|urn):/i.test(key) && (key.includes('://') || key.startsWith('urn:'));
}

/**
 * The filter with its keys resolved through `context`; the same object when nothing needs resolving.
 * 400 when a key uses a prefix the context does not bind, or a path under a namespaced term.
 */
export function resolveFilterKeys(filter: QueryFilter | undefined, context: unknown): QueryFilter | undefined {
  const bindings = readQueryContext(context);
  if (!filter) return filter;
  const out: QueryFilter = {};
  for (const [key, values] of Object.entries(filter)) {
    const resolved = resolveKey(key, bindings, `query.filter key '${key}'`);
    if (Object.hasOwn(out, resolved))
      throw new InvalidArgumentError(`query.filter keys '${key}' and another key both resolve to '${resolved}'; give it once`);
    out[resolved] = values;
  }
  return out;
}

/**
 * The facets with each `field` resolved through `context` like a filter key (ARD v0.91 §5.3.3: "same
 * syntax as filter keys"), each answered under the name the client asked for (`name`). 400 as for filter keys.
 */
export function resolveFacetFields<F extends { field: string; name?: string }>(facets: F[], context: unknown): F[] {
  const bindings = readQueryContext(context);
  return facets.map((facet, i) => {
    if (typeof facet.field !== 'string') return facet;
    const field = resolveKey(facet.field, bindings, `resultType.facets[${i}].field '${facet.field}'`);
    return field === facet.field ? facet : { ...facet, field, name: facet.field };
  });
}

/** `what` names the key in a message: "query.filter key 'okf:x'", "resultType.facets[0].field 'okf:x'". */
function resolveKey(key: string, bindings: Map<string, string>, what: string): string {
  if (isIriKey(key)) return fromIri(key, what);
  const dot = key.indexOf('.');
  const term = dot < 0 ? key : key.slice(0, dot);
  const rest = dot < 0 ? '' : key.slice(dot);
  let iri: string | undefined;
  const colon = term.indexOf(':');
  if (bindings.has(term)) {
    iri = bindings.get(term);
  } else if (colon > 0) {
    const prefix = term.slice(0, colon);
    const base = bindings.get(prefix);
    if (base === undefined)
      throw new InvalidArgumentError(`${what}: the prefix '${prefix}' is not bound in query['@context'] (ARD v0.91 §5.3.1)`);
    iri = base + term.slice(colon + 1);
  }
  if (iri === undefined) return key;
  const resolved = fromIri(iri, what);
  if (resolved === iri && rest !== '') {
    throw new InvalidArgumentError(`${what}: paths under a namespaced term are not supported; name the term itself`);
  }
  return resolved === iri ? iri : `${resolved}${rest}`;
}

/** A term of the ARD namespace is its core name; any other IRI stays absolute. */
function fromIri(iri: string, what: string): string {
  if (!iri.startsWith(ARD_NAMESPACE)) return iri;
  const term = iri.slice(ARD_NAMESPACE.length);
  if (term === '') throw new InvalidArgumentError(`${what} resolves to the ARD namespace itself, not a term`);
  return term;
}
