-- Search latency at 10k entries, second step (docs/performance.md): how the two per-candidate signals of
-- rankSignals (src/search/relevance.ts) read their data. The ranking itself does not change.

-- 1. Rows of entry_vectors inline. pgvector declares `vector` with EXTERNAL storage, and a 512-d vector
-- (2,056 bytes) pushes a row over the 2 kB TOAST threshold, so every vector lived out of line: the
-- per-candidate cosine read ~6 buffers (TOAST index + chunks) instead of 1. MAIN storage alone is not
-- enough: the toaster then moves the row's *identifier* out of line instead (measured: one TOAST chunk per
-- row). toast_tuple_target = 8160 (the maximum) toasts a row only when it would not fit a page at all, and
-- MAIN makes the vector the last thing to move then (vectors of ~2,000+ dimensions).
ALTER TABLE entry_vectors SET (toast_tuple_target = 8160);
ALTER TABLE entry_vectors ALTER COLUMN embedding SET STORAGE MAIN;
-- Existing rows keep their TOAST pointers until rewritten with new values (the same floats through real[],
-- the same identifier): those are stored inline. The HNSW indexes take the new row versions as usual.
UPDATE entry_vectors SET embedding = embedding::real[]::vector, identifier = identifier || '';

-- 2. BM25 term frequencies per entry, precomputed. rankSignals computed them per candidate by expanding the
-- whole rank_doc and summing each matched lexeme's weights in two subqueries (~0.03 ms x 400-450
-- candidates at 10k entries). Now three aligned arrays: the lexemes of rank_doc in tsvector order,
-- the name part of the term frequency (weight A = 3 per occurrence) and the rest (B = 2, C = 1, D = 0.5),
-- so a query lexeme costs one array_position() per candidate.
ALTER TABLE entries
  ADD COLUMN rank_lexemes text[] NOT NULL DEFAULT '{}',
  ADD COLUMN rank_tf_name real[] NOT NULL DEFAULT '{}',
  ADD COLUMN rank_tf_other real[] NOT NULL DEFAULT '{}';

CREATE FUNCTION ard_rank_tf(doc tsvector, OUT lexemes text[], OUT tf_name real[], OUT tf_other real[])
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(u.lexeme ORDER BY u.lexeme), '{}'),
         coalesce(array_agg(coalesce(w.name, 0)::real ORDER BY u.lexeme), '{}'),
         coalesce(array_agg(coalesce(w.other, 0)::real ORDER BY u.lexeme), '{}')
  FROM unnest(doc) AS u
  CROSS JOIN LATERAL (
    SELECT sum(ard_weight_value(x)) FILTER (WHERE x = 'A') AS name,
           sum(ard_weight_value(x)) FILTER (WHERE x <> 'A') AS other
    FROM unnest(u.weights) AS x) w
$$;

-- The trigger of 0003, now also filling the arrays from the rank_doc it computes.
CREATE OR REPLACE FUNCTION ard_entries_rank_doc() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.rank_doc := ard_rank_doc(NEW.display_name, NEW.description, NEW.tags, NEW.capabilities);
  NEW.rank_length := ard_doc_length(NEW.rank_doc);
  NEW.term_doc := setweight(to_tsvector('simple', NEW.display_name), 'A')
               || setweight(to_tsvector('simple', NEW.search_text), 'D');
  SELECT t.lexemes, t.tf_name, t.tf_other INTO NEW.rank_lexemes, NEW.rank_tf_name, NEW.rank_tf_other
  FROM ard_rank_tf(NEW.rank_doc) AS t;
  RETURN NEW;
END $$;

-- Backfill without firing the triggers' work a second time: rank_doc is already right.
UPDATE entries e SET rank_lexemes = t.lexemes, rank_tf_name = t.tf_name, rank_tf_other = t.tf_other
FROM entries s CROSS JOIN LATERAL ard_rank_tf(s.rank_doc) AS t
WHERE s.identifier = e.identifier;
