-- A vector per tool (decision 0037, docs/relevance.md "Tools"): each of an entry's first TOOL_VECTORS_PER_ENTRY
-- tools (entries.tools, migration 0019) embedded on its own ("name in words: description"), per model like
-- entry_vectors. A tool's sentence is short enough for the model to read whole, where an entry's `doc` text is
-- mostly its own description; search raises a candidate's cosine toward its best tool's (TOOL_COSINE_WEIGHT).
-- Scoring only: no HNSW index, the rows are read by identifier for the candidates other retrievals found.
CREATE TABLE tool_vectors (
  identifier  text NOT NULL REFERENCES entries (identifier) ON DELETE CASCADE,
  model       text NOT NULL,
  position    integer NOT NULL,              -- the tool's index in entries.tools
  embedding   vector NOT NULL,
  PRIMARY KEY (identifier, model, position)
);
-- Rows inline, as entry_vectors' since 0007: a 512-d vector would otherwise live out of line.
ALTER TABLE tool_vectors SET (toast_tuple_target = 8160);
ALTER TABLE tool_vectors ALTER COLUMN embedding SET STORAGE MAIN;
