-- Topic labels at the scale of the ecosystem (decision 0047, docs/relevance.md "Topic labels"). The topic statement
-- compared the query with every live tag's vector: ~2 ms at the demo corpus' 769 live tags, 89-98 ms at 50,866, and
-- tags grow almost with the entries (the demo catalogs: 211 distinct tags in 100 entries, 792 in 400). Beyond
-- TOPIC_POPULATION live tags the statement reads the mean and spread of the query's cosines from a fixed sample of them
-- (the first by md5 of the tag: an order that knows nothing of what a tag means), and its candidate labels from an
-- HNSW scan of the tag vectors; at or under it, from every live tag, as before.

-- The sample: live tags in md5 order, read from the front.
CREATE INDEX facet_value_counts_live_tags_sample_idx ON facet_value_counts (md5(value)) INCLUDE (value)
  WHERE field = 'tags' AND entries > 0;

-- The tags nearest a query, for the bundled model (an embedding model switch adds its model's: src/embedding/model-switch.ts).
CREATE INDEX tag_vectors_use_lite_512_hnsw ON tag_vectors
  USING hnsw ((embedding::vector(512)) vector_cosine_ops) WITH (m = 24, ef_construction = 128)
  WHERE model = 'use-lite-512';
