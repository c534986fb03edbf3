// The trust check of a retrieved entry (ARD v0.91 §4.5.2), sent beside it so the entry itself stays
// exactly as published: `Registry-Verification: state=verified, method=jws+did:web, checked="<ISO 8601>"`,
// an RFC 8941 dictionary (docs/api.md "Registry extensions").
import type { StoredVerification } from '../trust';

export const VERIFICATION_HEADER = 'Registry-Verification';

/**
 * The header value; without a stored check, `reason=no-trust-manifest` (nothing to check) or
 * `reason=pending` (not checked since the entry last changed).
 */
export function verificationHeaderValue(verification: StoredVerification | null, hasTrustManifest: boolean): string {
  if (!verification) return `state=unverified, reason=${hasTrustManifest ? 'pending' : 'no-trust-manifest'}`;
  const parts = [`state=${verification.state}`];
  if (verification.method) parts.push(`method=${verification.method}`);
  if (verification.reason) parts.push(`reason=${verification.reason}`);
  parts.push(`checked="${verification.checkedAt.toISOString()}"`);
  return parts.join(', ');
}
