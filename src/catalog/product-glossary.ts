// The product glossary (product-glosses.json): what the products, technologies and standards an entry
// names are, in plain words. A third of the corpus says little more than a name ("Shodan", "WiseVision
// ROS2: MCP for ROS2"), and a user who describes the job ("find exposed devices on my network", "program
// my robot") shares no word with it, nor does the bundled embedder know the name. An entry that names a
// glossary key is indexed with the key's gloss: words of its lexical document, weighted as its description
// (the `gloss` column: migration 0013), and part of the text its doc vector embeds (entry-texts.ts). The
// entry itself is stored as it was published. docs/relevance.md, "Product glossary".
import { createHash } from 'node:crypto';
import { ConfigError } from '../config';
import { readJsonFile } from '../json-file';
import { CJK_GLOSSARY_VERSION, cjkGloss } from './cjk-glossary';
import glossaryJson from './product-glosses.json';

/** At most this many glosses per entry, the first named first: an entry listing twenty integrations is glossed by its own product. */
export const MAX_GLOSSES_PER_ENTRY = 3;
/** A key has at most this many words ("husqvarna automower", "agent-as-a-judge": hyphens separate words). */
export const MAX_KEY_WORDS = 4;
/**
 * Glosses are short: a longer one would outweigh what the entry says of itself. 50: what the product is (up to
 * ~25 words) and the everyday tasks it serves ("Used to: ...", up to ~16; docs/decisions/0017-glossary-uses.md).
 */
export const MAX_GLOSS_WORDS = 50;

/** A glossary that cannot be used (the bundled one is checked at load; an operator's stops the start). */
export class ProductGlossaryError extends ConfigError {
  override name = 'ProductGlossaryError';
}

/** Largest glossary file read (the bundled one is ~90 KB). */
export const MAX_GLOSSARY_FILE_BYTES = 8 * 1024 * 1024;

export interface ProductGlossary {
  /** Gloss by key, the key as its words joined by one space ("close com", "ros2"). */
  readonly glosses: ReadonlyMap<string, string>;
  /** Keys by their first word (lower-cased), for the scan of an entry's words. */
  readonly byFirstWord: ReadonlyMap<string, readonly GlossaryKey[]>;
  /** Changes when any key or gloss does (or the way keys match): stored glossaries are refreshed by it. */
  readonly version: string;
}

/** A key as matched: its words, lower-cased, and as written when it has a capital (then only that spelling matches). */
export interface GlossaryKey {
  words: readonly string[];
  /** Set for a key written with a capital letter ("AIS"): matched case and all, so "AIs" (plural of AI) is not it. */
  cased: readonly string[] | null;
}

/** The way entries are matched; part of the version, so a change to it refreshes stored glosses too. */
const MATCHING = 'words-v2';

/** Words as written: letters, digits, '+' and '#' ("c++", "c#"); anything else separates ("close.com" -> close, com). */
function writtenWords(text: string): string[] {
  return text
    .normalize('NFKC')
    .split(/[^\p{L}\p{N}+#]+/u)
    .filter((w) => w !== '');
}

/** The words of writtenWords(), lower-cased. */
export function glossaryWords(text: string): string[] {
  return writtenWords(text).map((w) => w.toLowerCase());
}

/** The (key, gloss) pairs of a glossary file, its comments ('_' keys) left out; it must be a JSON object. */
function glossaryEntries(raw: unknown, source: string): Array<[string, unknown]> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ProductGlossaryError(`${source}: must be a JSON object of "product name": "what it is, in plain words"`);
  }
  return Object.entries(raw as Record<string, unknown>).filter(([key]) => !key.startsWith('_'));
}

/** A glossary of product-glosses.json's shape ({"key": "gloss"}, '_' keys are comments); throws ProductGlossaryError naming the key. */
export function parseProductGlossary(raw: unknown, source: string): ProductGlossary {
  const glosses = new Map<string, string>();
  const byFirstWord = new Map<string, GlossaryKey[]>();
  const cased: string[] = [];
  for (const [key, value] of glossaryEntries(raw, source)) {
    const words = glossaryWords(key);
    if (words.length === 0) throw new ProductGlossaryError(`${source}: the key '${key}' has no word in it`);
    if (words.length > MAX_KEY_WORDS)
      throw new ProductGlossaryError(`${source}: the key '${key}' has ${words.length} words; a key has at most ${MAX_KEY_WORDS}`);
    const normalised = words.join(' ');
    if (glosses.has(normalised))
      throw new ProductGlossaryError(`${source}: the key '${key}' matches the same words as another key ('${normalised}')`);
    const glossWords = typeof value === 'string' ? glossaryWords(value).length : 0;
    if (typeof value !== 'string' || glossWords === 0)
      throw new ProductGlossaryError(`${source}: the gloss of '${key}' must be a non-empty string`);
    if (glossWords > MAX_GLOSS_WORDS)
      throw new ProductGlossaryError(`${source}: the gloss of '${key}' has ${glossWords} words; a gloss has at most ${MAX_GLOSS_WORDS}`);
    glosses.set(normalised, value.trim());
    const written = key !== key.toLowerCase() ? writtenWords(key) : null;
    if (written) cased.push(written.join(' '));
    const list = byFirstWord.get(words[0]) ?? [];
    list.push({ words, cased: written });
    byFirstWord.set(words[0], list);
  }
  // Longest keys first, so "aws bedrock" is found where "aws" would also match.
  for (const list of byFirstWord.values()) list.sort((a, b) => b.words.length - a.words.length);
  const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const canonical = JSON.stringify([
    MATCHING,
    CJK_GLOSSARY_VERSION,
    MAX_GLOSSES_PER_ENTRY,
    [...glosses].sort(([a], [b]) => byCodeUnits(a, b)),
    cased.sort(byCodeUnits),
  ]);
  return { glosses, byFirstWord, version: createHash('sha256').update(canonical).digest('hex').slice(0, 16) };
}

