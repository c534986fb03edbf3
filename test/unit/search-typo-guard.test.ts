import { editDistance } from '../../src/edit-distance';
import { isPlausibleTypo, maxTypoEdits } from '../../src/search/query-text';
import {
  baselineCosine,
  CORRECTION_AGREEMENT_SPAN,
  fuse,
  gatedLexical,
  SEMANTIC_WEIGHT,
  semanticWeight,
  UNSEEN_SEMANTIC_BOOST,
  unseenShare,
} from '../../src/search/relevance';
import { calibrate, RELEVANCE_CUTOFF, scoreSignals } from '../../src/search/relevance/scoring';

describe('edit distance guard on typo corrections', () => {
  it('counts insertions, deletions, substitutions and adjacent transpositions as one edit each', () => {
    expect(editDistance('slak', 'slack')).toBe(1);
    expect(editDistance('kubernets', 'kubernetes')).toBe(1);
    expect(editDistance('databse', 'database')).toBe(1);
    expect(editDistance('teh', 'the')).toBe(1);
    expect(editDistance('pyhton', 'python')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });

  it('stops at the limit and reports limit + 1 beyond it', () => {
    expect(editDistance('look', 'lookups', 1)).toBe(2);
    expect(editDistance('pictures', 'structures', 2)).toBe(3);
    expect(editDistance('ab', 'abcdefgh', 2)).toBe(3);
  });

  it('allows 1 edit up to 5 letters and 2 beyond', () => {
    expect(maxTypoEdits('slak')).toBe(1);
    expect(maxTypoEdits('cloud')).toBe(1);
    expect(maxTypoEdits('kubernets')).toBe(2);
  });

  // Some ordinary words stay within reach (purple -> purpose, 2 edits): gatedLexical covers those.
  it('accepts real typos and rejects ordinary words that merely share trigrams with a corpus word', () => {
    for (const [typed, word] of [
      ['slak', 'slack'],
      ['kubernets', 'kubernetes'],
      ['pipline', 'pipeline'],
      ['grafna', 'grafana'],
    ]) {
      expect(isPlausibleTypo(typed, word)).toBe(true);
    }
    for (const [typed, word] of [
      ['look', 'lookups'],
      ['look', 'lookup'],
      ['cats', 'catalog'],
      ['pictures', 'structures'],
      ['elephant', 'element'],
      ['dancing', 'enhancing'],
    ]) {
      expect(isPlausibleTypo(typed, word)).toBe(false);
    }
  });
});

describe('paraphrase and correction calibration', () => {
  it('raises the semantic weight with the share of unseen concepts, unless no concept is known at all', () => {
    expect(semanticWeight(0)).toBe(SEMANTIC_WEIGHT);
    expect(semanticWeight(0.5)).toBeCloseTo(SEMANTIC_WEIGHT + UNSEEN_SEMANTIC_BOOST / 2, 10);
    expect(semanticWeight(1)).toBe(SEMANTIC_WEIGHT);
    expect(fuse(0.5, 0, semanticWeight(0.5))).toBeGreaterThan(fuse(0.5, 0));
  });

  it('counts a concept unseen only when none of its alternatives is in the corpus', () => {
    expect(
      unseenShare([
        { group: 0, df: 0 },
        { group: 0, df: 3 },
        { group: 1, df: 0 },
      ]),
    ).toBe(0.5);
    expect(unseenShare([{ group: 0, df: 0 }])).toBe(1);
    expect(unseenShare([])).toBe(0);
  });

  it('takes the median of the best cosines as the baseline', () => {
    expect(baselineCosine([0.1, 0.9, 0.5])).toBe(0.5);
    expect(baselineCosine([0.2, 0.4, 0.6, 0.8])).toBeCloseTo(0.5, 10);
    expect(baselineCosine([0.9, 0.8, 0.1, 0.0], 2)).toBeCloseTo(0.85, 10);
    expect(baselineCosine([])).toBe(0);
  });

  it('counts the lexical share owed to corrections only with semantic agreement above the baseline', () => {
    // All of it from corrections: nothing at or below the baseline, in full a span above it.
    expect(gatedLexical(0.6, 0, 0.35, 0.38)).toBe(0);
    expect(gatedLexical(0.6, 0, 0.38 + CORRECTION_AGREEMENT_SPAN / 2, 0.38)).toBeCloseTo(0.3, 10);
    expect(gatedLexical(0.6, 0, 0.38 + CORRECTION_AGREEMENT_SPAN, 0.38)).toBeCloseTo(0.6, 10);
    // The part from the words as typed always counts.
    expect(gatedLexical(0.6, 0.4, 0.1, 0.38)).toBeCloseTo(0.4, 10);
    expect(gatedLexical(0.5, 0.5, 0.1, 0.9)).toBe(0.5);
  });
});

describe('a query the model cannot read', () => {
  const row = (identifier: string, cosine: number, lexical: number, typedLexical = lexical) => ({
    identifier,
    type: null,
    cosine,
    lexical,
    typedLexical,
    tags: ['forecasting'],
  });
  // A query whose embedding is that of unknown characters: near every such text (cosine 0.95), against a baseline of
  // ordinary entries; one entry matches its words, one only through a guess, one not at all.
  const rows = [
    row('words', 0.5, 0.8),
    row('guess', 0.95, 0.6, 0),
    row('vector-only', 0.95, 0),
    ...Array.from({ length: 20 }, (_, i) => row(`other-${i}`, 0.3, 0)),
  ];
  const topics = new Map([['forecasting', 1]]);
  const byId = (readable: number) =>
    new Map(scoreSignals({ unseenShare: 0, readable }, rows, topics, calibrate).map((c) => [c.identifier, c]));

  it('gives its embedding, the guesses it backs and the topic labels weight only as far as the model read it', () => {
    const read = byId(1);
    expect(read.get('vector-only')!.base).toBeGreaterThan(RELEVANCE_CUTOFF);
    expect(read.get('guess')!.lexical).toBeCloseTo(0.6, 10);
    const unread = byId(0);
    expect(unread.get('vector-only')!.relevance).toBe(0);
    expect(unread.get('guess')!.lexical).toBe(0);
    expect(unread.get('guess')!.agreement).toBe(0);
    // The words it shares with an entry count in full.
    expect(unread.get('words')!.base).toBeCloseTo(0.8, 10);
    const half = byId(0.5);
    expect(half.get('vector-only')!.base).toBeCloseTo(read.get('vector-only')!.base / 2, 10);
  });

  it('leaves the minimum-matches fill its lexical candidates: the embedding cannot single any out (decision 0013)', () => {
    // Read: 'other-0' sits at the baseline, so it is no fill; the entries above it are. Unread: every one may fill.
    const read = byId(1);
    expect([read.get('words')!.singledOut, read.get('guess')!.singledOut, read.get('other-0')!.singledOut]).toEqual([true, true, false]);
    expect([...byId(0).values()].every((c) => c.singledOut)).toBe(true);
    expect(byId(0.5).get('other-0')!.singledOut).toBe(false);
  });
});
