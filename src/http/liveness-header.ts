// An entry's liveness (src/liveness/, docs/liveness.md), sent beside the retrieved entry so the entry itself
// stays exactly as published, as an RFC 8941 dictionary (docs/api.md "Registry extensions"):
// `Registry-Liveness: state=live, probe=mcp-initialize, latency-ms=42, last-success="<ISO 8601>", checked="<ISO 8601>"`.
import type { StoredLiveness } from '../liveness';

export const LIVENESS_HEADER = 'Registry-Liveness';

/** The header value; `state=unknown, reason=pending` when the entry has not been probed since it last changed. */
export function livenessHeaderValue(liveness: StoredLiveness | null): string {
  if (!liveness) return 'state=unknown, reason=pending';
  const parts = [`state=${liveness.state}`, `probe=${liveness.probe}`];
  if (liveness.reason) parts.push(`reason=${liveness.reason}`);
  if (liveness.state === 'live' && liveness.latencyMs !== null) parts.push(`latency-ms=${liveness.latencyMs}`);
  if (liveness.lastSuccessAt) parts.push(`last-success="${liveness.lastSuccessAt.toISOString()}"`);
  if (liveness.lastFailureAt) parts.push(`last-failure="${liveness.lastFailureAt.toISOString()}"`);
  if (liveness.failingSince) parts.push(`failing-since="${liveness.failingSince.toISOString()}"`);
  parts.push(`checked="${liveness.checkedAt.toISOString()}"`);
  return parts.join(', ');
}
