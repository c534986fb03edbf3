import { tagLabelText } from '../../src/embedding/tag-vectors';
import { expandQuery } from '../../src/search/query-text';
import {
  adjacentPairs,
  applyTypeWeights,
  BM25_K1,
  confidentScores,
  CORRECTION_AGREEMENT_SPAN,
  fuse,
  idf,
  isMatched,
  lexicalMax,
  matchThreshold,
  MINIMUM_MATCHES,
  lexicalSignal,
  RELEVANCE_CUTOFF,
  RELEVANCE_FLOOR,
  saturation,
  scoreConfidence,
  semanticAgreement,
  SEMANTIC_WEIGHT,
  semanticSignal,
  SEMANTIC_CEILING,
  SEMANTIC_FLOOR,
  toScore,
  TOPIC_WEIGHT,
  UNAGREED_SCORE_DISCOUNT,
  TOPIC_Z_FLOOR,
  TOPIC_Z_FULL,
  topicBoost,
  type Match,
  type QueryTerm,
} from '../../src/search/relevance';

const N = 1000;
const tf = (o: Record<string, number>) => new Map(Object.entries(o).map(([k, v]) => [k, { name: v, other: 0 }]));
const term = (group: number, lexeme: string, df: number, weight = 1): QueryTerm => ({ group, lexeme, weight, df, idf: idf(df, N) });

describe('BM25 scoring', () => {
  it('IDF falls with document frequency and stays positive for a word in every entry', () => {
    expect(idf(1, N)).toBeGreaterThan(idf(10, N));
    expect(idf(10, N)).toBeGreaterThan(idf(500, N));
    expect(idf(N, N)).toBeGreaterThan(0);
    expect(idf(0, N)).toBeCloseTo(Math.log(1 + (N + 0.5) / 0.5), 10);
  });

  it('term saturation grows with tf, stays under 1, and only the non-name part is length-normalised', () => {
    expect(saturation(0, 0, 10, 10)).toBe(0);
    expect(saturation(1, 0, 10, 10)).toBeCloseTo(1 / (1 + BM25_K1), 10);
    expect(saturation(6, 0, 10, 10)).toBeGreaterThan(saturation(3, 0, 10, 10));
    expect(saturation(1000, 0, 10, 10)).toBeLessThan(1);
    expect(saturation(0, 3, 40, 10)).toBeLessThan(saturation(0, 3, 10, 10));
    expect(saturation(3, 0, 40, 10)).toBe(saturation(3, 0, 10, 10));
  });

  it('a concept counts once: the best of its alternatives, an expansion below the typed word', () => {
    const q = { terms: [term(0, 'k8s', 3), term(0, 'kubernet', 20, 0.9), term(1, 'pod', 40)], averageLength: 10 };
    const max = lexicalMax(q.terms, N);
    expect(max).toBeCloseTo(idf(3, N) + idf(40, N), 10);
    const both = lexicalSignal({ ...q, lexicalMax: max }, tf({ k8s: 3, kubernet: 3, pod: 3 }), 10);
    const onlyExpansion = lexicalSignal({ ...q, lexicalMax: max }, tf({ kubernet: 3, pod: 3 }), 10);
    const onlyRare = lexicalSignal({ ...q, lexicalMax: max }, tf({ k8s: 3 }), 10);
    expect(both).toBeGreaterThan(onlyExpansion);
    expect(onlyExpansion).toBeGreaterThan(0);
    expect(both).toBeLessThanOrEqual(1);
    // The rarer concept weighs more than the common one.
    expect(onlyRare).toBeGreaterThan(lexicalSignal({ ...q, lexicalMax: max }, tf({ pod: 3 }), 10));
  });

  it('a word the corpus does not hold still counts in the maximum (an off-topic query is no perfect match)', () => {
    const terms = [term(0, 'banana', 0), term(1, 'server', 600)];
    expect(lexicalMax(terms, N)).toBeCloseTo(idf(0, N) + idf(600, N), 10);
    const signal = lexicalSignal({ terms, lexicalMax: lexicalMax(terms, N), averageLength: 10 }, tf({ server: 10 }), 10);
    expect(signal).toBeLessThan(0.15);
  });

  it('a CJK bigram the corpus does not hold counts nothing: it most likely straddles two words', () => {
    // 查一下微博 ("look up Weibo"): 查一, 一下, 下微 are not in the corpus, 微博 is.
    const terms = [term(0, '查一', 0), term(1, '一下', 0), term(2, '下微', 0), term(3, '微博', 2)];
    expect(lexicalMax(terms, N)).toBeCloseTo(idf(2, N), 10);
    expect(lexicalSignal({ terms, lexicalMax: lexicalMax(terms, N), averageLength: 10 }, tf({ 微博: 1 }), 10)).toBeGreaterThan(0.4);
    // A word in another script still counts; a text none of whose bigrams the corpus holds is as one unseen word.
    expect(lexicalMax([...terms, term(4, 'banana', 0)], N)).toBeCloseTo(idf(2, N) + idf(0, N), 10);
    expect(lexicalMax([term(0, '股票', 0), term(1, '票行', 0)], N)).toBeCloseTo(idf(0, N), 10);
  });
});

