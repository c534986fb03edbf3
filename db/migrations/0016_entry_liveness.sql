-- Whether each entry's remote endpoint answers (src/liveness/, docs/liveness.md): written by the registry's
-- probes, never by a publisher, so the entry itself stays exactly as published. One row per entry, for the
-- content it was probed on (`content_hash`): an entry whose hash no longer matches is probed again first,
-- and counts as 'unknown' until then, as does an entry without a row.
-- `failing_since` is the first failure of the current run of failures (the entry is 'dead' once it has
-- lasted LIVENESS_DEAD_AFTER_SECONDS); `dead_since` is when it became 'dead' (search leaves it out once
-- that is LIVENESS_DROP_AFTER_SECONDS ago).
CREATE TABLE entry_liveness (
  identifier text PRIMARY KEY REFERENCES entries (identifier) ON DELETE CASCADE,
  content_hash text NOT NULL,
  state text NOT NULL CHECK (state IN ('live', 'unreachable', 'dead', 'no-remote-endpoint', 'unknown')),
  probe text NOT NULL CHECK (probe IN ('mcp-initialize', 'a2a-card', 'url', 'none')),
  target text,
  reason text,
  detail text NOT NULL DEFAULT '',
  latency_ms integer,
  last_success_at timestamptz,
  last_failure_at timestamptz,
  last_failure_reason text,
  failing_since timestamptz,
  dead_since timestamptz,
  checked_at timestamptz NOT NULL,
  next_probe_at timestamptz NOT NULL
);

CREATE INDEX entry_liveness_next_probe ON entry_liveness (next_probe_at);
