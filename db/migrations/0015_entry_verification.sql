-- The outcome of checking each entry's trust manifest (ARD v0.91 §4.5, src/trust/): written by the
-- registry, never by a publisher, so the entry itself stays exactly as published. One row per entry,
-- for the content it was computed on (`content_hash`): an entry whose hash no longer matches, or whose
-- `next_check_at` has passed (keys rotate and are revoked), is checked again by the trust upkeep.
-- An entry without a row counts as 'unverified': not checked yet, or without a trust manifest (such an
-- entry gets no row; the partial index below lets the upkeep find the few entries that have one).
CREATE TABLE entry_verification (
  identifier text PRIMARY KEY REFERENCES entries (identifier) ON DELETE CASCADE,
  content_hash text NOT NULL,
  state text NOT NULL CHECK (state IN ('verified', 'unverified', 'failed')),
  reason text,
  method text,
  detail text NOT NULL DEFAULT '',
  checked_at timestamptz NOT NULL,
  next_check_at timestamptz NOT NULL
);

CREATE INDEX entry_verification_next_check ON entry_verification (next_check_at);

CREATE INDEX entries_with_trust_manifest ON entries (identifier) WHERE deleted_at IS NULL AND entry ? 'trustManifest';