describe('fusion and the 0-100 score', () => {
  it('maps cosine linearly between the floor and the ceiling', () => {
    expect(semanticSignal(SEMANTIC_FLOOR - 0.1)).toBe(0);
    expect(semanticSignal(SEMANTIC_CEILING + 0.1)).toBe(1);
    expect(semanticSignal((SEMANTIC_FLOOR + SEMANTIC_CEILING) / 2)).toBeCloseTo(0.5, 10);
  });

  it("keeps a single signal's clear win and ranks agreement of both above either alone", () => {
    expect(fuse(0, 0.95)).toBeCloseTo(0.95, 10);
    expect(fuse(1, 0)).toBeCloseTo(SEMANTIC_WEIGHT, 10);
    expect(fuse(0.6, 0.6)).toBeGreaterThan(fuse(0, 0.6));
    expect(fuse(0.6, 0.6)).toBeGreaterThan(fuse(0.6, 0));
  });

  it('stays within [0, 1] and never falls when a signal rises', () => {
    const grid = [0, 0.1, 0.3, 0.5, 0.7, 0.9, 1];
    for (const s of grid) {
      for (const l of grid) {
        const r = fuse(s, l);
        expect(r).toBeGreaterThanOrEqual(0);
        expect(r).toBeLessThanOrEqual(1);
        expect(fuse(Math.min(1, s + 0.1), l)).toBeGreaterThanOrEqual(r);
        expect(fuse(s, Math.min(1, l + 0.1))).toBeGreaterThanOrEqual(r);
      }
    }
  });

  it('scores are integers 0-100', () => {
    expect(toScore(0.904)).toBe(90);
    expect(toScore(1.2)).toBe(100);
    expect(toScore(-0.1)).toBe(0);
  });
});

describe('applyTypeWeights', () => {
  const match = (identifier: string, relevance: number, type: string | null): Match => ({
    identifier,
    relevance,
    score: toScore(relevance),
    type,
    semantic: 0,
    lexical: 0,
    cosine: 0,
    topic: 0,
    agreement: 0,
  });
  const weights = { 'application/paper': 0.5 };

  it('ranks and scores by relevance x the type weight; unlisted, unknown and prototype-named types weigh 1; ties by identifier', () => {
    const matches = [
      match('p', 0.9, 'application/paper'),
      match('t', 0.6, 'application/tool'),
      match('c', 0.45, 'constructor'),
      match('n', 0.45, null),
    ];
    const out = applyTypeWeights(matches, [], weights);
    expect(out.map((m) => [m.identifier, m.score, m.relevance])).toEqual([
      ['t', 60, 0.6],
      ['c', 45, 0.45],
      ['n', 45, 0.45],
      ['p', 45, 0.9],
    ]);
  });

  it('weighs nothing when the filter names type or no weights are set', () => {
    const matches = [match('p', 0.9, 'application/paper'), match('t', 0.6, 'application/tool')];
    expect(applyTypeWeights(matches, [{ path: 'type', values: ['application/tool'] }], weights)).toBe(matches);
    expect(applyTypeWeights(matches, [], {})).toBe(matches);
    // A filter on another field keeps the weights.
    expect(applyTypeWeights(matches, [{ path: 'tags', values: ['x'] }], weights).map((m) => m.identifier)).toEqual(['t', 'p']);
  });
});

