// Verifies one entry's trust manifest (ARD v0.91 §4.5): the publisher binding (§4.5.1), then, when the
// manifest carries `signature`, a JWS over the entry: compact (payload attached) or detached
// (RFC 7515 Appendix F), the signed payload being the entry without `trustManifest.signature`,
// canonicalised with RFC 8785 JCS (ADR 0010). Keys come from the did:web document of the identity, or
// a JWKS on the trust domain (the JWS `jku`, or an attestation of media type application/jwk-set+json).
// A framework this registry cannot check without a third party is "unverified", never "verified".
import canonicalize from 'canonicalize';
import {
  compactVerify,
  createLocalJWKSet,
  decodeProtectedHeader,
  errors as joseErrors,
  importJWK,
  type CompactVerifyGetKey,
  type JWK,
  type KeyLike,
  type ProtectedHeaderParameters,
} from 'jose';
import type { CatalogEntry } from '../catalog/catalog-entry';
import { fetchJwks, resolveDidWeb, selectDidKey, type KeyFetchOptions } from './key-sources';
import { bindingProblem, identityAnchor, isSameOrParentDomain } from './trust-domain';
import { failed, unverified, verified, type VerificationMethod, type VerificationOutcome } from './verification-outcome';

/** Asymmetric JWS algorithms only: `none` and HMAC (a shared secret proves nothing about a publisher) are refused. */
export const JWS_ALGORITHMS = ['ES256', 'ES384', 'ES512', 'EdDSA', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];

const JWKS_MEDIA_TYPE = 'application/jwk-set+json';

export interface VerifyDeps {
  keys: KeyFetchOptions;
  now?: Date;
}

/** The bytes a publisher signs: the entry without `trustManifest.signature`, in RFC 8785 (JCS) form. */
export function signedPayload(entry: CatalogEntry): string {
  return canonicalize(entryWithoutSignature(entry)) as string;
}

export function entryWithoutSignature(entry: CatalogEntry): CatalogEntry {
  const trustManifest = { ...(entry.trustManifest ?? {}) };
  delete trustManifest.signature;
  return { ...entry, trustManifest };
}

export async function verifyEntry(entry: CatalogEntry, deps: VerifyDeps): Promise<VerificationOutcome> {
  const manifest = entry.trustManifest;
  if (!manifest || typeof manifest !== 'object') return unverified('no-trust-manifest', 'the entry has no trustManifest');
  const binding = bindingProblem(entry);
  if (binding) return failed('binding-mismatch', binding);
  const signature = manifest.signature;
  if (signature === undefined) return unverified('unsigned', 'the trust manifest carries no signature to check');
  if (typeof signature !== 'string' || signature.split('.').length !== 3)
    return failed('signature-malformed', 'trustManifest.signature is not a compact or detached JWS');
  let header: ProtectedHeaderParameters;
  try {
    header = decodeProtectedHeader(signature);
  } catch {
    return failed('signature-malformed', 'the JWS protected header is not base64url JSON');
  }
  if (typeof header.alg !== 'string' || !JWS_ALGORITHMS.includes(header.alg)) {
    return failed('algorithm-unsupported', `JWS alg '${String(header.alg)}' is not one of ${JWS_ALGORITHMS.join(', ')}`);
  }
  const key = await keyFor(entry, header, deps);
  if ('outcome' in key) return key.outcome;
  return checkSignature(entry, signature, key.key, key.method, key.label);
}

type KeyResult =
  { key: KeyLike | Uint8Array | CompactVerifyGetKey; method: VerificationMethod; label: string } | { outcome: VerificationOutcome };

