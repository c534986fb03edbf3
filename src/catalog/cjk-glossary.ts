// English words for Chinese text, from CC-CEDICT (data/cjk-glossary/, CC BY-SA 4.0; built by
// scripts/build-cjk-glossary.ts). A catalog entry described in Chinese is found by a query in Chinese through its
// character bigrams (migration 0022), but a query in English shares no word with it, and the bundled model reads
// no Chinese character. Its gloss (product-glossary.ts glossFor) therefore carries the English senses of the words
// of its Chinese text, and each tool description its own (entry-tools.ts): "获取微博热搜榜" -> "gain; microblogging;
// popular search query". The words are found by the longest match of the dictionary's words (at most 4 characters)
// from the left, as simple Chinese segmenters do; a word of one character is skipped (too ambiguous alone), and so is
// a character no word holds. Japanese kana and Korean hangul are not glossed.
// docs/relevance.md "Chinese, Japanese and Korean text".
import fs from 'node:fs';
import path from 'node:path';
import { projectFolder } from '../project-folder';

/**
 * The longest word of the dictionary, in characters (scripts/build-cjk-glossary.ts writes no longer one): longer words
 * are rare in the texts the registry meets and would triple the file.
 */
export const MAX_WORD_CHARACTERS = 4;
/**
 * At most this many senses per text: a long Chinese description glossed word by word would outweigh what the
 * entry says in English and make its doc vector a list of dictionary words.
 */
export const MAX_CJK_SENSES = 40;
/**
 * At most this many Chinese characters of one text are read: 40 senses come from far fewer, and a hostile card's 32 K
 * characters of tool descriptions took 0.3-0.6 s to read in full on the event loop; 2,000 take 2-8 ms.
 */
export const MAX_GLOSSED_CHARACTERS = 2000;
const HAN_RUN = /\p{Script=Han}+/gu;

export interface CjkGlossary {
  /** The sense of a word; undefined when the dictionary does not hold it. */
  sense(word: string): string | undefined;
  /** Number of words. */
  readonly size: number;
}

/** How texts are read with the dictionary; part of CJK_GLOSSARY_VERSION, so a change to it refreshes stored glosses. */
const READING = 'longest-match-2+';

let loaded: CjkGlossary | undefined;

/** The bundled dictionary, read on first use: a process that meets no Chinese text never reads it. */
export function cjkGlossary(): CjkGlossary {
  loaded ??= readCjkGlossary(glossaryFile());
  return loaded;
}

/**
 * The bundled dictionary's version (its first line names the CC-CEDICT release it was built from) and the way it
 * is read: part of the product glossary's version (product-glossary.ts), which the stored glosses follow
 * (gloss-refresh.ts). Read from the file's first line alone, so a start does not load the dictionary.
 */
export const CJK_GLOSSARY_VERSION = `${READING} ${firstLine(glossaryFile())}`;

function firstLine(file: string): string {
  const buffer = Buffer.alloc(256);
  const fd = fs.openSync(file, 'r');
  try {
    const read = fs.readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, read).toString('utf8').split('\n')[0]!;
  } finally {
    fs.closeSync(fd);
  }
}

/** The dictionary's file, from the sources (tsx) or the build (dist/). */
function glossaryFile(): string {
  return path.join(projectFolder('data', 'cjk-glossary'), 'cjk-glossary.tsv');
}

/**
 * A dictionary file: "word<TAB>sense" lines sorted by the words' UTF-16 code units, '#' lines first as comments. Kept
 * as the file's text and the offsets of its lines, searched by bisection among the words of the same first character:
 * loaded, RSS grows by 20 MB in ~200 ms (machine load 7), where a Map of its 148k words grew it by 60 MB in ~370 ms; a
 * 24-character text is glossed in ~30 µs.
 */
export function readCjkGlossary(file: string): CjkGlossary {
  const text = fs.readFileSync(file, 'utf8');
  const starts: number[] = [];
  let previous = '';
  for (let at = 0; at < text.length;) {
    const newline = text.indexOf('\n', at);
    const end = newline === -1 ? text.length : newline;
    const tab = text.indexOf('\t', at);
    if (text[at] !== '#' && end > at) {
      if (tab === -1 || tab > end) throw new Error(`${file}: line without a tab at character ${at}`);
      const word = text.slice(at, tab);
      if (word <= previous) throw new Error(`${file}: '${word}' is not after '${previous}': the file must be sorted`);
      previous = word;
      starts.push(at);
    }
    at = end + 1;
  }
  const offsets = Int32Array.from(starts);
  const wordAt = (i: number) => text.slice(offsets[i]!, text.indexOf('\t', offsets[i]!));
  // The lines of the words that start with each character, contiguous in the sorted file: a lookup bisects only
  // those (a few dozen at most), not all 148k.
  const byFirst = new Map<string, [number, number]>();
  for (let i = 0; i < offsets.length; i++) {
    const first = String.fromCodePoint(text.codePointAt(offsets[i]!)!);
    const range = byFirst.get(first);
    if (range) range[1] = i;
    else byFirst.set(first, [i, i]);
  }
  return {
    size: offsets.length,
    sense(word) {
      const range = byFirst.get(String.fromCodePoint(word.codePointAt(0) ?? 0));
      if (!range) return undefined;
      let [low, high] = range;
      while (low <= high) {
        const middle = (low + high) >> 1;
        const found = wordAt(middle);
        if (found === word) {
          const tab = offsets[middle]! + found.length;
          const end = text.indexOf('\n', tab);
          return text.slice(tab + 1, end === -1 ? text.length : end);
        }
        if (found < word) low = middle + 1;
        else high = middle - 1;
      }
      return undefined;
    },
  };
}

/** How many Chinese characters `text` holds. */
export function hanCharacters(text: string): number {
  return text.match(/\p{Script=Han}/gu)?.length ?? 0;
}

/**
 * The English senses of the Chinese words of `texts`, in order, each once, at most MAX_CJK_SENSES, joined by "; ";
 * "" when they hold no Chinese word the dictionary knows. At most `characters` Chinese characters are read
 * (MAX_GLOSSED_CHARACTERS): what a publisher's text costs to gloss is bounded, whatever its length. The bundled
 * dictionary (unless `glossary` is given) is read at the first Chinese character met: a text without one costs a scan.
 */
export function cjkGloss(texts: readonly string[], glossary?: CjkGlossary, characters = MAX_GLOSSED_CHARACTERS): string {
  const found: string[] = [];
  const seen = new Set<string>();
  let budget = characters;
  for (const text of texts) {
    for (const run of text.matchAll(HAN_RUN)) {
      glossary ??= cjkGlossary();
      const chars = [...run[0]].slice(0, budget);
      budget -= chars.length;
      for (let i = 0; i < chars.length && found.length < MAX_CJK_SENSES;) {
        let matched = 1;
        // Longest first; a character standing alone is not glossed (的 "of", 鸣 "cry" in the name 鸣潮), so not looked up.
        for (let n = Math.min(MAX_WORD_CHARACTERS, chars.length - i); n > 1; n--) {
          const sense = glossary.sense(chars.slice(i, i + n).join(''));
          if (sense === undefined) continue;
          matched = n;
          if (!seen.has(sense)) {
            seen.add(sense);
            found.push(sense);
          }
          break;
        }
        i += matched;
      }
      if (budget <= 0 || found.length >= MAX_CJK_SENSES) return found.join('; ');
    }
  }
  return found.join('; ');
}
