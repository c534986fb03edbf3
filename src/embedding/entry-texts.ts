// What gets embedded for each entry, one vector per field. 'doc' is the whole searchable text.
import type { CatalogEntry } from '../catalog/catalog-entry';
import { searchableText } from '../catalog/catalog-entry';

export const ENTRY_VECTOR_FIELDS = ['doc'] as const;
export type EntryVectorField = (typeof ENTRY_VECTOR_FIELDS)[number];

export function entryEmbeddingTexts(entry: CatalogEntry): Record<EntryVectorField, string> {
  return { doc: searchableText(entry) };
}
