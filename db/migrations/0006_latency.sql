-- Search latency at 10k entries (docs/performance.md). Indexes for the two vocabulary lookups of
-- prepareQuery (src/search/relevance.ts, correctionsAndCompletions); nothing else changes.

-- Typo correction: the nearest vocabulary words by trigram distance (KNN, `ORDER BY term <-> word`).
-- Measured at 10,302 entries (4,197 terms), EXPLAIN (ANALYZE, BUFFERS): the similarity filter was a
-- sequential scan of term_stats, 7.3 ms per unknown word (the GIN index is slower, 17 ms: short words
-- match hundreds of postings); a GiST KNN scan stops after the nearest few.
CREATE INDEX term_stats_trgm_gist_idx ON term_stats USING gist (term gist_trgm_ops);

-- Prefix completion ("pager" -> "pagerduty"): a range scan in byte order instead of a sequential scan
-- of term_stats per typed word (0.45 ms each, 1,027 buffers for 4 words).
CREATE INDEX term_stats_prefix_idx ON term_stats (term COLLATE "C");
