// What gets embedded for each entry, one vector per field: 'doc' is the whole searchable text and the
// product glossary's glosses for it (product-glossary.ts: what the products it names are), 'description'
// the description alone (the best of the two finds needs the whole-text vector dilutes). Measured with
// bench:relevance: name and tags+capabilities vectors hurt (a short query is close to every short name), so
// they are not embedded. representativeQueries are left out: see searchableText.
import type { CatalogEntry } from '../catalog/catalog-entry';
import { searchableText, splitIdentifierWords } from '../catalog/catalog-entry';

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

/**
 * Tools embedded per entry, each on its own (tool_vectors, migration 0023), the first of entries.tools. LiveMCPBench's
 * 70 servers list at most 35; a card may list TOOL_LIMITS.tools (256), whose vectors would cost ingest 4.3-4.6 ms of
 * model time each (docs/relevance.md "Tools") for tools past the ones a server leads with.
 */
export const TOOL_VECTORS_PER_ENTRY = 64;
/** A tool's description as embedded: the bundled model reads 128 tokens, ~600 characters of English. */
export const TOOL_TEXT_CHARACTERS = 600;

/**
 * The text embedded for each of an entry's first TOOL_VECTORS_PER_ENTRY tools, by position: its name in words
 * (splitIdentifierWords: camelCase and `_./-` split, as capabilities are read) and its description's start.
 */
export function toolEmbeddingTexts(tools: ReadonlyArray<{ name: string; description: string }>): string[] {
  return tools.slice(0, TOOL_VECTORS_PER_ENTRY).map((tool) => {
    const words = splitIdentifierWords(tool.name);
    const description = tool.description.slice(0, TOOL_TEXT_CHARACTERS).trim();
    return description === '' ? words : `${words}: ${description}`;
  });
}