describe('adjacentPairs', () => {
  it('joins neighbouring typed words of 2+ letters or digits, never an expansion or a one-letter piece', () => {
    expect(adjacentPairs(expandQuery('pager duty alerts'))).toEqual([
      { first: 0, second: 1, joined: 'pagerduty', words: ['pager', 'duty'] },
      { first: 1, second: 2, joined: 'dutyalerts', words: ['duty', 'alerts'] },
    ]);
    // "agent's" tokenizes as agent + s; "k8s" expands to kubernetes (not typed); "node.js" is not letters only.
    expect(adjacentPairs(expandQuery("my agent's k8s node.js")).map((p) => p.joined)).toEqual(['myagent']);
  });
});

describe('topicBoost (topic labels, relevance6)', () => {
  const topics = new Map([
    ['weather-api', TOPIC_Z_FULL + 1],
    ['forecasting', (TOPIC_Z_FLOOR + TOPIC_Z_FULL) / 2],
    ['travel', TOPIC_Z_FLOOR],
  ]);

  it('is TOPIC_WEIGHT x the best label share of the z range from TOPIC_Z_FLOOR (0) to TOPIC_Z_FULL (1), capped at 1', () => {
    expect(topicBoost(['weather-api'], topics)).toBeCloseTo(TOPIC_WEIGHT, 12);
    expect(topicBoost(['forecasting'], topics)).toBeCloseTo(TOPIC_WEIGHT / 2, 12);
    expect(topicBoost(['travel'], topics)).toBe(0);
    // The best of the entry's labels counts, not their sum.
    expect(topicBoost(['travel', 'forecasting', 'weather-api'], topics)).toBeCloseTo(TOPIC_WEIGHT, 12);
    expect(topicBoost(['forecasting', 'travel'], topics)).toBeCloseTo(TOPIC_WEIGHT / 2, 12);
  });

  it('is 0 for an entry without any of the labels, for no labels, and for no tags', () => {
    expect(topicBoost(['database', 'sql'], topics)).toBe(0);
    expect(topicBoost(['weather-api'], new Map())).toBe(0);
    expect(topicBoost([], topics)).toBe(0);
  });

  it('fuses with the other signals as a noisy OR', () => {
    expect(fuse(topicBoost(['weather-api'], topics), 0.5, 1)).toBeCloseTo(0.5 + TOPIC_WEIGHT * 0.5, 12);
    expect(fuse(topicBoost(['forecasting'], topics), RELEVANCE_CUTOFF, 1)).toBeCloseTo(
      RELEVANCE_CUTOFF + (TOPIC_WEIGHT / 2) * (1 - RELEVANCE_CUTOFF),
      12,
    );
  });
});

