// Where a signed entry's public keys come from (ARD v0.91 §4.5.2, ADR 0010): a did:web DID document
// (`https://<host>/.well-known/did.json`, or `https://<host>/<path>/did.json` for the path form) or a
// JWKS on the publisher's domain. Fetched only through src/outbound (timeouts, size caps, SSRF guard).
import type { JWK } from 'jose';
import { isOutboundError, type HttpClient } from '../outbound';
import { failed, type FailureReason, type VerificationOutcome } from './verification-outcome';

export interface KeyFetchOptions {
  http: HttpClient;
  timeoutMs: number;
  maxBytes: number;
  signal?: AbortSignal;
  /** 'https' always in production (did:web requires it); tests on loopback publishers use 'http'. */
  scheme?: 'https' | 'http';
  /** Documents already fetched in this pass, by URL: many entries of one publisher share a DID document. */
  cache?: Map<string, Promise<unknown>>;
}

export interface DidVerificationMethod {
  id: string;
  type?: string;
  controller?: string;
  publicKeyJwk?: JWK;
  /** W3C security vocabulary: the key is not valid after / was revoked at this instant. */
  expires?: string;
  revoked?: string;
}

export interface DidDocument {
  id: string;
  verificationMethod: DidVerificationMethod[];
  assertionMethod?: Array<string | DidVerificationMethod>;
}

/** The URL of a did:web DID's document (did:web method specification §3.2). */
export function didWebDocumentUrl(did: string, scheme: 'https' | 'http' = 'https'): URL {
  const parts = did.split(':');
  if (parts.length < 3 || parts[0] !== 'did' || parts[1] !== 'web') throw new Error(`not a did:web DID: ${did}`);
  const host = decodeURIComponent(parts[2]);
  const path = parts.slice(3).map(decodeURIComponent);
  return new URL(path.length === 0 ? `${scheme}://${host}/.well-known/did.json` : `${scheme}://${host}/${path.join('/')}/did.json`);
}

type Fetched<T> = { ok: true; value: T } | { ok: false; outcome: VerificationOutcome };

async function fetchJsonDocument(
  url: URL,
  options: KeyFetchOptions,
  reasons: { unavailable: FailureReason; tooLarge: FailureReason; timeout: FailureReason; invalid: FailureReason },
  what: string,
): Promise<Fetched<unknown>> {
  const cached = options.cache?.get(url.href) as Promise<Fetched<unknown>> | undefined;
  if (cached) return cached;
  const fetched = fetchUncached(url, options, reasons, what);
  options.cache?.set(url.href, fetched);
  return fetched;
}

async function fetchUncached(
  url: URL,
  options: KeyFetchOptions,
  reasons: { unavailable: FailureReason; tooLarge: FailureReason; timeout: FailureReason; invalid: FailureReason },
  what: string,
): Promise<Fetched<unknown>> {
  try {
    const res = await options.http.request({
      url,
      headers: { Accept: 'application/did+json, application/jwk-set+json, application/json;q=0.9' },
      timeoutMs: options.timeoutMs,
      maxBytes: options.maxBytes,
      signal: options.signal,
    });
    if (res.status !== 200) return { ok: false, outcome: failed(reasons.unavailable, `${what} ${url.href} answered HTTP ${res.status}`) };
    try {
      return { ok: true, value: JSON.parse(res.body.toString('utf8')) };
    } catch {
      return { ok: false, outcome: failed(reasons.invalid, `${what} ${url.href} is not JSON`) };
    }
  } catch (error) {
    if (!isOutboundError(error)) throw error;
    if (error.code === 'BODY_TOO_LARGE')
      return { ok: false, outcome: failed(reasons.tooLarge, `${what} ${url.href} is larger than ${options.maxBytes} bytes`) };
    if (error.code === 'TIMEOUT')
      return { ok: false, outcome: failed(reasons.timeout, `${what} ${url.href} did not arrive within ${options.timeoutMs} ms`) };
    return { ok: false, outcome: failed(reasons.unavailable, `${what} ${url.href}: ${error.code}: ${error.message}`) };
  }
}

/** Resolves a did:web DID to its document; the document's `id` must be the DID itself. */
export async function resolveDidWeb(did: string, options: KeyFetchOptions): Promise<Fetched<DidDocument>> {
  const url = didWebDocumentUrl(did, options.scheme);
  const fetched = await fetchJsonDocument(
    url,
    options,
    {
      unavailable: 'did-document-unavailable',
      tooLarge: 'did-document-too-large',
      timeout: 'did-document-timeout',
      invalid: 'did-document-invalid',
    },
    'the DID document',
  );
  if (!fetched.ok) return fetched;
  const doc = fetched.value as Partial<DidDocument> | null;
  if (!doc || typeof doc !== 'object' || typeof doc.id !== 'string') {
    return { ok: false, outcome: failed('did-document-invalid', `the DID document ${url.href} has no id`) };
  }
  if (doc.id !== did)
    return { ok: false, outcome: failed('did-document-invalid', `the DID document ${url.href} is for '${doc.id}', not '${did}'`) };
  const methods = Array.isArray(doc.verificationMethod)
    ? doc.verificationMethod.filter((m): m is DidVerificationMethod => !!m && typeof m === 'object' && typeof m.id === 'string')
    : [];
  return {
    ok: true,
    value: {
      id: doc.id,
      verificationMethod: methods,
      assertionMethod: Array.isArray(doc.assertionMethod) ? doc.assertionMethod : undefined,
    },
  };
}

/** Fetches a JWKS (RFC 7517 §5): an object with a `keys` array. */
export async function fetchJwks(url: URL, options: KeyFetchOptions): Promise<Fetched<{ keys: JWK[] }>> {
  const fetched = await fetchJsonDocument(
    url,
    options,
    { unavailable: 'jwks-unavailable', tooLarge: 'jwks-unavailable', timeout: 'jwks-unavailable', invalid: 'jwks-invalid' },
    'the JWKS',
  );
  if (!fetched.ok) return fetched;
  const keys = (fetched.value as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) return { ok: false, outcome: failed('jwks-invalid', `the JWKS ${url.href} has no keys array`) };
  return { ok: true, value: { keys: keys.filter((k): k is JWK => !!k && typeof k === 'object') } };
}

/**
 * The verification method a JWS names (`kid`: the full DID URL or its `#fragment`), else the only
 * one with a JWK. A document with `assertionMethod` must also list the key there.
 */
export function selectDidKey(doc: DidDocument, kid: string | undefined): DidVerificationMethod | null {
  const withJwk = doc.verificationMethod.filter((m) => m.publicKeyJwk && typeof m.publicKeyJwk === 'object');
  const absolute = (id: string) => (id.startsWith('#') ? `${doc.id}${id}` : id);
  let method: DidVerificationMethod | undefined;
  if (kid !== undefined) method = withJwk.find((m) => absolute(m.id) === absolute(kid));
  else if (withJwk.length === 1) method = withJwk[0];
  if (!method) return null;
  if (doc.assertionMethod) {
    const listed = doc.assertionMethod.some((a) => absolute(typeof a === 'string' ? a : a.id) === absolute(method.id));
    if (!listed) return null;
  }
  return method;
}
