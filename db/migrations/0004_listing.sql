-- GET /agents keyset ordering (src/listing/list-agents.ts): each sortable field's expression with
-- identifier as the tie-breaker, over live entries, so a page is an index range scan from the
-- token's key at any depth. type, publisher, created_at and updated_at have (column, identifier)
-- indexes from 0001; identifier alone has the primary key.
CREATE INDEX entries_list_name_idx ON entries (lower(display_name), identifier) WHERE deleted_at IS NULL;
CREATE INDEX entries_list_version_idx ON entries ((coalesce(version, '')), identifier) WHERE deleted_at IS NULL;
