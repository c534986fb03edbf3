import fc from 'fast-check';

import { applySponsorshipRule, type RankedItem, violatesSponsorshipRule } from '../../src/alexandria/sponsorship';

type Item = RankedItem & { id: string };
const ed = (id: string, score: number): Item => ({ id, score });
const sp = (id: string, score: number): Item => ({ id, score, sponsored: true });
const ids = (items: readonly Item[]) => items.map((i) => i.id);

describe('applySponsorshipRule (unit)', () => {
  it('puts an editorial result before a sponsored one at equal score, whatever the engine said', () => {
    expect(ids(applySponsorshipRule([sp('S', 0.8), ed('E', 0.8)]))).toEqual(['E', 'S']);
  });

  it('lets a sponsored result stay above an editorial one it beats on relevance alone', () => {
    expect(ids(applySponsorshipRule([sp('S', 0.81), ed('E', 0.8)]))).toEqual(['S', 'E']);
  });

  it('never lifts a sponsored result above a better editorial one', () => {
    expect(ids(applySponsorshipRule([sp('S', 0.5), ed('E1', 0.9), ed('E2', 0.7)]))).toEqual(['E1', 'E2', 'S']);
  });

  it('keeps the engine order inside a tie class of the same kind (stable)', () => {
    const input = [ed('E2', 0.7), sp('S2', 0.7), ed('E1', 0.7), sp('S1', 0.7)];
    expect(ids(applySponsorshipRule(input))).toEqual(['E2', 'E1', 'S2', 'S1']);
  });

  it('treats sponsored: false as editorial', () => {
    expect(ids(applySponsorshipRule([sp('S', 0.4), { id: 'E', score: 0.4, sponsored: false }]))).toEqual(['E', 'S']);
  });

  it('does not mutate its input', () => {
    const input = [sp('S', 0.8), ed('E', 0.8)];
    applySponsorshipRule(input);
    expect(ids(input)).toEqual(['S', 'E']);
  });

  it('violatesSponsorshipRule detects the forbidden pattern', () => {
    expect(violatesSponsorshipRule([sp('S', 0.8), ed('E', 0.8)])).toBe(true);
    expect(violatesSponsorshipRule([sp('S', 0.8), ed('E', 0.9)])).toBe(true);
    expect(violatesSponsorshipRule([sp('S', 0.81), ed('E', 0.8)])).toBe(false);
    expect(violatesSponsorshipRule([ed('E', 0.8), sp('S', 0.8)])).toBe(false);
  });
});

describe('applySponsorshipRule (properties)', () => {
  // Scores on the published grid (two decimals), drawn from a small range so ties are common.
  const score = fc.integer({ min: 0, max: 12 }).map((n) => (n * 7) / 100);
  const items = fc
    .array(fc.record({ score, sponsored: fc.boolean() }), { maxLength: 25 })
    .map((rows) => rows.map((r, i): Item => (r.sponsored ? sp(`i${i}`, r.score) : ed(`i${i}`, r.score))));

  it('returns a permutation of its input', () => {
    fc.assert(
      fc.property(items, (input) => {
        expect(ids(applySponsorshipRule(input)).sort()).toEqual(ids(input).sort());
      }),
    );
  });

  it('orders by score, highest first (relevance is the ranking)', () => {
    fc.assert(
      fc.property(items, (input) => {
        const out = applySponsorshipRule(input);
        for (let i = 1; i < out.length; i += 1) expect(out[i - 1]!.score).toBeGreaterThanOrEqual(out[i]!.score);
      }),
    );
  });

  it('never lists a sponsored result above an editorial one with an equal or higher score', () => {
    fc.assert(
      fc.property(items, (input) => {
        expect(violatesSponsorshipRule(applySponsorshipRule(input))).toBe(false);
      }),
    );
  });

  it('gives sponsorship zero boost: sponsoring an item never moves it up', () => {
    fc.assert(
      fc.property(items, fc.nat(), (input, pick) => {
        fc.pre(input.length > 0);
        const k = pick % input.length;
        const asEditorial = input.map((it, i) => (i === k ? ed(it.id, it.score) : it));
        const asSponsored = input.map((it, i) => (i === k ? sp(it.id, it.score) : it));
        const before = ids(applySponsorshipRule(asEditorial)).indexOf(input[k]!.id);
        const after = ids(applySponsorshipRule(asSponsored)).indexOf(input[k]!.id);
        expect(after).toBeGreaterThanOrEqual(before);
      }),
    );
  });

  it('leaves editorial order untouched: with nothing sponsored it is a stable sort by score', () => {
    fc.assert(
      fc.property(items, (input) => {
        const editorial = input.map((it) => ed(it.id, it.score));
        const expected = editorial
          .map((it, i) => ({ it, i }))
          .sort((a, b) => b.it.score - a.it.score || a.i - b.i)
          .map(({ it }) => it.id);
        expect(ids(applySponsorshipRule(editorial))).toEqual(expected);
      }),
    );
  });

  it('keeps the relative order of the editorial results, and of the sponsored ones, within a score', () => {
    fc.assert(
      fc.property(items, (input) => {
        const out = applySponsorshipRule(input);
        const position = new Map(input.map((it, i) => [it.id, i]));
        for (let i = 1; i < out.length; i += 1) {
          const [a, b] = [out[i - 1]!, out[i]!];
          if (a.score === b.score && (a.sponsored === true) === (b.sponsored === true)) {
            expect(position.get(a.id)!).toBeLessThan(position.get(b.id)!);
          }
        }
      }),
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(items, (input) => {
        const once = applySponsorshipRule(input);
        expect(ids(applySponsorshipRule(once))).toEqual(ids(once));
      }),
    );
  });
});
