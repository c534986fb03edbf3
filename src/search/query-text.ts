// Query normalisation and expansion: pure functions, no database. The query becomes groups of
// alternative words ("concepts"): a group is matched when any of its alternatives is, so an expansion
// ("k8s" -> "kubernetes") or a typo correction never counts twice and never dilutes the other words.
import { ConfigError } from '../config';
import { editDistance } from '../edit-distance';
import { InvalidArgumentError } from '../errors';
import relatedWordsJson from './related-words.json';
import synonymsJson from './synonyms.json';

export interface QueryWord {
  /** Index of the concept (the query word or phrase) this alternative stands for. */
  group: number;
  word: string;
  /** 1 for the word as typed; below 1 for expansions, corrections and completions. */
  weight: number;
  /**
   * A guess: a typo correction from the corpus vocabulary or a related word (related-words.json). Counted
   * only with the query embedding's agreement (relevance/signals.ts, gatedLexical).
   */
  correction?: boolean;
  /**
   * Words inside a typed word that the corpus may hold when the word itself is unknown: the labels of a host
   * name ("stripe.com" -> stripe), the parts of a camelCase name ("getWeatherForecast" -> get, weather,
   * forecast), a hyphenated word written as one ("pager-duty" -> pagerduty). Query understanding adds those the
   * corpus holds, only when it does not hold the word.
   */
  parts?: string[];
}

/**
 * The longest query text accepted (POST /search, POST /explore, the MCP registry search), in characters after
 * trimming: an orchestrator may send a user's whole message, a pasted log or an inline image with it.
 */
export const MAX_QUERY_LENGTH = 20_000;
/**
 * The part of a longer text that is searched: its first SEARCHED_QUERY_LENGTH characters, cut at the last space
 * before them. Query work grows with the text's words (their lexemes, the clauses read as needs; ~450 ms for a
 * 2,000-character text at 10k entries, docs/performance.md), and the query embedding reads 128 tokens anyway.
 */
export const SEARCHED_QUERY_LENGTH = 2000;

/** What a query text becomes: the part searched, and the length of the trimmed text it was cut from (when cut). */
export interface SearchedText {
  text: string;
  /** The trimmed text's length in characters, when it was longer than SEARCHED_QUERY_LENGTH. */
  cutFrom?: number;
}

/**
 * The query text trimmed, cut to SEARCHED_QUERY_LENGTH characters at a space (or, with no space in its second
 * half, at the limit, never between the two halves of a surrogate pair); 400 when empty or longer than
 * MAX_QUERY_LENGTH.
 */
export function searchedQueryText(text: string): SearchedText {
  const trimmed = text.trim();
  if (trimmed === '') throw new InvalidArgumentError('query.text must not be empty');
  if (trimmed.length > MAX_QUERY_LENGTH) {
    throw new InvalidArgumentError(`query.text is ${trimmed.length} characters long; at most ${MAX_QUERY_LENGTH} are accepted`);
  }
  if (trimmed.length <= SEARCHED_QUERY_LENGTH) return { text: trimmed };
  let end = SEARCHED_QUERY_LENGTH;
  const space = trimmed.slice(0, end + 1).search(/\s\S*$/);
  if (space >= SEARCHED_QUERY_LENGTH / 2) end = space;
  else if (/[\uD800-\uDBFF]/.test(trimmed[end - 1]!)) end -= 1;
  return { text: trimmed.slice(0, end).trimEnd(), cutFrom: trimmed.length };
}

/** The query text that is searched (searchedQueryText's text). */
export function checkQueryText(text: string): string {
  return searchedQueryText(text).text;
}

