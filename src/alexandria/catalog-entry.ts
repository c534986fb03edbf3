/**
 * The ARD catalog entry (ard.md §4.2; `$defs/catalogEntry` of openapi/ai-catalog.schema.json): the registry
 * core's own type, so Alexandria entries are stored and searched like every other entry.
 */
import type { CatalogEntry } from '../catalog/catalog-entry';

export type { CatalogEntry };
export type CatalogMetadataValue = NonNullable<CatalogEntry['metadata']>[string];
