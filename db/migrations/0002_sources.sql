-- Web ingestion (ARD §6): the sources the crawler re-visits, and the provenance of each entry.
-- Forward-only: never edit a landed migration.
CREATE TABLE sources (
  id                bigserial PRIMARY KEY,
  location          text NOT NULL UNIQUE,        -- as registered, normalised: a domain ('acme.com') or an http(s) URL
  trusted           boolean NOT NULL DEFAULT false, -- true: the identifier-ownership rule is not applied (mirrors, aggregators)
  interval_seconds  integer NOT NULL CHECK (interval_seconds > 0),
  next_crawl_at     timestamptz NOT NULL DEFAULT now(),
  -- A crawl in progress holds a lease; another process skips the source until it ends or expires
  -- (a crashed process never blocks a source for longer than the lease).
  lease_until       timestamptz,
  catalog_url       text,                        -- the catalog URL discovery last found
  discovered_via    text,                        -- 'url' | 'ard.json' | 'well-known' | 'agentmap' | 'html-link'
  -- Conditional-request validators per fetched catalog URL: {"<url>": {"etag": "...", "lastModified": "..."}}
  validators        jsonb NOT NULL DEFAULT '{}',
  etag              text,                        -- the root catalog's ETag (also in validators), for operators
  last_modified     text,                        -- the root catalog's Last-Modified
  last_crawl_at     timestamptz,
  last_status       text,                        -- 'ok' | 'not-modified' | 'partial' | 'failed'
  last_http_status  integer,
  last_error        text,
  last_report       jsonb,                       -- counts, documents, rejected entries with reasons
  created_at        timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX sources_due_idx ON sources (next_crawl_at);

-- Which source an entry came from (null: a file given to `ard-registry ingest`, the demo corpus).
-- `origin` already holds the catalog URL and `fetched_at` the fetch time.
ALTER TABLE entries ADD COLUMN source_id bigint REFERENCES sources (id) ON DELETE SET NULL;
CREATE INDEX entries_source_idx ON entries (source_id, identifier) WHERE source_id IS NOT NULL;