async function keyFor(entry: CatalogEntry, header: ProtectedHeaderParameters, deps: VerifyDeps): Promise<KeyResult> {
  const manifest = entry.trustManifest as Record<string, unknown>;
  const identity = String(manifest.identity);
  const anchor = identityAnchor(identity);
  if (anchor.kind === 'domain' && anchor.form === 'did:web') {
    const did = identity.split('#')[0].split('?')[0];
    const resolved = await resolveDidWeb(did, deps.keys);
    if (!resolved.ok) return { outcome: withMethod(resolved.outcome, 'jws+did:web') };
    const method = selectDidKey(resolved.value, header.kid);
    if (!method) {
      const named = header.kid ? `key '${header.kid}'` : 'a single key (the JWS names no kid)';
      return {
        outcome: failed(
          'key-not-found',
          `the DID document of ${did} does not list ${named} as a verification (assertion) method`,
          'jws+did:web',
        ),
      };
    }
    const now = deps.now ?? new Date();
    if (method.revoked && Date.parse(method.revoked) <= now.getTime())
      return { outcome: failed('key-revoked', `key ${method.id} was revoked at ${method.revoked}`, 'jws+did:web') };
    if (method.expires && Date.parse(method.expires) <= now.getTime())
      return { outcome: failed('key-expired', `key ${method.id} expired at ${method.expires}`, 'jws+did:web') };
    try {
      return { key: await importJWK(method.publicKeyJwk as JWK, header.alg), method: 'jws+did:web', label: method.id };
    } catch (error) {
      return {
        outcome: failed(
          'did-document-invalid',
          `key ${method.id} is not a usable ${header.alg} JWK: ${(error as Error).message}`,
          'jws+did:web',
        ),
      };
    }
  }
  const jwksUrl = header.jku ?? jwksAttestation(manifest);
  if (jwksUrl === undefined || anchor.kind !== 'domain') {
    return {
      outcome: unverified(
        'framework-unsupported',
        `no key source this registry can check without a third party for identity '${identity}' (did:web or a JWKS on the publisher's domain)`,
      ),
    };
  }
  let url: URL;
  try {
    url = new URL(jwksUrl);
  } catch {
    return { outcome: failed('jwks-invalid', `the JWKS URL '${jwksUrl}' is not a URL`, 'jws+jwks') };
  }
  if (!isSameOrParentDomain(anchor.domain, url.hostname.toLowerCase())) {
    return { outcome: failed('jwks-off-domain', `the JWKS ${url.href} is not on the trust domain '${anchor.domain}'`, 'jws+jwks') };
  }
  const jwks = await fetchJwks(url, deps.keys);
  if (!jwks.ok) return { outcome: withMethod(jwks.outcome, 'jws+jwks') };
  return { key: createLocalJWKSet(jwks.value), method: 'jws+jwks', label: url.href };
}

function jwksAttestation(manifest: Record<string, unknown>): string | undefined {
  const attestations = Array.isArray(manifest.attestations) ? manifest.attestations : [];
  const found = attestations.find(
    (a): a is { uri: string } => !!a && typeof a === 'object' && a.mediaType === JWKS_MEDIA_TYPE && typeof a.uri === 'string',
  );
  return found?.uri;
}

async function checkSignature(
  entry: CatalogEntry,
  jws: string,
  key: KeyLike | Uint8Array | CompactVerifyGetKey,
  method: VerificationMethod,
  label: string,
): Promise<VerificationOutcome> {
  const [protectedHeader, attached, signature] = jws.split('.');
  const expected = signedPayload(entry);
  const verify = async (payload: string) => {
    const compact = `${protectedHeader}.${payload}.${signature}`;
    try {
      return (await compactVerify(compact, key as KeyLike, { algorithms: JWS_ALGORITHMS })).payload;
    } catch (error) {
      if (error instanceof joseErrors.JWKSNoMatchingKey) return 'no-key' as const;
      if (error instanceof joseErrors.JOSEError) return null;
      throw error;
    }
  };
  if (attached === '') {
    const result = await verify(Buffer.from(expected, 'utf8').toString('base64url'));
    if (result === 'no-key') return failed('key-not-found', `no key of ${label} matches the JWS`, method);
    if (result) return verified(method, `detached JWS over the JCS form of the entry, key ${label}`);
    // Diagnose the common mistake: signing the entry as serialised rather than in JCS form.
    const plain = JSON.stringify(entryWithoutSignature(entry));
    if (plain !== expected && (await verify(Buffer.from(plain, 'utf8').toString('base64url')))) {
      return failed('not-canonical', 'the signature is over the entry, but not in RFC 8785 (JCS) form', method);
    }
    return failed('signature-invalid', `the signature does not verify with key ${label} over the JCS form of the entry`, method);
  }
  const payload = await verify(attached);
  if (payload === 'no-key') return failed('key-not-found', `no key of ${label} matches the JWS`, method);
  if (!payload) return failed('signature-invalid', `the JWS does not verify with key ${label}`, method);
  const text = Buffer.from(payload).toString('utf8');
  if (text === expected) return verified(method, `JWS over the JCS form of the entry, key ${label}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return failed('payload-mismatch', 'the JWS payload is not JSON', method);
  }
  if (canonicalize(parsed) === expected)
    return failed('not-canonical', 'the JWS payload is this entry, but not in RFC 8785 (JCS) form', method);
  return failed('payload-mismatch', 'the JWS payload is not this entry (a field changed after signing)', method);
}

function withMethod(outcome: VerificationOutcome, method: VerificationMethod): VerificationOutcome {
  return outcome.state === 'failed' ? { ...outcome, method } : outcome;
}
