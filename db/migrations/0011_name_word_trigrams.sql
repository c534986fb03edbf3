-- Typo correction of two adjacent query words that together are one edit from a product-name word
-- ("cockroch db" -> "cockroachdb", src/search/relevance.ts correctionsAndCompletions): the nearest
-- *name* words by trigram distance. On the whole-vocabulary GiST index (0006) the KNN scan filters
-- name_df > 0 row by row: 2.7 ms per lookup at 10,302 entries (4,197 terms, 1,052 of them name words);
-- on this partial index 0.57 ms. term_stats' triggers keep name_df, so the index follows ingestion.
CREATE INDEX term_stats_name_trgm_gist_idx ON term_stats USING gist (term gist_trgm_ops) WHERE name_df > 0;