export const PRODUCT_GLOSSARY = parseProductGlossary(glossaryJson, 'product-glosses.json');

/**
 * The bundled glossary extended by an operator's file of the same shape (SEARCH_GLOSSARY_FILE): a key given
 * replaces the bundled gloss of the same words, an empty gloss ("") removes it. Every registry process on one
 * database must use the same file: the stored glosses follow the glossary of the last process to start.
 */
export async function loadProductGlossary(file: string | null): Promise<ProductGlossary> {
  if (file === null) return PRODUCT_GLOSSARY;
  const source = `SEARCH_GLOSSARY_FILE (${file})`;
  const raw = await readJsonFile(file, source, MAX_GLOSSARY_FILE_BYTES, (message) => new ProductGlossaryError(message));
  const given = glossaryEntries(raw, source);
  // The bundled pairs as written (a capitalised key stays case-sensitive), by their words: a key the file
  // gives (or removes with "") replaces the bundled one of the same words.
  const bundled = new Map(
    glossaryEntries(glossaryJson, 'product-glosses.json').map(([key, gloss]) => [glossaryWords(key).join(' '), [key, gloss] as const]),
  );
  for (const [key, value] of given) {
    const words = glossaryWords(key).join(' ');
    if (value === '' && !PRODUCT_GLOSSARY.glosses.has(words)) {
      throw new ProductGlossaryError(`${source}: the key '${key}' removes nothing: the bundled glossary has no key '${words}'`);
    }
    bundled.delete(words);
  }
  return parseProductGlossary(Object.fromEntries([...bundled.values(), ...given.filter(([, value]) => value !== '')]), source);
}

/** What of an entry is searched for glossary keys: the fields its lexical document is made of, and its identifier. */
export interface GlossableEntry {
  identifier: string;
  displayName: string;
  description?: string;
  tags?: string[];
  capabilities?: string[];
}

/** Hosts that say where an entry's code lives, not what it is: their words are not searched for keys. */
const CODE_HOSTS = new Set(['github.com', 'gitlab.com', 'bitbucket.org', 'codeberg.org']);

/** The words of an ARD identifier worth matching: its segments after the host, and the host's unless it is a code host ("urn:air:mcp.close.com:mcp:close"). */
function identifierText(identifier: string): string {
  const [, , host = '', ...rest] = identifier.split(':');
  return [CODE_HOSTS.has(host.toLowerCase()) ? '' : host, ...rest].join(' ');
}

/**
 * The glosses of the keys `entry` names as whole words, joined into one text ('' when none): in the order
 * first named (name, identifier, description, tags, tool names), each once, at most MAX_GLOSSES_PER_ENTRY; then
 * the English senses of the Chinese words of its name, description and tags (cjk-glossary.ts).
 */
export function glossFor(entry: GlossableEntry, glossary: ProductGlossary = PRODUCT_GLOSSARY): string {
  const fields = [
    entry.displayName,
    identifierText(entry.identifier),
    entry.description ?? '',
    (entry.tags ?? []).join(' '),
    (entry.capabilities ?? []).join(' '),
  ];
  const found: string[] = [];
  for (const field of fields) {
    const written = writtenWords(field);
    const words = written.map((w) => w.toLowerCase());
    for (let i = 0; i < words.length && found.length < MAX_GLOSSES_PER_ENTRY; i++) {
      for (const key of glossary.byFirstWord.get(words[i]) ?? []) {
        const [text, wanted] = key.cased ? [written, key.cased] : [words, key.words];
        if (!wanted.every((w, j) => text[i + j] === w)) continue;
        const joined = key.words.join(' ');
        if (!found.includes(joined)) found.push(joined);
        i += key.words.length - 1;
        break;
      }
    }
  }
  const glosses = found.map((key) => glossary.glosses.get(key)!.replace(/[.\s]+$/, '') + '.');
  // The entry's Chinese text in English words (cjk-glossary.ts), after the products' glosses.
  const senses = cjkGloss([entry.displayName, entry.description ?? '', (entry.tags ?? []).join(' ')]);
  return [...glosses, ...(senses === '' ? [] : [`${senses}.`])].join(' ');
}
