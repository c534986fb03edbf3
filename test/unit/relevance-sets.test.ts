// The labelled query sets of bench/relevance (bench/relevance/README.md) are data the ranking is judged by: a
// judged key the corpus does not hold, a query with no grade-2 entry or a duplicate id would skew every figure
// without failing the benchmark. Each set is checked against the corpus files it names.
import fs from 'node:fs';
import path from 'node:path';

const SETS_DIR = path.join(__dirname, '..', '..', 'bench', 'relevance');
const CORPUS_DIR = path.join(__dirname, '..', '..', 'data', 'corpus');
const KINDS = ['paraphrase', 'direct', 'typo', 'multi'];

interface QuerySet {
  description: string;
  corpus: string[];
  queries: Array<{ id: string; kind: string; text: string; relevant: Record<string, number> }>;
}

/** The keys a corpus file holds: catalog entries' identifiers, or the Alexandria library's record ids. */
function corpusKeys(file: string): string[] {
  const data = JSON.parse(fs.readFileSync(path.join(CORPUS_DIR, file), 'utf8'));
  if (Array.isArray(data.entries)) return data.entries.map((e: { identifier: string }) => e.identifier);
  if (Array.isArray(data.records)) return data.records.map((r: { id: string }) => r.id);
  throw new Error(`${file}: neither catalog entries nor library records`);
}

const setFiles = fs.readdirSync(SETS_DIR).filter((f) => f.endsWith('-queries.json'));

describe('labelled query sets (bench/relevance)', () => {
  it('holds the repo sets, the four held-out pairs, the library half of the fifth and the Chinese set', () => {
    expect(setFiles.sort()).toEqual([
      'alexandria-queries.json',
      'holdout-alexandria-queries.json',
      'holdout-registry-queries.json',
      'holdout2-alexandria-queries.json',
      'holdout2-registry-queries.json',
      'holdout3-alexandria-queries.json',
      'holdout3-registry-queries.json',
      'holdout4-alexandria-queries.json',
      'holdout4-registry-queries.json',
      'holdout5-alexandria-queries.json',
      'holdout6-alexandria-queries.json',
      'holdout7-alexandria-queries.json',
      'registry-queries.json',
      'zh-registry-queries.json',
    ]);
  });

  it('the Chinese set asks the first registry queries in Chinese, with their labels', () => {
    const read = (file: string) => JSON.parse(fs.readFileSync(path.join(SETS_DIR, file), 'utf8')) as QuerySet;
    const english = new Map(read('registry-queries.json').queries.map((q) => [q.id, q]));
    for (const q of read('zh-registry-queries.json').queries as Array<QuerySet['queries'][number] & { original: string }>) {
      const original = english.get(q.id.replace(/^zh/, 'r'));
      expect([q.original, q.kind, q.relevant]).toEqual([original?.text, original?.kind, original?.relevant]);
      expect(q.text).toMatch(/\p{Script=Han}/u);
    }
  });

  it.each(setFiles)('%s: unique ids, known kinds, a grade-2 entry per query, every judged key in its corpus', (file) => {
    const set = JSON.parse(fs.readFileSync(path.join(SETS_DIR, file), 'utf8')) as QuerySet;
    expect(set.description.length).toBeGreaterThan(0);
    const keys = new Set(set.corpus.flatMap(corpusKeys));
    const ids = set.queries.map((q) => q.id);
    expect(new Set(ids).size).toBe(ids.length);
    const problems: string[] = [];
    for (const q of set.queries) {
      if (!KINDS.includes(q.kind)) problems.push(`${q.id}: kind ${q.kind}`);
      if (q.text.trim().length === 0) problems.push(`${q.id}: empty text`);
      const grades = Object.entries(q.relevant);
      if (!grades.some(([, g]) => g === 2)) problems.push(`${q.id}: no grade-2 entry`);
      for (const [key, grade] of grades) {
        if (grade !== 1 && grade !== 2) problems.push(`${q.id}: grade ${grade} for ${key}`);
        if (!keys.has(key)) problems.push(`${q.id}: ${key} is not in ${set.corpus.join(', ')}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