const WORD = /[\p{L}\p{N}][\p{L}\p{N}+#]*(?:[-.][\p{L}\p{N}+#]+)*/gu;
/**
 * Scripts written without spaces between words: Hiragana, Katakana, the CJK ideographs (and extension A), Hangul
 * syllables. The same class as migration 0022's ard_cjk_bigrams, which writes the index's documents.
 */
const CJK_CLASS = '\\u3040-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uac00-\\ud7af';
const CJK = new RegExp(`[${CJK_CLASS}]`, 'u');
const CJK_RUN = new RegExp(`[${CJK_CLASS}]+`, 'gu');
const withoutTrailingDots = (word: string) => word.replace(/[.]+$/, '');

/** Whether a word is a CJK bigram or character as tokenize() makes them (cjkBigrams). */
export function isCjkWord(word: string): boolean {
  return CJK.test(word);
}

/** Weight of a synonym/abbreviation expansion from synonyms.json. */
export const EXPANSION_WEIGHT = 0.9;
/** The longest phrase (in words) that synonyms.json and related-words.json may key on ("making things up"). */
export const MAX_PHRASE = 3;

export type SynonymTable = ReadonlyMap<string, readonly string[]>;

export class VocabularyFileError extends ConfigError {
  override name = 'VocabularyFileError';
}

/**
 * A synonyms.json / related-words.json table (bundled, or an operator's file: query-vocabulary.ts) as the
 * query tokenizer will match it: keys written as typed queries are ("k8s", "making things up"), at most
 * MAX_PHRASE words; each value a list of words or phrases; an empty list removes the key from the table it
 * extends. Keys starting with '_' are comments. Throws VocabularyFileError naming `source` and the key.
 */
export function parseVocabularyTable(raw: unknown, source: string): Map<string, string[]> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new VocabularyFileError(`${source}: must be a JSON object of "words typed": ["words they stand for"]`);
  }
  const table = new Map<string, string[]>();
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (key.startsWith('_')) continue;
    const words = tokenize(key);
    const normalised = words.join(' ');
    if (words.length === 0) throw new VocabularyFileError(`${source}: the key '${key}' has no word in it`);
    if (words.length > MAX_PHRASE)
      throw new VocabularyFileError(`${source}: the key '${key}' has ${words.length} words; a key has at most ${MAX_PHRASE}`);
    if (normalised !== key.trim().toLowerCase().replace(/\s+/g, ' ')) {
      throw new VocabularyFileError(`${source}: the key '${key}' would match the query words '${normalised}'; write it that way`);
    }
    if (table.has(normalised)) throw new VocabularyFileError(`${source}: the key '${normalised}' is given twice`);
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || tokenize(v).length === 0)) {
      throw new VocabularyFileError(`${source}: the value of '${key}' must be a list of words or phrases (an empty list removes the key)`);
    }
    table.set(
      normalised,
      value.map((v: string) => v.toLowerCase()),
    );
  }
  return table;
}

/** A table of synonyms.json's shape; a bad one throws VocabularyFileError (the bundled tables are checked at load). */
export function loadSynonyms(raw: unknown = synonymsJson, source = 'synonyms.json'): SynonymTable {
  return parseVocabularyTable(raw, source);
}

export const SYNONYMS = loadSynonyms();
/** Everyday words for the domain's concepts ("rain" -> "weather"): related, not the same, so guesses. */
export const RELATED_WORDS = loadSynonyms(relatedWordsJson, 'related-words.json');

/** Lower-cased words; keeps inner '-', '.', '+' and '#' ("gpt-4", "node.js", "c++", "c#"). */
export function tokenize(text: string): string[] {
  return typedWords(text).map((t) => t.toLowerCase());
}

/** The words of tokenize() as typed (case kept): the word pattern does not depend on case. */
function typedWords(text: string): string[] {
  return (text.normalize('NFKC').match(WORD) ?? []).flatMap((t) => (CJK.test(t) ? cjkWords(t) : [withoutTrailingDots(t)]));
}

/**
 * A run of CJK characters as the index reads it: overlapping bigrams ("微博热搜" -> 微博, 博热, 热搜), a single
 * character as itself. A word is a bigram of such a text: no space says where a word ends, and a bigram matches
 * whichever word holds it (as Lucene's CJK analyser does).
 */
export function cjkBigrams(run: string): string[] {
  const chars = [...run];
  return chars.length === 1 ? chars : chars.slice(1).map((c, i) => chars[i] + c);
}

/** A word holding CJK characters: its other parts as words, each CJK run as its bigrams, in order. */
function cjkWords(word: string): string[] {
  const others = (part: string) => (part.match(WORD) ?? []).map(withoutTrailingDots);
  const out: string[] = [];
  let at = 0;
  for (const run of word.matchAll(CJK_RUN)) {
    out.push(...others(word.slice(at, run.index)), ...cjkBigrams(run[0]));
    at = run.index + run[0].length;
  }
  return [...out, ...others(word.slice(at))];
}

