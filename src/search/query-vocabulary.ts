// The query vocabulary: the synonyms and related everyday words that expand a query (query-text.ts). The
// bundled tables are written for the demo corpus; an operator whose catalogs speak another domain extends
// them with two JSON files of the same shape (SEARCH_SYNONYMS_FILE, SEARCH_RELATED_WORDS_FILE), read once at
// start and checked key by key, so a bad file stops the start with a message naming the file and the key.
import { readJsonFile } from '../json-file';
import { parseVocabularyTable, RELATED_WORDS, SYNONYMS, VocabularyFileError, type SynonymTable } from './query-text';

export interface QueryVocabulary {
  /** Words that mean the same: counted in full (synonyms.json). */
  synonyms: SynonymTable;
  /** Everyday words for the entries' words: guesses, counted with semantic agreement (related-words.json). */
  related: SynonymTable;
}

export const BUNDLED_VOCABULARY: QueryVocabulary = { synonyms: SYNONYMS, related: RELATED_WORDS };

/** Largest vocabulary file read (the bundled tables are ~77 KB together). */
export const MAX_VOCABULARY_FILE_BYTES = 8 * 1024 * 1024;

/** `base` with `additions` applied: a key given replaces the base's value; an empty list removes the key. */
export function extendTable(base: SynonymTable, additions: ReadonlyMap<string, readonly string[]>): SynonymTable {
  const table = new Map(base);
  for (const [key, value] of additions) {
    if (value.length === 0) table.delete(key);
    else table.set(key, [...value]);
  }
  return table;
}

/** The bundled vocabulary extended by the operator's files (null: the bundled table as it is). */
export async function loadQueryVocabulary(files: {
  synonymsFile: string | null;
  relatedWordsFile: string | null;
}): Promise<QueryVocabulary> {
  const [synonyms, related] = await Promise.all([
    files.synonymsFile === null ? null : readVocabularyFile(files.synonymsFile, 'SEARCH_SYNONYMS_FILE'),
    files.relatedWordsFile === null ? null : readVocabularyFile(files.relatedWordsFile, 'SEARCH_RELATED_WORDS_FILE'),
  ]);
  return {
    synonyms: synonyms ? extendTable(SYNONYMS, synonyms) : SYNONYMS,
    related: related ? extendTable(RELATED_WORDS, related) : RELATED_WORDS,
  };
}

async function readVocabularyFile(file: string, setting: string): Promise<Map<string, string[]>> {
  const source = `${setting} (${file})`;
  const raw = await readJsonFile(file, source, MAX_VOCABULARY_FILE_BYTES, (message) => new VocabularyFileError(message));
  return parseVocabularyTable(raw, source);
}
