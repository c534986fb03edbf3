-- Search retrieves candidates through the `doc` vectors' HNSW index only (VECTOR_RETRIEVAL_FIELDS); the
-- `description` vectors score candidates by identifier. Their HNSW index cost every write its inserts (3-4 ms per
-- entry, ~10 % of an entry's ingest) and served no query search sends (decision 0035).
DROP INDEX IF EXISTS entry_vectors_use_lite_description_hnsw;
