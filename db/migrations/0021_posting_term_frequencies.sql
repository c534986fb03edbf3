-- The exact BM25F term-frequency parts in each posting (docs/performance.md, "Where the time goes at 10k").
--
-- The retrieval statements computed their candidates' lexical signals from the entries' arrays (0007): one
-- array_position per (candidate, query lexeme), a linear scan of ~100 text elements each, after copying the
-- arrays out of their stored form. A posting now carries the term frequency in the name (tf_name) and in the
-- rest (tf_other) as the arrays hold them, so a candidate's term frequencies are one range of the primary key
-- (entry_key, lexeme), whose leaf tuples include both parts: read from the index alone, joined to the query
-- lexemes by a hash (src/search/relevance/retrieval.ts). The impact (0009) is unchanged; the trigger functions
-- write the two new columns from the same arrays.

-- ard_postings_of returns the two parts (a new row type: dropped and created again); the statement-level
-- trigger function of 0009 writes them (replaced in place: its triggers stay).
DROP FUNCTION ard_postings_of(integer, text[], real[], real[], float8);

-- Rebuilt from the entries below: an empty table takes the new NOT NULL columns and is refilled without
-- maintaining its indexes row by row.
TRUNCATE lexeme_postings;
DROP INDEX lexeme_postings_impact_idx;
ALTER TABLE lexeme_postings DROP CONSTRAINT lexeme_postings_pkey;
ALTER TABLE lexeme_postings ADD COLUMN tf_name real NOT NULL, ADD COLUMN tf_other real NOT NULL;

CREATE FUNCTION ard_postings_of(p_key integer, p_lexemes text[], p_tf_name real[], p_tf_other real[], p_length float8)
RETURNS TABLE (entry_key integer, lexeme text, impact real, tf_name real, tf_other real)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT p_key, u.lexeme, ard_posting_impact(u.tf_name, u.tf_other, p_length), u.tf_name, u.tf_other
  FROM unnest(p_lexemes, p_tf_name, p_tf_other) AS u(lexeme, tf_name, tf_other)
$$;

-- As in 0009: rows whose postings are unchanged are left alone; the others lose their old postings and get
-- the new ones.
CREATE OR REPLACE FUNCTION ard_sync_lexeme_postings() RETURNS trigger LANGUAGE plpgsql AS $$
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
    INSERT INTO lexeme_postings (entry_key, lexeme, impact, tf_name, tf_other)
      SELECT f.entry_key, f.lexeme, f.impact, f.tf_name, f.tf_other
      FROM ard_changed_postings c JOIN new_rows n ON n.facet_key = c.entry_key
      CROSS JOIN LATERAL ard_postings_of(n.facet_key, n.rank_lexemes, n.rank_tf_name, n.rank_tf_other, n.rank_length) f
      WHERE n.deleted_at IS NULL;
  ELSE
    INSERT INTO lexeme_postings (entry_key, lexeme, impact, tf_name, tf_other)
      SELECT f.entry_key, f.lexeme, f.impact, f.tf_name, f.tf_other
      FROM new_rows n CROSS JOIN LATERAL ard_postings_of(n.facet_key, n.rank_lexemes, n.rank_tf_name, n.rank_tf_other, n.rank_length) f
      WHERE n.deleted_at IS NULL;
  END IF;
  RETURN NULL;
END $$;

INSERT INTO lexeme_postings (entry_key, lexeme, impact, tf_name, tf_other)
  SELECT f.entry_key, f.lexeme, f.impact, f.tf_name, f.tf_other
  FROM entries e CROSS JOIN LATERAL ard_postings_of(e.facet_key, e.rank_lexemes, e.rank_tf_name, e.rank_tf_other, e.rank_length) f
  WHERE e.deleted_at IS NULL;

ALTER TABLE lexeme_postings ADD CONSTRAINT lexeme_postings_pkey PRIMARY KEY (entry_key, lexeme) INCLUDE (tf_name, tf_other);
CREATE INDEX lexeme_postings_impact_idx ON lexeme_postings (lexeme, impact DESC, entry_key);
