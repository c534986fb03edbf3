// The result of checking one entry's trust manifest (ARD v0.91 §4.5): stored per entry
// (db/migrations/0015_entry_verification.sql), filterable as `@verification`, shown by Retrieve.

export const VERIFICATION_STATES = ['verified', 'unverified', 'failed'] as const;
export type VerificationState = (typeof VERIFICATION_STATES)[number];

/** How a verified signature was checked: the key came from a did:web document or a JWKS. */
export type VerificationMethod = 'jws+did:web' | 'jws+jwks';

/** Why an entry is not verified. `unverified` reasons say nothing could be checked; `failed` ones that a check failed. */
export type UnverifiedReason = 'no-trust-manifest' | 'unsigned' | 'framework-unsupported';
export type FailureReason =
  | 'binding-mismatch'
  | 'signature-malformed'
  | 'algorithm-unsupported'
  | 'signature-invalid'
  | 'payload-mismatch'
  | 'not-canonical'
  | 'key-not-found'
  | 'key-expired'
  | 'key-revoked'
  | 'did-document-invalid'
  | 'did-document-unavailable'
  | 'did-document-too-large'
  | 'did-document-timeout'
  | 'jwks-invalid'
  | 'jwks-unavailable'
  | 'jwks-off-domain';

export type VerificationOutcome =
  | { state: 'verified'; reason: null; method: VerificationMethod; detail: string }
  | { state: 'unverified'; reason: UnverifiedReason; method: null; detail: string }
  | { state: 'failed'; reason: FailureReason; method: VerificationMethod | null; detail: string };

export function verified(method: VerificationMethod, detail: string): VerificationOutcome {
  return { state: 'verified', reason: null, method, detail };
}

export function unverified(reason: UnverifiedReason, detail: string): VerificationOutcome {
  return { state: 'unverified', reason, method: null, detail };
}

export function failed(reason: FailureReason, detail: string, method: VerificationMethod | null = null): VerificationOutcome {
  return { state: 'failed', reason, method, detail };
}