describe('matchThreshold (minimum matches)', () => {
  const c = (identifier: string, base: number, relevance = base, singledOut = true) => ({ identifier, base, relevance, singledOut });
  const matched = (candidates: ReturnType<typeof c>[], options: { cutoff?: number; minimumMatches?: number } = {}) => {
    const threshold = matchThreshold(candidates, options.cutoff, options.minimumMatches);
    return candidates.filter((x) => isMatched(x, threshold)).map((x) => x.identifier);
  };

  it('with MINIMUM_MATCHES candidates at the cutoff, the cutoff alone decides', () => {
    expect(MINIMUM_MATCHES).toBe(3);
    const candidates = [c('a', 0.9), c('b', 0.3), c('c', RELEVANCE_CUTOFF), c('d', 0.24), c('e', 0.2)];
    expect(matchThreshold(candidates).fill.size).toBe(0);
    expect(matched(candidates)).toEqual(['a', 'b', 'c']);
  });

  it('with fewer, the best MINIMUM_MATCHES by relevance (topic labels included) at RELEVANCE_FLOOR or above', () => {
    // 'd' has the lower base but a label lifts it over 'c'; 'e' is under the floor whatever its base.
    const candidates = [c('a', 0.5), c('c', 0.22), c('d', 0.16, 0.23), c('b', 0.2), c('e', 0.14, 0.149)];
    expect(matched(candidates)).toEqual(['a', 'c', 'd']);
    expect(matched([c('a', 0.2), c('b', 0.1, 0.16), c('e', 0.149)])).toEqual(['a', 'b']);
    expect(matched([c('x', 0.1), c('y', 0.05)])).toEqual([]);
    expect(RELEVANCE_FLOOR).toBeLessThan(RELEVANCE_CUTOFF);
  });

  it('fills only with candidates the embedding singles out (decision 0013)', () => {
    // 'b' is the better by relevance but does not stand out from the query's baseline: 'c' and 'd' fill.
    const candidates = [c('a', 0.3), c('b', 0.22, 0.22, false), c('c', 0.2), c('d', 0.16)];
    expect(matched(candidates)).toEqual(['a', 'c', 'd']);
    // Nothing singled out under the cutoff: the matched set is the cutoff's alone.
    expect(matched([c('a', 0.3), c('b', 0.2, 0.2, false), c('e', 0.18, 0.18, false)])).toEqual(['a']);
  });

  it('ties at the last place go by identifier, so the set has exactly MINIMUM_MATCHES whatever the order', () => {
    const candidates = [c('z', 0.2), c('m', 0.2), c('k', 0.2), c('a', 0.2), c('top', 0.21)];
    expect(matched(candidates).sort()).toEqual(['a', 'k', 'top']);
    expect(matched([...candidates].reverse()).sort()).toEqual(['a', 'k', 'top']);
  });

  it('minimumMatches 0 turns it off; a cutoff option moves the cutoff', () => {
    const candidates = [c('a', 0.2), c('b', 0.19)];
    expect(matched(candidates, { minimumMatches: 0 })).toEqual([]);
    expect(matched(candidates, { cutoff: 0.195, minimumMatches: 0 })).toEqual(['a']);
    expect(matched(candidates, { cutoff: 0 })).toEqual(['a', 'b']);
  });
});

describe('semanticAgreement', () => {
  it('is 0 at or under the baseline, 1 from CORRECTION_AGREEMENT_SPAN above it, linear between', () => {
    expect(semanticAgreement(0.3, 0.3)).toBe(0);
    expect(semanticAgreement(0.2, 0.3)).toBe(0);
    expect(semanticAgreement(0.3 + CORRECTION_AGREEMENT_SPAN / 4, 0.3)).toBeCloseTo(0.25, 12);
    expect(semanticAgreement(0.3 + CORRECTION_AGREEMENT_SPAN, 0.3)).toBe(1);
    expect(semanticAgreement(0.9, 0.3)).toBe(1);
  });
});

describe('scores a client sees (confidentScores)', () => {
  const match = (identifier: string, relevance: number, lexical: number, agreement: number): Match => ({
    identifier,
    relevance,
    score: toScore(relevance),
    type: null,
    semantic: 0,
    lexical,
    cosine: 0,
    topic: 0,
    agreement,
  });

  it('a match the embedding does not single out gives up UNAGREED_SCORE_DISCOUNT of its score; full agreement or every concept in the name keeps it', () => {
    expect(scoreConfidence(0.5, 0)).toBeCloseTo(1 - UNAGREED_SCORE_DISCOUNT);
    expect(scoreConfidence(0.5, 0.5)).toBeCloseTo(1 - UNAGREED_SCORE_DISCOUNT / 2);
    expect(scoreConfidence(0.5, 1)).toBe(1);
    expect(scoreConfidence(1, 0)).toBe(1);
  });

  it('keeps the order and caps each score by the one before it', () => {
    const ranked = [match('a', 0.6, 0.5, 0), match('b', 0.58, 0.4, 1), match('c', 0.3, 0.2, 1), match('d', 0.2, 1, 0)];
    const scored = confidentScores(ranked);
    expect(scored.map((m) => m.identifier)).toEqual(['a', 'b', 'c', 'd']);
    expect(scored.map((m) => m.score)).toEqual([45, 45, 30, 20]);
    expect(scored.map((m) => m.relevance)).toEqual([0.6, 0.58, 0.3, 0.2]);
  });
});

describe('tagLabelText', () => {
  it.each([
    ['weather-api', 'weather api'],
    ['region:us', 'region us'],
    ['ai_ml', 'ai ml'],
    ['node.js', 'node js'],
    ['Korea Weather Forecast', 'Korea Weather Forecast'],
    ['--', ''],
  ])('%s -> %s', (tag, text) => {
    expect(tagLabelText(tag)).toBe(text);
  });
});
