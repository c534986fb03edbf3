// Row types of the tables in db/migrations. Kysely reads them; repositories map rows to API types.
import type { ColumnType, Generated, Selectable } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface EntriesTable {
  identifier: string;
  publisher: string;
  type: string;
  display_name: string;
  description: string | null;
  version: string | null;
  tags: string[];
  capabilities: string[];
  entry: ColumnType<unknown, string, string>;
  host: ColumnType<unknown, string | null, string | null>;
  content_hash: string;
  origin: string;
  fetched_at: Timestamp;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
  deleted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  search_text: string;
  search_doc: ColumnType<string, never, never>;
  /** The product glossary's glosses for the entry (src/catalog/product-glossary.ts, migration 0013); '' when none. */
  gloss: ColumnType<string, string | undefined, string>;
  /** The entry's tools with their descriptions, from its card (src/catalog/entry-tools.ts, migration 0019); [] when none. */
  tools: ColumnType<unknown, string | undefined, string>;
  /** The crawl source the entry came from; null for files and the demo corpus. */
  source_id: ColumnType<string | null, string | number | null | undefined, string | number | null>;
  /** Maintained by a trigger (db/migrations/0003_relevance.sql). */
  rank_doc: ColumnType<string, never, never>;
  rank_length: ColumnType<number, never, never>;
  term_doc: ColumnType<string, never, never>;
  /** A small integer key for the facet tables (db/migrations/0005_facets.sql); an identity column. */
  facet_key: ColumnType<number, never, never>;
  /** The peer (base URL) this entry is mirrored from (PEERS_MIRROR); null for own entries (migration 0017). */
  mirror_peer: ColumnType<string | null, string | null | undefined, string | null>;
  /** Position in the change feed, set by a trigger on every write (db/migrations/0017_change_feed.sql); a bigint, read as text. */
  change_seq: ColumnType<string, never, never>;
  /** The fields that make two entries the same product, generated from `entry` (db/migrations/0018_product_fields.sql). */
  product_fields: ColumnType<unknown, never, never>;
  /** The entry says it is archived or deprecated, generated from its name, description and metadata (db/migrations/0025_entry_retired.sql). */
  retired: ColumnType<boolean, never, never>;
}

export interface SourcesTable {
  id: ColumnType<string, never, never>;
  location: string;
  trusted: ColumnType<boolean, boolean | undefined, boolean>;
  interval_seconds: number;
  next_crawl_at: ColumnType<Date, Date | string | undefined, Date | string>;
  lease_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  catalog_url: string | null;
  discovered_via: string | null;
  validators: ColumnType<Record<string, { etag?: string; lastModified?: string }>, string | undefined, string>;
  etag: string | null;
  last_modified: string | null;
  last_crawl_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  last_status: string | null;
  last_http_status: number | null;
  last_error: string | null;
  last_report: ColumnType<unknown, string | null | undefined, string | null>;
  created_at: ColumnType<Date, Date | string | undefined, never>;
}

export interface EntryVectorsTable {
  identifier: string;
  model: string;
  field: string;
  embedding: ColumnType<string, string, string>;
}

export interface ToolVectorsTable {
  identifier: string;
  model: string;
  /** The tool's index in entries.tools. */
  position: number;
  embedding: ColumnType<string, string, string>;
}

export interface TagVectorsTable {
  model: string;
  tag: string;
  embedding: ColumnType<string, string, string>;
}

export interface RegistrySettingsTable {
  key: string;
  value: string;
}

export interface SchemaMigrationsTable {
  name: string;
  applied_at: Generated<Date>;
}

export interface LexemeStatsTable {
  lexeme: string;
  df: number;
}

export interface TermStatsTable {
  term: string;
  df: number;
  name_df: number;
}

export interface CorpusStatsTable {
  singleton: boolean;
  live_entries: string;
  total_length: number;
}

/** The trust check of an entry (db/migrations/0015_entry_verification.sql, src/trust/). */
export interface EntryVerificationTable {
  identifier: string;
  content_hash: string;
  state: string;
  reason: string | null;
  method: string | null;
  detail: string;
  checked_at: Timestamp;
  next_check_at: Timestamp;
}

/** Whether an entry's remote endpoint answers (db/migrations/0016_entry_liveness.sql, src/liveness/). */
export interface EntryLivenessTable {
  identifier: string;
  content_hash: string;
  state: string;
  probe: string;
  target: string | null;
  reason: string | null;
  detail: string;
  latency_ms: number | null;
  last_success_at: Timestamp | null;
  last_failure_at: Timestamp | null;
  last_failure_reason: string | null;
  failing_since: Timestamp | null;
  dead_since: Timestamp | null;
  checked_at: Timestamp;
  next_probe_at: Timestamp;
}

/** One mirrored peer's follower state (db/migrations/0017_change_feed.sql, src/federation/mirror-follower.ts). */
export interface MirrorPeersTable {
  peer: string;
  cursor: string | null;
  last_sync_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  last_status: string | null;
  last_error: string | null;
  last_report: ColumnType<unknown, string | null | undefined, string | null>;
}

export interface Database {
  entries: EntriesTable;
  entry_vectors: EntryVectorsTable;
  entry_verification: EntryVerificationTable;
  entry_liveness: EntryLivenessTable;
  tag_vectors: TagVectorsTable;
  tool_vectors: ToolVectorsTable;
  registry_settings: RegistrySettingsTable;
  schema_migrations: SchemaMigrationsTable;
  sources: SourcesTable;
  mirror_peers: MirrorPeersTable;
  lexeme_stats: LexemeStatsTable;
  term_stats: TermStatsTable;
  corpus_stats: CorpusStatsTable;
}

export type EntryRow = Selectable<EntriesTable>;
export type SourceRow = Selectable<SourcesTable>;