/** The lower-cased parts (3+ letters) of a camelCase word ("getWeatherForecast" -> get, weather, forecast); [] for others. */
export function camelCaseParts(word: string): string[] {
  // Only a lower-case letter before the capital: "Agent2Agent" and "40GB" are names and sizes, not camelCase.
  const parts = word.split(/(?<=\p{Ll})(?=\p{Lu})/u);
  return parts.length < 2 ? [] : parts.map((p) => p.toLowerCase()).filter((p) => p.length >= 3);
}

/** A hyphenated word written as one ("pager-duty" -> pagerduty, "mongo-db" -> mongodb); [] for others. */
export function joinedHyphens(word: string): string[] {
  return /^[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)+$/u.test(word) ? [word.replace(/-/g, '')] : [];
}

/** Top-level domains a typed host name may end with ("stripe.com", "notion.so"); others ("node.js") are not hosts. */
const HOST_TLDS = new Set([
  'com',
  'net',
  'org',
  'io',
  'ai',
  'so',
  'dev',
  'app',
  'co',
  'me',
  'cloud',
  'tech',
  'sh',
  'xyz',
  'us',
  'uk',
  'de',
  'fr',
  'eu',
]);
/** Host-name labels that name no product ("mcp.stripe.com", "api.github.com", "www.notion.so"). */
const GENERIC_HOST_LABELS = new Set(['www', 'mcp', 'api', 'app', 'docs', 'remote', 'server', 'co']);

/**
 * The product names inside a host name typed as a word: "mcp.morningstar.com" -> ["morningstar"]; [] for a
 * word that is not a host name. Entries' texts say "Stripe", not "stripe.com"; query understanding (relevance/query-understanding.ts) adds them only
 * for a host name the corpus does not hold ("draw.io" is a product's own name: matched as itself).
 */
export function hostNameLabels(word: string): string[] {
  const labels = word.split('.');
  if (labels.length < 2 || !HOST_TLDS.has(labels[labels.length - 1]) || labels.some((l) => l === '')) return [];
  return labels.slice(0, -1).filter((l) => !GENERIC_HOST_LABELS.has(l));
}

/**
 * Query words grouped by concept, with the synonyms.json expansions and the related-words.json guesses of
 * each word and phrase of up to MAX_PHRASE words.
 */
export function expandQuery(text: string, synonyms: SynonymTable = SYNONYMS, related: SynonymTable = RELATED_WORDS): QueryWord[] {
  const typed = typedWords(text);
  const tokens = typed.map((t) => t.toLowerCase());
  const out: QueryWord[] = [];
  let group = 0;
  for (let i = 0; i < tokens.length; i++) {
    const parts = [...new Set([...hostNameLabels(tokens[i]), ...camelCaseParts(typed[i]), ...joinedHyphens(tokens[i])])];
    out.push({ group, word: tokens[i], weight: 1, ...(parts.length > 0 ? { parts } : {}) });
    for (let n = MAX_PHRASE; n >= 1; n--) {
      if (i + n > tokens.length) continue;
      const phrase = tokens.slice(i, i + n).join(' ');
      for (const expansion of synonyms.get(phrase) ?? []) {
        for (const word of tokenize(expansion)) out.push({ group, word, weight: EXPANSION_WEIGHT });
      }
      for (const expansion of related.get(phrase) ?? []) {
        for (const word of tokenize(expansion)) out.push({ group, word, weight: EXPANSION_WEIGHT, correction: true });
      }
    }
    group++;
  }
  return dedupe(out);
}

/** The text the embedder reads: the query plus its expansions, so "k8s" reads as "k8s kubernetes". */
export function embeddingText(text: string, words: QueryWord[]): string {
  const extra = [...new Set(words.filter((w) => w.weight < 1).map((w) => w.word))].filter((w) => !tokenize(text).includes(w));
  return extra.length === 0 ? text : `${text} (${extra.join(' ')})`;
}

/** One alternative per (group, word), keeping the highest weight. */
export function dedupe(words: QueryWord[]): QueryWord[] {
  const best = new Map<string, QueryWord>();
  for (const w of words) {
    const key = `${w.group}\u0000${w.word}`;
    const seen = best.get(key);
    if (!seen || seen.weight < w.weight) best.set(key, w);
  }
  return [...best.values()];
}

