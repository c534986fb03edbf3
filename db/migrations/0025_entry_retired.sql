-- An entry's own word that it is retired (docs/relevance.md "Pipeline" step 10, decision 0033): "archived" or "deprecated"
-- in its display name, at the opening of its description, or a true `metadata.archived` / `metadata.deprecated`,
-- kept beside the entry. Search reads it for every matched entry of every query (entry-state-adjustment.ts); reading
-- the flags out of `entry` at query time decompressed each entry once per query: ~5 of the statement's ~8 ms for 300
-- matches at 10k entries, where a lookup in the partial index below finds the retired ones among them without reading
-- an entry (docs/performance.md "Where the time goes at 10k").
CREATE FUNCTION ard_retired(display_name text, description text, entry jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(display_name ~* '\m(archived|deprecated)\M', false)
      OR coalesce(description ~* '^\W*(archived|deprecated)\M', false)
      OR coalesce(lower(entry #>> '{metadata,archived}') = 'true', false)
      OR coalesce(lower(entry #>> '{metadata,deprecated}') = 'true', false)
$$;

-- Filled for the existing rows while the table is rewritten, without firing row triggers.
ALTER TABLE entries ADD COLUMN retired boolean GENERATED ALWAYS AS (ard_retired(display_name, description, entry)) STORED;
CREATE INDEX entries_retired_idx ON entries (identifier) WHERE retired;
