-- The index of catalog entries. Each row keeps the entry exactly as ingested (`entry`) plus the
-- columns that search, filters and ordering need. Forward-only: never edit a landed migration.
CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE entries (
  identifier    text PRIMARY KEY,
  publisher     text NOT NULL,               -- the <publisher> segment of the URN (ARD §7.1)
  type          text NOT NULL,
  display_name  text NOT NULL,
  description   text,
  version       text,
  tags          text[] NOT NULL DEFAULT '{}',
  capabilities  text[] NOT NULL DEFAULT '{}',
  entry         jsonb NOT NULL,              -- the catalog entry exactly as ingested
  host          jsonb,                       -- the manifest's host object (filterable as host.*)
  content_hash  text NOT NULL,               -- sha256 of the canonical entry + host: unchanged => no re-embed
  origin        text NOT NULL,               -- the catalog URL or file the entry came from
  fetched_at    timestamptz NOT NULL,        -- when that catalog was fetched
  created_at    timestamptz NOT NULL DEFAULT now(),  -- first indexed here
  updated_at    timestamptz NOT NULL DEFAULT now(),  -- entry.updatedAt when given, else last content change
  deleted_at    timestamptz,                 -- tombstone: gone from its catalog, hidden from reads
  search_text   text NOT NULL,               -- name, description, tags, capabilities: what lexical search reads
  -- Names weigh most; 'simple' keeps product names unstemmed ("PagerDuty" is not "pagerduti").
  search_doc    tsvector GENERATED ALWAYS AS (
                  setweight(to_tsvector('english', display_name), 'A')
                  || setweight(to_tsvector('simple', display_name), 'A')
                  || setweight(to_tsvector('english', coalesce(description, '')), 'C')
                  || setweight(to_tsvector('english', search_text), 'D')
                ) STORED
);

CREATE INDEX entries_search_doc_idx ON entries USING gin (search_doc);
CREATE INDEX entries_display_name_trgm_idx ON entries USING gin (lower(display_name) gin_trgm_ops);
CREATE INDEX entries_type_idx ON entries (type, identifier);
CREATE INDEX entries_publisher_idx ON entries (publisher, identifier);
CREATE INDEX entries_tags_idx ON entries USING gin (tags);
CREATE INDEX entries_capabilities_idx ON entries USING gin (capabilities);
CREATE INDEX entries_updated_idx ON entries (updated_at, identifier);
CREATE INDEX entries_created_idx ON entries (created_at, identifier);
CREATE INDEX entries_live_idx ON entries (identifier) WHERE deleted_at IS NULL;

-- Embeddings live beside entries, keyed by model and field, so another embedder (other dimensions)
-- can be filled in the background while the current one keeps serving.
CREATE TABLE entry_vectors (
  identifier  text NOT NULL REFERENCES entries (identifier) ON DELETE CASCADE,
  model       text NOT NULL,
  field       text NOT NULL,                 -- 'doc' (all fields together), 'name', 'description', ...
  embedding   vector NOT NULL,
  PRIMARY KEY (identifier, model, field)
);

-- Key/value settings shared by every process on this database (e.g. the page-token signing key).
CREATE TABLE registry_settings (
  key    text PRIMARY KEY,
  value  text NOT NULL
);

-- HNSW index for the bundled embedder (Universal Sentence Encoder lite, 512 dimensions). Queries must
-- use the same expression (embedding::vector(512)) and predicate for the planner to pick it. Another
-- model gets its own partial index from the re-embedding job (src/embedding).
CREATE INDEX entry_vectors_use_lite_doc_hnsw ON entry_vectors
  USING hnsw ((embedding::vector(512)) vector_cosine_ops)
  WHERE model = 'use-lite-512' AND field = 'doc';