/**
 * How many edits a typo of this word may plausibly hold: 1 up to 5 letters, 2 beyond. Trigram similarity
 * alone cannot tell "slak" -> "slack" (1 edit) from "look" -> "lookups" (3 edits): an ordinary word the
 * corpus lacks must not turn into a different word that merely shares letters.
 */
export function maxTypoEdits(word: string): number {
  return word.length <= 5 ? 1 : 2;
}

/** Whether `candidate` is a plausible correction of the typed `word` (within maxTypoEdits). */
export function isPlausibleTypo(word: string, candidate: string): boolean {
  const limit = maxTypoEdits(word);
  return editDistance(word, candidate, limit) <= limit;
}

/**
 * The words one swap of adjacent letters away ("pyhton" -> "python", "emial" -> "email"): the commonest typo,
 * and the one trigram similarity misses in short words (they share too few trigrams), so the corpus is asked
 * for these exactly. Letters only, each variant once, never the word itself.
 */
export function transpositions(word: string): string[] {
  if (!/^\p{L}+$/u.test(word)) return [];
  const out = new Set<string>();
  for (let i = 0; i + 1 < word.length; i++) {
    if (word[i] === word[i + 1]) continue;
    out.add(word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2));
  }
  return [...out];
}

/** An ARD identifier written in a query (the catalog schema's pattern); a trailing full stop is the sentence's. */
const NAMED_IDENTIFIER = /(?<![\w:.-])urn:air:[a-zA-Z0-9.-]+(?::[a-zA-Z0-9._-]+)+/g;
/** At most this many identifiers of one query are looked up. */
export const MAX_NAMED_IDENTIFIERS = 10;

/** The identifiers a query names ("urn:air:github.com:org:repo"), in order, without repeats. */
export function identifiersNamedIn(text: string): string[] {
  const found = [...text.matchAll(NAMED_IDENTIFIER)].map((m) => m[0].replace(/\.+$/, ''));
  return [...new Set(found)].slice(0, MAX_NAMED_IDENTIFIERS);
}

/** A web address written in a query: with its scheme, or a host name followed by a path ("github.com/org/repo"). */
const NAMED_URL = /(?<![\w.@/-])(?:https?:\/\/[^\s"'<>()]+|(?:[a-z0-9-]+\.)+[a-z]{2,}\/[^\s"'<>()]*)/gi;

/**
 * The form web addresses are compared in: lower case, no scheme, no "www.", no trailing punctuation, "/" or
 * ".git"; an arXiv PDF or version as its abstract page. urlKeySql (relevance/retrieval.ts) is the same in SQL.
 */
export function urlKey(url: string): string {
  return (
    url
      .toLowerCase()
      .replace(/^https?:\/\//, '')
      .replace(/^www\./, '')
      .replace(/[.,;:!?]+$/, '')
      .replace(/(\.git)?\/*$/, '')
      // An arXiv paper's PDF or a version of it: its abstract page.
      .replace(/^arxiv\.org\/(?:abs|pdf)\/(\d{4}\.\d{4,5})(?:v\d+)?(?:\.pdf)?$/, 'arxiv.org/abs/$1')
  );
}

/** An arXiv identifier ("2210.03629", "arXiv:2210.03629v2"): the paper's abstract page, as a urlKey(). */
const ARXIV_ID = /(?<![\w./-])(?:arxiv:)?(\d{4}\.\d{4,5})(?:v\d+)?(?![\w.])/gi;

/**
 * The web addresses a query names, as urlKey()s, in order, without repeats (at most MAX_NAMED_IDENTIFIERS): the
 * addresses written out, and the abstract page of each arXiv identifier (the way papers are cited).
 */
export function urlsNamedIn(text: string): string[] {
  const written = [...text.matchAll(NAMED_URL)].map((m) => urlKey(m[0])).filter((k) => k.includes('.'));
  const papers = [...text.matchAll(ARXIV_ID)].map((m) => `arxiv.org/abs/${m[1]}`);
  return [...new Set([...written, ...papers])].slice(0, MAX_NAMED_IDENTIFIERS);
}

/** Code-unit order, the same in every locale (ties between equally ranked things are broken by it). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
