-- HNSW recall (issue: recall@10 of the vector index against exact search >= 0.95). The indexes of 0001 and
-- 0003 used pgvector's defaults (m = 16, ef_construction = 64). Measured with bench/search.ts's hnswRecall
-- on a 10,302-entry database (demo corpus + Alexandria copied 16x with jittered vectors, 100 labelled
-- queries, 'doc' field), recall@10 at the search path's hnsw.ef_search = 100: 0.914 with the defaults,
-- 0.978 with m = 24, ef_construction = 128 (0.990 at ef_search 200); the build took 5.4 s for 10k vectors.
-- src/embedding/model-switch.ts builds the index of another embedding model with the same options
-- (HNSW_INDEX_OPTIONS). The rebuild runs once, here; search is unavailable to this process meanwhile.
DROP INDEX IF EXISTS entry_vectors_use_lite_doc_hnsw;
CREATE INDEX entry_vectors_use_lite_doc_hnsw ON entry_vectors
  USING hnsw ((embedding::vector(512)) vector_cosine_ops) WITH (m = 24, ef_construction = 128)
  WHERE model = 'use-lite-512' AND field = 'doc';

DROP INDEX IF EXISTS entry_vectors_use_lite_description_hnsw;
CREATE INDEX entry_vectors_use_lite_description_hnsw ON entry_vectors
  USING hnsw ((embedding::vector(512)) vector_cosine_ops) WITH (m = 24, ef_construction = 128)
  WHERE model = 'use-lite-512' AND field = 'description';
