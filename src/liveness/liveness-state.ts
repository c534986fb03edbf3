// An entry's liveness: whether what it lists answers (docs/liveness.md). Stored per entry
// (db/migrations/0016_entry_liveness.sql), filterable and a facet as `@liveness`, shown by Retrieve in the
// Registry-Liveness header, and read by search's entry-state adjustment.

/**
 * live: the last probe succeeded. unreachable: it failed, for less than LIVENESS_DEAD_AFTER_SECONDS. dead:
 * failing for at least that long. no-remote-endpoint: nothing to probe (a stdio-only MCP server, an entry
 * with neither a URL nor a remote). unknown: not probed since the entry last changed, or a transport the
 * probes do not speak.
 */
export const LIVENESS_STATES = ['live', 'unreachable', 'dead', 'no-remote-endpoint', 'unknown'] as const;
export type LivenessState = (typeof LIVENESS_STATES)[number];

/** The states whose entries search ranks below live ones doing the same job (LIVENESS_DEMOTION). */
export const FAILING_STATES: readonly LivenessState[] = ['unreachable', 'dead'];

/** What a probe does: the MCP handshake, read an A2A agent card, or see that a URL answers. */
export type ProbeKind = 'mcp-initialize' | 'a2a-card' | 'url' | 'none';

/** Why a probe failed (`last_failure_reason`), or why there is nothing to probe. */
export type ProbeFailureReason =
  | 'timeout'
  | 'network'
  | 'blocked-address'
  | 'http-status'
  | 'too-large'
  | 'too-many-redirects'
  | 'invalid-url'
  | 'mcp-handshake-failed'
  | 'card-invalid-json'
  | 'card-missing-fields';
export type NoProbeReason = 'stdio-only' | 'no-url' | 'transport-unsupported';

export type ProbeOutcome =
  { ok: true; latencyMs: number; detail: string } | { ok: false; reason: ProbeFailureReason; latencyMs: number; detail: string };

/** The outcome counted by /metrics: success, a failure's reason, or why nothing was probed. */
export type ProbeCountOutcome = 'success' | ProbeFailureReason | NoProbeReason;

/** Receives one count per entry probed (the context feeds /metrics); the domain knows no metrics library. */
export interface ProbeCounter {
  count(probe: ProbeKind, outcome: ProbeCountOutcome): void;
}
