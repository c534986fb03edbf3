-- Topic labels (src/search/relevance.ts topicLabels) read every live tag's vector once per query: the
-- second most frequent statement of a search. Measured at 10,302 entries (884 tag vectors, 769 live tags,
-- docs/performance.md "Session 7"): 6.9 ms median, of which 2.5 ms detoasting the vectors and ~3 ms a
-- sequential read of facet_value_counts (ingestion's count updates leave it at ~640 pages for ~5,700 rows).
-- Now 2.4 ms. The labels themselves do not change.

-- 1. tag_vectors rows inline, as entry_vectors' since 0007: a 512-d vector (2,056 bytes) pushes a row over
-- the 2 kB TOAST threshold, so each vector was read through the TOAST index (~3.4 buffers per tag, 1 now).
ALTER TABLE tag_vectors SET (toast_tuple_target = 8160);
ALTER TABLE tag_vectors ALTER COLUMN embedding SET STORAGE MAIN;
-- Rows keep their TOAST pointers until rewritten with new values (the same floats, the same tag).
UPDATE tag_vectors SET embedding = embedding::real[]::vector, tag = tag || '';

-- 2. The live tags (some live entry holds them) as a small partial index, read index-only, instead of a
-- sequential read of every facet value of every field.
CREATE INDEX facet_value_counts_live_tags_idx ON facet_value_counts (value) WHERE field = 'tags' AND entries > 0;
