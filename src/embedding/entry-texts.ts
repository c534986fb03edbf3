// What gets embedded for each entry, one vector per field: 'doc' is the whole searchable text and the
// product glossary's glosses for it (product-glossary.ts: what the products it names are), 'description'
// the description alone (the best of the two finds needs the whole-text vector dilutes). Measured with
// bench:relevance: name and tags+capabilities vectors hurt (a short query is close to every short name), so
// they are not embedded. representativeQueries are left out: see searchableText.
import type { CatalogEntry } from '../catalog/catalog-entry';
import { searchableText } from '../catalog/catalog-entry';

export const ENTRY_VECTOR_FIELDS = ['doc', 'description'] as const;
export type EntryVectorField = (typeof ENTRY_VECTOR_FIELDS)[number];
/**
 * The fields with an HNSW index, those the vector retrieval scans (VECTOR_RETRIEVAL_FIELDS); the others only score
 * candidates by identifier, so an index on them would cost every write its inserts for nothing (decision 0035).
 */
export const INDEXED_VECTOR_FIELDS: readonly EntryVectorField[] = ['doc'];

/**
 * The text of each field; an empty string means the entry has no such field (no vector is stored). `gloss` is
 * the one stored with the entry (entries.gloss, written with the context's glossary): required, so that no
 * caller embeds the bundled glossary's gloss where an operator's applies.
 */
export function entryEmbeddingTexts(entry: CatalogEntry, gloss: string): Record<EntryVectorField, string> {
  return {
    doc: [searchableText(entry), gloss].filter((part) => part !== '').join('\n'),
    description: entry.description ?? '',
  };
}
