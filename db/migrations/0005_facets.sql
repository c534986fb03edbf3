-- POST /explore facets (docs/api-listing.md). Two tables maintained by triggers on `entries`, so every
-- write path (ingest, crawl, tombstones, revival, deletes, bulk SQL) keeps them exact inside its own
-- transaction, without code of its own:
--   entry_facet_values   one row per distinct (live entry, facet field, value): a text query
--                        joins its matched entries to it; otherCount counts the entries behind its rows;
--   facet_value_counts   live entries per (field, value): a whole-registry facet reads O(values) rows.
-- Fields not held here (identifier, displayName, description, deeper JSON paths) are computed from
-- `entries` by src/search/explore-service.ts (the generic path).
--
-- The values are read exactly as src/search/query-filter.ts fieldValuesArraySql reads them (the generic
-- path), so the two give the same buckets:
--   type, publisher, version          the column (NULL: no value)
--   tags, capabilities                each element of the column (NULL elements: none)
--   trustManifest.attestations.type   jsonb_path_query(entry, '$."trustManifest"."attestations"."type"[*]'), scalars only
--   metadata.<key>                    entry -> 'metadata' ->> key (text form of whatever is there; JSON null: none)
--   host.<key>                        jsonb_path_query(host, '$."<key>"[*]'), scalars only
-- Only keys that are valid field-path segments (query-filter.ts SEGMENT) are kept: another key could
-- never be asked for, and one with a dot would collide with a deeper path.
--
-- The count rows are shared by every writer (the `type` counts by all of them), like corpus_stats
-- (0003) already is: concurrent ingest transactions queue on them, they do not deadlock (key order).

-- Text form of the field values of one entry, distinct (an entry tagged `a` twice counts once).
CREATE FUNCTION ard_facet_values(p_type text, p_publisher text, p_version text, p_tags text[], p_capabilities text[],
                                 p_entry jsonb, p_host jsonb)
