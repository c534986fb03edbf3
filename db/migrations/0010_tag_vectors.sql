-- Topic labels (docs/relevance.md, "Topic labels (relevance6)"): one embedding per distinct tag and model.
-- A query's embedding is compared with every live tag's (a tag some live entry holds: facet_value_counts,
-- 0005); the tags that stand out from the rest (z-score) mark the query's topic, and the entries holding
-- them rank higher. Rows are keyed by the tag's text and never go stale (the text is the whole input), so
-- they are only added: by ingestion for the tags it brings, and by src/embedding/tag-vectors.ts
-- fillTagVectors at start and before an embedding model switch. A tag no live entry holds is skipped by
-- the join with facet_value_counts.
CREATE TABLE tag_vectors (
  model      text NOT NULL,
  tag        text NOT NULL,
  embedding  vector NOT NULL,
  PRIMARY KEY (model, tag)
);
