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