RETURNS TABLE (field text, value text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT DISTINCT f.field, f.value FROM (
    SELECT 'type', p_type
    UNION ALL SELECT 'publisher', p_publisher
    UNION ALL SELECT 'version', p_version
    UNION ALL SELECT 'tags', t FROM unnest(p_tags) AS t
    UNION ALL SELECT 'capabilities', c FROM unnest(p_capabilities) AS c
    UNION ALL SELECT 'trustManifest.attestations.type', j #>> '{}'
      FROM jsonb_path_query(p_entry, '$."trustManifest"."attestations"."type"[*]') AS j
      WHERE jsonb_typeof(j) IN ('string', 'number', 'boolean')
    UNION ALL SELECT 'metadata.' || m.key, m.value
      FROM jsonb_each_text(CASE WHEN jsonb_typeof(p_entry -> 'metadata') = 'object' THEN p_entry -> 'metadata' END) AS m
      WHERE m.key ~ '^[A-Za-z_@$][A-Za-z0-9_@$-]*$'
    UNION ALL SELECT 'host.' || h.key, j #>> '{}'
      FROM jsonb_each(CASE WHEN jsonb_typeof(p_host) = 'object' THEN p_host END) AS h,
           jsonb_path_query(h.value, '$[*]') AS j
      WHERE h.key ~ '^[A-Za-z_@$][A-Za-z0-9_@$-]*$' AND jsonb_typeof(j) IN ('string', 'number', 'boolean')
  ) AS f (field, value)
  WHERE f.value IS NOT NULL
$$;

-- A small integer per entry, for the facet table: counting the distinct entries behind many rows
-- (otherCount) hashes and sorts integers; on text identifiers the same count took 3-4x longer
-- (295k rows at 100k entries: ~100-170 ms against 370-540 ms on the shared 2-core machine).
ALTER TABLE entries ADD COLUMN facet_key integer GENERATED ALWAYS AS IDENTITY;
CREATE UNIQUE INDEX entries_facet_key_idx ON entries (facet_key);

CREATE TABLE entry_facet_values (
  field       text NOT NULL,                 -- a facet field path: 'tags', 'metadata.category', 'host.displayName'
  value       text NOT NULL,
  entry_key   integer NOT NULL,              -- entries.facet_key of a live entry (no foreign key: the triggers keep it exact)
  PRIMARY KEY (field, value, entry_key)
);
-- A text query's matched entries' values, and deletes by entry.
CREATE INDEX entry_facet_values_entry_idx ON entry_facet_values (entry_key, field, value);

-- Whole-registry counts: the number of live entries per (field, value), i.e. the rows of
-- entry_facet_values per (field, value). Reading them is O(distinct values); grouping the rows
-- instead (index-only scan) took 50-300 ms for `tags` alone at 100k entries (394k rows).
-- A count that falls to 0 stays as a row (readers ask for count >= minCount >= 1); deleting it
-- would lock rows out of key order.
CREATE TABLE facet_value_counts (
  field    text NOT NULL,
  value    text NOT NULL,
  entries  integer NOT NULL,
  PRIMARY KEY (field, value)
);

INSERT INTO entry_facet_values (field, value, entry_key)
  SELECT f.field, f.value, e.facet_key
  FROM entries e, ard_facet_values(e.type, e.publisher, e.version, e.tags, e.capabilities, e.entry, e.host) AS f
  WHERE e.deleted_at IS NULL;
INSERT INTO facet_value_counts (field, value, entries)
  SELECT field, value, count(*) FROM entry_facet_values GROUP BY field, value;
ANALYZE entry_facet_values;
ANALYZE facet_value_counts;

-- Statement-level with transition tables: one pass per ingest batch. Writes only the difference
-- between the rows' values before and after (a tombstone deletes them all, a revival adds them back,
-- a re-fetch with unchanged content writes nothing), and the counts from the rows actually deleted
-- and inserted, in key order so concurrent writers lock count rows in the same order (no deadlock).
-- Runs inside the writer's transaction: the table is consistent with `entries` by construction.
CREATE FUNCTION ard_sync_facet_values() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  CREATE TEMP TABLE IF NOT EXISTS ard_facet_rows (sign int, entry_key int, field text, value text) ON COMMIT DROP;
  TRUNCATE ard_facet_rows;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO ard_facet_rows SELECT -1, r.facet_key, f.field, f.value
      FROM old_rows r, ard_facet_values(r.type, r.publisher, r.version, r.tags, r.capabilities, r.entry, r.host) AS f
      WHERE r.deleted_at IS NULL;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO ard_facet_rows SELECT 1, r.facet_key, f.field, f.value
      FROM new_rows r, ard_facet_values(r.type, r.publisher, r.version, r.tags, r.capabilities, r.entry, r.host) AS f
      WHERE r.deleted_at IS NULL;
  END IF;

  WITH diff AS (
    SELECT entry_key, field, value, sum(sign) AS change FROM ard_facet_rows
    GROUP BY entry_key, field, value HAVING sum(sign) <> 0
  ), gone AS (
    DELETE FROM entry_facet_values v USING diff d
    WHERE d.change < 0 AND v.entry_key = d.entry_key AND v.field = d.field AND v.value = d.value
    RETURNING v.field, v.value
  ), added AS (
    INSERT INTO entry_facet_values (field, value, entry_key)
      SELECT d.field, d.value, d.entry_key FROM diff d WHERE d.change > 0
    ON CONFLICT DO NOTHING
    RETURNING field, value
  )
  INSERT INTO facet_value_counts AS c (field, value, entries)
    SELECT t.field, t.value, sum(t.delta)
    FROM (SELECT field, value, -1 AS delta FROM gone UNION ALL SELECT field, value, 1 FROM added) AS t
    GROUP BY t.field, t.value HAVING sum(t.delta) <> 0 ORDER BY t.field, t.value
  ON CONFLICT (field, value) DO UPDATE SET entries = c.entries + excluded.entries;
  RETURN NULL;
END $$;

CREATE TRIGGER entries_facets_insert AFTER INSERT ON entries
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ard_sync_facet_values();
CREATE TRIGGER entries_facets_update AFTER UPDATE ON entries
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ard_sync_facet_values();
CREATE TRIGGER entries_facets_delete AFTER DELETE ON entries
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ard_sync_facet_values();

-- TRUNCATE fires no row or transition-table trigger: empty the table with it.
CREATE FUNCTION ard_truncate_facet_values() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE entry_facet_values, facet_value_counts;
  RETURN NULL;
END $$;

CREATE TRIGGER entries_facets_truncate AFTER TRUNCATE ON entries
  FOR EACH STATEMENT EXECUTE FUNCTION ard_truncate_facet_values();
