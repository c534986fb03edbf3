-- Relevance (docs/relevance.md): a field-weighted document for BM25, the term statistics BM25 needs, and a
-- vocabulary of words for typo correction and prefix completion. All maintained by triggers on `entries`,
-- so every write path (ingest, crawl, tombstones, bulk SQL) keeps them exact without code of its own.

-- Field weights are tsvector weights: A = name, B = tags + capabilities, C = description.
-- Names are indexed twice, stemmed ('english') and as written ('simple'): "PagerDuty" stays 'pagerduty'.
CREATE FUNCTION ard_rank_doc(name text, description text, tags text[], capabilities text[]) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT setweight(to_tsvector('english', coalesce(name, '')), 'A')
      || setweight(to_tsvector('simple', coalesce(name, '')), 'A')
      || setweight(to_tsvector('english', coalesce(array_to_string(tags, ' '), '')), 'B')
      || setweight(to_tsvector('english', coalesce(array_to_string(
           ARRAY(SELECT regexp_replace(regexp_replace(c, '([a-z0-9])([A-Z])', '\1 \2', 'g'), '[_./-]+', ' ', 'g')
                 FROM unnest(capabilities) AS c), ' '), '')), 'B')
      || setweight(to_tsvector('english', coalesce(description, '')), 'C')
$$;

-- BM25's term frequency with field weights: name 3, tags/capabilities 2, description 1.
CREATE FUNCTION ard_weight_value(w text) RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE w WHEN 'A' THEN 3.0 WHEN 'B' THEN 2.0 WHEN 'C' THEN 1.0 ELSE 0.5 END
$$;

CREATE FUNCTION ard_doc_length(doc tsvector) RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(sum(ard_weight_value(w)), 0) FROM unnest(doc) AS u, unnest(u.weights) AS w
$$;

ALTER TABLE entries
  ADD COLUMN rank_doc tsvector,
  ADD COLUMN rank_length float8 NOT NULL DEFAULT 0,
  -- Every word as written (lower-cased, unstemmed): the vocabulary typo correction draws from.
  ADD COLUMN term_doc tsvector;

CREATE FUNCTION ard_entries_rank_doc() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.rank_doc := ard_rank_doc(NEW.display_name, NEW.description, NEW.tags, NEW.capabilities);
  NEW.rank_length := ard_doc_length(NEW.rank_doc);
  NEW.term_doc := setweight(to_tsvector('simple', NEW.display_name), 'A')
               || setweight(to_tsvector('simple', NEW.search_text), 'D');
  RETURN NEW;
END $$;

CREATE TRIGGER entries_rank_doc BEFORE INSERT OR UPDATE OF display_name, description, tags, capabilities, search_text
  ON entries FOR EACH ROW EXECUTE FUNCTION ard_entries_rank_doc();

UPDATE entries SET display_name = display_name;

CREATE INDEX entries_rank_doc_idx ON entries USING gin (rank_doc);

-- Document frequency of every rank_doc lexeme over live entries.
CREATE TABLE lexeme_stats (
  lexeme  text PRIMARY KEY,
  df      integer NOT NULL
);

-- Document frequency of every word over live entries; name_df counts the entries whose name has it.
CREATE TABLE term_stats (
  term     text PRIMARY KEY,
  df       integer NOT NULL,
  name_df  integer NOT NULL
);
CREATE INDEX term_stats_trgm_idx ON term_stats USING gin (term gin_trgm_ops);

-- One row: live entry count and the sum of their rank_length (BM25's average document length).
CREATE TABLE corpus_stats (
  singleton     boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  live_entries  bigint NOT NULL,
  total_length  float8 NOT NULL
);

INSERT INTO lexeme_stats (lexeme, df)
  SELECT l, count(*) FROM entries, unnest(tsvector_to_array(rank_doc)) AS l WHERE deleted_at IS NULL GROUP BY l;
INSERT INTO term_stats (term, df, name_df)
  SELECT u.lexeme, count(*), count(*) FILTER (WHERE 'A' = ANY (u.weights))
  FROM entries, unnest(term_doc) AS u WHERE deleted_at IS NULL GROUP BY u.lexeme;
INSERT INTO corpus_stats (live_entries, total_length)
  SELECT count(*), coalesce(sum(rank_length), 0) FROM entries WHERE deleted_at IS NULL;

-- Applies the difference between the live rows before (old_rows) and after (new_rows) a statement.
-- Statement-level with transition tables: one pass per ingest batch, not one per row. Rows are upserted
-- in key order so concurrent writers lock stats rows in the same order (no deadlock).
CREATE FUNCTION ard_apply_stats_delta() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  CREATE TEMP TABLE IF NOT EXISTS ard_stats_rows (sign int, rank_doc tsvector, term_doc tsvector, rank_length float8) ON COMMIT DROP;
  TRUNCATE ard_stats_rows;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO ard_stats_rows SELECT 1, rank_doc, term_doc, rank_length FROM new_rows WHERE deleted_at IS NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO ard_stats_rows SELECT -1, rank_doc, term_doc, rank_length FROM old_rows WHERE deleted_at IS NULL;
  END IF;

  INSERT INTO lexeme_stats AS s (lexeme, df)
    SELECT l, sum(sign) FROM ard_stats_rows, unnest(tsvector_to_array(rank_doc)) AS l
    GROUP BY l HAVING sum(sign) <> 0 ORDER BY l
  ON CONFLICT (lexeme) DO UPDATE SET df = s.df + excluded.df;

  INSERT INTO term_stats AS s (term, df, name_df)
    SELECT u.lexeme, sum(sign), sum(CASE WHEN 'A' = ANY (u.weights) THEN sign ELSE 0 END)
    FROM ard_stats_rows, unnest(term_doc) AS u
    GROUP BY u.lexeme HAVING sum(sign) <> 0 ORDER BY u.lexeme
  ON CONFLICT (term) DO UPDATE SET df = s.df + excluded.df, name_df = s.name_df + excluded.name_df;

  UPDATE corpus_stats SET
    live_entries = live_entries + (SELECT coalesce(sum(sign), 0) FROM ard_stats_rows),
    total_length = total_length + (SELECT coalesce(sum(sign * rank_length), 0) FROM ard_stats_rows);
  RETURN NULL;
END $$;

CREATE TRIGGER entries_stats_insert AFTER INSERT ON entries
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ard_apply_stats_delta();
CREATE TRIGGER entries_stats_update AFTER UPDATE ON entries
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ard_apply_stats_delta();
CREATE TRIGGER entries_stats_delete AFTER DELETE ON entries
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ard_apply_stats_delta();

-- The description embedding of the bundled model (src/embedding/entry-texts.ts) gets its own partial index.
CREATE INDEX entry_vectors_use_lite_description_hnsw ON entry_vectors
  USING hnsw ((embedding::vector(512)) vector_cosine_ops) WHERE model = 'use-lite-512' AND field = 'description';
