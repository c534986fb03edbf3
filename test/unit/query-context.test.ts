// Filter keys resolved through the query's @context (ARD v0.91 §5.3.1).
import { resolveFilterKeys } from '../../src/search/query-context';

const ARD = 'https://agenticresourcediscovery.org/ns#';
const OKF = 'https://openknowledgeformat.org/ns#';

describe('resolveFilterKeys', () => {
  it('leaves a 0.5.0 filter (no @context) as it is', () => {
    const filter = { type: 'application/ai-skill', 'trustManifest.attestations.type': ['SOC2'], '@verification': 'verified' };
    expect(resolveFilterKeys(filter, undefined)).toEqual(filter);
  });

  it('resolves ARD-namespace keys to core terms and other prefixes to absolute IRIs', () => {
    expect(
      resolveFilterKeys(
        { 'ard:tags': 'x', 'okf:taxonomy': ['a'], 'ard:trustManifest.attestations.type': 'SOC2' },
        { ard: ARD, okf: { '@id': OKF } },
      ),
    ).toEqual({
      tags: 'x',
      [`${OKF}taxonomy`]: ['a'],
      'trustManifest.attestations.type': 'SOC2',
    });
    expect(
      resolveFilterKeys({ tier: 'gold' }, [
        'https://agenticresourcediscovery.org/context/v1',
        { tier: 'https://acme.test/vocab#serviceTier' },
      ]),
    ).toEqual({
      'https://acme.test/vocab#serviceTier': 'gold',
    });
    expect(resolveFilterKeys({ [`${ARD}capabilities`]: 'WeatherTool' }, undefined)).toEqual({ capabilities: 'WeatherTool' });
  });

  it.each([
    [{ 'okf:taxonomy': 'a' }, undefined, "the prefix 'okf' is not bound"],
    [{ tags: 'a' }, 'https://example.test/ctx.jsonld', 'does not fetch contexts'],
    [{ tags: 'a' }, { okf: 'not an iri' }, "query['@context']['okf'] must be an absolute IRI"],
    [{ tags: 'a' }, 42, "query['@context'] must be an object"],
    [{ 'okf:taxonomy.code': 'a' }, { okf: OKF }, 'paths under a namespaced term are not supported'],
    [{ 'ard:tags': 'a', tags: 'b' }, { ard: ARD }, "both resolve to 'tags'"],
  ])('400 for %j with @context %j', (filter, context, message) => {
    expect(() => resolveFilterKeys(filter as Record<string, string>, context)).toThrow(message);
  });
});
