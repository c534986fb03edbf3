// Regenerates src/listing/filter-parser.generated.ts from src/listing/filter-grammar.peggy.
// Run: npx tsx scripts/generate-filter-parser.ts
// The output is TypeScript (ES module syntax under @ts-nocheck) rather than .js so that the
// build (tsc, no allowJs) emits it into dist with the rest of src. A unit test compares the
// committed file with generateFilterParserSource() so a grammar edit cannot ship without it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import peggy from 'peggy';

export const GRAMMAR_PATH = join(__dirname, '..', 'src', 'listing', 'filter-grammar.peggy');
export const GENERATED_PATH = join(__dirname, '..', 'src', 'listing', 'filter-parser.generated.ts');

const HEADER = [
  '// @ts-nocheck',
  '/* eslint-disable */',
  '// GENERATED FILE, DO NOT EDIT. Source: src/listing/filter-grammar.peggy.',
  '// Regenerate with: npx tsx scripts/generate-filter-parser.ts',
  '',
].join('\n');

/** The exact text filter-parser.generated.ts must contain for the given grammar. */
export function generateFilterParserSource(grammar: string): string {
  const source = peggy.generate(grammar, {
    output: 'source',
    format: 'es',
    grammarSource: 'filter-grammar.peggy',
  });
  return `${HEADER}${source.trimEnd()}\n`;
}

if (require.main === module) {
  const source = generateFilterParserSource(readFileSync(GRAMMAR_PATH, 'utf8'));
  writeFileSync(GENERATED_PATH, source);
  process.stdout.write(`wrote ${GENERATED_PATH} (${source.length} bytes)\n`);
}
