-- Impact-ordered postings for the lexical retrieval (docs/performance.md, "bounded lexical retrieval").
--
-- Before: the lexical retrieval took every live entry whose rank_doc matched any of the query's retrieval
-- lexemes (GIN bitmap scan, 1,000-4,000 rows at 10k entries for queries of common words), ranked all of
-- them with ts_rank (which detoasts every rank_doc) and kept the top 300. Now each retrieval lexeme reads
-- at most its best CANDIDATES_PER_SIGNAL postings from this table, in impact order, from the index alone;
-- the entries are ranked by the sum over query concepts of weight x IDF x impact (BM25 with a nominal
-- average length) and the top 300 become candidates, whose exact lexical signal is then computed as before
-- from the entries' term-frequency arrays (0007). The table is derived: one row per (live entry, rank_doc
-- lexeme), kept in step with `entries` by the statement-level trigger below, inside the writer's transaction.

-- BM25F saturation of one lexeme in one entry (relevance.ts saturation()) with a fixed average document
-- length: the order of a lexeme's postings must not depend on the corpus of the moment, so the index
-- stays valid as entries come and go. 64 is about the average rank_length of the shipped corpus (62.9)
-- and of the 10k benchmark database (74.2); it only orders candidates, it never reaches a score.
CREATE FUNCTION ard_posting_impact(tf_name real, tf_other real, doc_length float8) RETURNS real
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (t / (t + 1.2))::real FROM (SELECT tf_name + tf_other / (0.25 + 0.75 * doc_length / 64.0) AS t) s
$$;

CREATE TABLE lexeme_postings (
  entry_key  integer NOT NULL,
  lexeme     text NOT NULL,
  impact     real NOT NULL,
  PRIMARY KEY (entry_key, lexeme)
);
-- The retrieval's scan: one lexeme's postings, best first, answered from the index alone.
CREATE INDEX lexeme_postings_impact_idx ON lexeme_postings (lexeme, impact DESC, entry_key);

-- The postings of a set of entry rows (their live ones).
CREATE FUNCTION ard_postings_of(p_key integer, p_lexemes text[], p_tf_name real[], p_tf_other real[], p_length float8)
RETURNS TABLE (entry_key integer, lexeme text, impact real)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT p_key, u.lexeme, ard_posting_impact(u.tf_name, u.tf_other, p_length)
  FROM unnest(p_lexemes, p_tf_name, p_tf_other) AS u(lexeme, tf_name, tf_other)
$$;

-- Rows whose postings are unchanged (same live state, same arrays, same length: a re-fetch of the same
-- content, a provenance or timestamp update) are left alone; the others lose their old postings and get
-- the new ones. Each entry's postings are written only by the writer holding that entry's row lock.
CREATE FUNCTION ard_sync_lexeme_postings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM lexeme_postings p USING old_rows o WHERE p.entry_key = o.facet_key AND o.deleted_at IS NULL;
  ELSIF TG_OP = 'UPDATE' THEN
    CREATE TEMP TABLE IF NOT EXISTS ard_changed_postings (entry_key integer) ON COMMIT DROP;
    TRUNCATE ard_changed_postings;
    INSERT INTO ard_changed_postings
      SELECT o.facet_key FROM old_rows o JOIN new_rows n ON n.facet_key = o.facet_key
      WHERE (o.deleted_at IS NULL) IS DISTINCT FROM (n.deleted_at IS NULL)
         OR o.rank_lexemes IS DISTINCT FROM n.rank_lexemes OR o.rank_tf_name IS DISTINCT FROM n.rank_tf_name
         OR o.rank_tf_other IS DISTINCT FROM n.rank_tf_other OR o.rank_length IS DISTINCT FROM n.rank_length;
    DELETE FROM lexeme_postings p USING ard_changed_postings c WHERE p.entry_key = c.entry_key;
    INSERT INTO lexeme_postings (entry_key, lexeme, impact)
      SELECT f.entry_key, f.lexeme, f.impact
      FROM ard_changed_postings c JOIN new_rows n ON n.facet_key = c.entry_key
      CROSS JOIN LATERAL ard_postings_of(n.facet_key, n.rank_lexemes, n.rank_tf_name, n.rank_tf_other, n.rank_length) f
      WHERE n.deleted_at IS NULL;
  ELSE
    INSERT INTO lexeme_postings (entry_key, lexeme, impact)
      SELECT f.entry_key, f.lexeme, f.impact
      FROM new_rows n CROSS JOIN LATERAL ard_postings_of(n.facet_key, n.rank_lexemes, n.rank_tf_name, n.rank_tf_other, n.rank_length) f
      WHERE n.deleted_at IS NULL;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER entries_postings_insert AFTER INSERT ON entries
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ard_sync_lexeme_postings();
CREATE TRIGGER entries_postings_update AFTER UPDATE ON entries
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ard_sync_lexeme_postings();
CREATE TRIGGER entries_postings_delete AFTER DELETE ON entries
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ard_sync_lexeme_postings();

CREATE FUNCTION ard_truncate_lexeme_postings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE lexeme_postings;
  RETURN NULL;
END $$;
CREATE TRIGGER entries_postings_truncate AFTER TRUNCATE ON entries
  FOR EACH STATEMENT EXECUTE FUNCTION ard_truncate_lexeme_postings();

INSERT INTO lexeme_postings (entry_key, lexeme, impact)
  SELECT f.entry_key, f.lexeme, f.impact
  FROM entries e CROSS JOIN LATERAL ard_postings_of(e.facet_key, e.rank_lexemes, e.rank_tf_name, e.rank_tf_other, e.rank_length) f
  WHERE e.deleted_at IS NULL;
