/**
 * The ARD catalog entry (ard.md §4.2; `$defs/catalogEntry` of openapi/ai-catalog.schema.json), as far as the
 * Alexandria code needs it. Structural on purpose: the registry core's own entry type is assignable to and
 * from this one as long as both follow the schema, so the two modules do not have to import each other.
 */
export type CatalogMetadataValue = string | number | boolean | null;

export interface CatalogEntry {
  identifier: string;
  displayName: string;
  type: string;
  url?: string;
  data?: Record<string, unknown>;
  description?: string;
  tags?: string[];
  capabilities?: string[];
  representativeQueries?: string[];
  version?: string;
  updatedAt?: string;
  metadata?: Record<string, CatalogMetadataValue>;
  trustManifest?: Record<string, unknown>;
}
