// The publisher authority binding (ARD v0.91 §4.5.1): which trust domain each identity form names,
// and when it binds to the identifier's publisher.
import { bindingProblem, identityAnchor, partitionByBinding } from '../../src/trust';

const entry = (identifier: string, identity: unknown) => ({ identifier, trustManifest: { identity } });

describe('identityAnchor', () => {
  it.each([
    ['spiffe://acme.com/travel/concierge', { kind: 'domain', domain: 'acme.com', form: 'spiffe' }],
    ['did:web:acme.com', { kind: 'domain', domain: 'acme.com', form: 'did:web' }],
    ['did:web:acme.com%3A8443:users:alice', { kind: 'domain', domain: 'acme.com', form: 'did:web' }],
    ['https://Keys.Acme.com/.well-known/jwks.json', { kind: 'domain', domain: 'keys.acme.com', form: 'https' }],
    ['acme.com', { kind: 'domain', domain: 'acme.com', form: 'dns' }],
    ['did:plc:ewvi7nxzyoun6zhxrhs64oiz', { kind: 'did', did: 'did:plc:ewvi7nxzyoun6zhxrhs64oiz' }],
    ['urn:uuid:1234', { kind: 'none' }],
    ['spiffe://not a domain/x', { kind: 'none' }],
  ])('%s', (identity, expected) => {
    expect(identityAnchor(identity)).toEqual(expected);
  });
});

describe('bindingProblem (ARD v0.91 §4.5.1)', () => {
  it('accepts a trust domain equal to the publisher or a parent of it, and entries without an identity', () => {
    expect(bindingProblem(entry('urn:air:acme.com:agent:a', 'spiffe://acme.com/a'))).toBeNull();
    expect(bindingProblem(entry('urn:air:api.acme.com:agent:a', 'did:web:acme.com'))).toBeNull();
    expect(bindingProblem(entry('urn:air:ACME.com:agent:a', 'https://acme.com/jwks.json'))).toBeNull();
    expect(bindingProblem({ identifier: 'urn:air:acme.com:agent:a' })).toBeNull();
  });

  it('rejects another domain, a child domain, a single label, a domainless DID and an identity with no domain', () => {
    expect(bindingProblem(entry('urn:air:acme.com:agent:a', 'spiffe://evil.com/a'))).toContain("trust domain 'evil.com'");
    expect(bindingProblem(entry('urn:air:acme.com:agent:a', 'did:web:api.acme.com'))).toContain("trust domain 'api.acme.com'");
    expect(bindingProblem(entry('urn:air:acme.com:agent:a', 'spiffe://com/a'))).toContain("trust domain 'com'");
    expect(bindingProblem(entry('urn:air:acme.com:agent:a', 'did:plc:abc'))).toContain('DID without a domain');
    expect(bindingProblem(entry('urn:air:acme.com:agent:a', 'urn:uuid:1'))).toContain('names no trust domain');
    expect(bindingProblem(entry('urn:air:acme.com:agent:a', ''))).toContain('not a non-empty string');
  });

  it('binds a DID-anchored identifier (urn:air:did:<method>:<id>:...) to exactly that DID', () => {
    expect(bindingProblem(entry('urn:air:did:plc:abc123:agent:a', 'did:plc:abc123'))).toBeNull();
    expect(bindingProblem(entry('urn:air:did:plc:abc123:agent:a', 'did:plc:other'))).toContain("not the DID 'did:plc:abc123'");
  });
});

describe('partitionByBinding (federated results, ARD v0.91 §4.5.1)', () => {
  it('keeps results that bind or claim nothing, and names why the others do not', () => {
    const results = [
      { identifier: 'urn:air:acme.com:agent:a', score: 90, trustManifest: { identity: 'spiffe://acme.com/a' } },
      { identifier: 'urn:air:acme.com:agent:squat', score: 80, trustManifest: { identity: 'did:web:evil.com' } },
      { identifier: 'urn:air:other.com:agent:plain', score: 70 },
    ];
    const { bound, unbound } = partitionByBinding(results);
    expect(bound.map((r) => r.identifier)).toEqual(['urn:air:acme.com:agent:a', 'urn:air:other.com:agent:plain']);
    expect(unbound).toEqual([{ identifier: 'urn:air:acme.com:agent:squat', reason: expect.stringContaining("trust domain 'evil.com'") }]);
  });
});
