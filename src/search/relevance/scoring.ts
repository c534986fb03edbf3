// From signals to the matched set: calibration, fusion with the topic labels, the cutoff (with minimum
// matches), the order, and the type weights. The matched set is what search pages through and explore counts.
import type { NormalisedFilter } from '../query-filter';
import { compareText } from '../query-text';
import type { PreparedQuery } from './query-understanding';
import type { CandidateSignals } from './retrieval';
import { baselineCosine, fuse, gatedLexical, scoreConfidence, semanticAgreement, semanticSignal, semanticWeight, toScore } from './signals';
import { topicBoost } from './topic-labels';

/**
 * Entries under this relevance are not in the matched set (search results, explore counts). Guards the
 * off-topic queries: the lowest threshold at which they keep fewer than 3 results on average (dev half of
 * bench/relevance); docs/relevance.md has what it keeps of the relevant entries.
 */
export const RELEVANCE_CUTOFF = 0.25;
/**
 * Minimum matches (docs/relevance.md): a query whose text brings fewer than MINIMUM_MATCHES entries to
 * RELEVANCE_CUTOFF also gets its best candidates, by relevance, down to RELEVANCE_FLOOR, up to MINIMUM_MATCHES
 * in all (matchThreshold). Guards long, specific needs ("which cargo ships are anchored off Rotterdam right
 * now") whose entry stands first just under the cutoff. 3 and 0.15: the most results and the lowest floor that
 * keep the cutoff's rule for the off-topic queries.
 */
export const MINIMUM_MATCHES = 3;
export const RELEVANCE_FLOOR = 0.15;

export interface Match {
  identifier: string;
  /** What the cutoff reads: the fused signals. */
  relevance: number;
  /** 0-100: relevance x the entry type's weight (1 unless typeWeights apply); the list is in its order. */
  score: number;
  /** The entry's media type; null if unknown (typeWeights then count it as 1). */
  type: string | null;
  semantic: number;
  lexical: number;
  /** Raw best cosine similarity (before calibration), raised toward the best tool's (withToolCosine). */
  cosine: number;
  /** The position (in entries.tools) of the tool whose vector raised the cosine; absent when none did. */
  vectorTool?: number;
  /** What the query's topic labels add (0 to TOPIC_WEIGHT, before fusion): topicBoost, x semanticAgreement under the cutoff. */
  topic: number;
  /** semanticAgreement of the entry's cosine with the query's baseline (0-1): what confidentScores reads. */
  agreement: number;
}

/**
 * A candidate's two signals on [0, 1] from its raw ones; `baseline` is the query's semantic baseline, `readable` the
 * share of the query the model could read (PreparedQuery.readable).
 */
export type CalibrationStage = (row: CandidateSignals, baseline: number, readable: number) => { semantic: number; lexical: number };

/** The cosine calibrated; the lexical signal with the guesses' share gated by semantic agreement. */
export const calibrate: CalibrationStage = (row, baseline, readable) => ({
  semantic: semanticSignal(row.cosine),
  lexical: gatedLexical(row.lexical, row.typedLexical, row.cosine, baseline, readable),
});

/** A candidate's signals after calibration and the corrections' semantic gate, and its relevance with the topic labels. */
export interface ScoredCandidate {
  identifier: string;
  row: CandidateSignals;
  semantic: number;
  lexical: number;
  /** The relevance without the topic labels: what the cutoff reads. */
  base: number;
  topic: number;
  relevance: number;
  /** semanticAgreement with the query's baseline. */
  agreement: number;
  /**
   * Whether the embedding singles the candidate out (agreement above 0), or cannot say (a text the model reads none
   * of): what a minimum-matches fill needs.
   */
  singledOut: boolean;
}

export function scoreSignals(
  q: Pick<PreparedQuery, 'unseenShare' | 'readable'>,
  rows: CandidateSignals[],
  topics: ReadonlyMap<string, number>,
  calibration: CalibrationStage,
): ScoredCandidate[] {
  const baseline = baselineCosine(rows.map((r) => r.cosine));
  // What the embedding says counts as far as the model could read the query: a Chinese query's vector (USE-lite
  // knows no Chinese character) is that of unknown tokens, near every other such text, and vouches for nothing.
  const readable = q.readable ?? 1;
  const weight = semanticWeight(q.unseenShare) * readable;
  return rows.map((row) => {
    const { semantic, lexical } = calibration(row, baseline, readable);
    const base = fuse(semantic, lexical, weight);
    // A label lifts a match freely. An entry under RELEVANCE_CUTOFF has no evidence of its own, and there a
    // label is a guess like a correction: it counts by the entry's semantic agreement ("banana bread" stands
    // out for the tag "fork", which GitHub's server holds). The production cutoff, whatever threshold the
    // pipeline applies, so the benchmark's uncut list shows production relevance.
    const labelled = topicBoost(row.tags, topics) * readable;
    const agreement = semanticAgreement(row.cosine, baseline) * readable;
    const topic = base >= RELEVANCE_CUTOFF ? labelled : labelled * agreement;
    const singledOut = agreement > 0 || readable === 0;
    return { identifier: row.identifier, row, semantic, lexical, base, topic, relevance: fuse(topic, base, 1), agreement, singledOut };
  });
}

/**
 * What a candidate needs to be matched: base relevance (without the topic labels) at the cutoff, or, when
 * fewer than MINIMUM_MATCHES candidates reach it, to be one of the MINIMUM_MATCHES best by relevance (topic
 * labels included; ties by identifier) among those at RELEVANCE_FLOOR or above that the embedding singles out
 * (decision 0013): `fill`, which depends on the query text alone (the pipeline's scoring).
 */
export interface MatchThreshold {
  cutoff: number;
  fill: ReadonlySet<string>;
}

type ThresholdCandidate = { identifier: string; base: number; relevance: number; singledOut: boolean };

/** The matched set's threshold over a query's scored candidates. */
export type ThresholdStage = (candidates: ReadonlyArray<ThresholdCandidate>) => MatchThreshold;

export function matchThreshold(
  candidates: ReadonlyArray<ThresholdCandidate>,
  cutoff = RELEVANCE_CUTOFF,
  minimum = MINIMUM_MATCHES,
): MatchThreshold {
  if (minimum <= 0 || candidates.filter((c) => c.base >= cutoff).length >= minimum) return { cutoff, fill: new Set() };
  const best = candidates
    .filter((c) => c.relevance >= RELEVANCE_FLOOR && c.singledOut)
    .sort((a, b) => b.relevance - a.relevance || compareIdentifiers(a, b))
    .slice(0, minimum);
  return { cutoff, fill: new Set(best.map((c) => c.identifier)) };
}

/** The production threshold: RELEVANCE_CUTOFF with MINIMUM_MATCHES. */
export const threshold: ThresholdStage = (candidates) => matchThreshold(candidates);

export function isMatched(c: { identifier: string; base: number }, threshold: MatchThreshold): boolean {
  return c.base >= threshold.cutoff || threshold.fill.has(c.identifier);
}

/** The matched candidates as matches, best first (relevance, then identifier). */
export function toMatches(scored: ScoredCandidate[], threshold: MatchThreshold): Match[] {
  return scored
    .filter((c) => isMatched(c, threshold))
    .map(({ row, semantic, lexical, topic, relevance, agreement }) => ({
      identifier: row.identifier,
      type: row.type,
      relevance,
      score: toScore(relevance),
      semantic,
      lexical,
      cosine: row.cosine,
      ...(row.vectorTool !== undefined ? { vectorTool: row.vectorTool } : {}),
      topic,
      agreement,
    }))
    .sort((a, b) => b.relevance - a.relevance || compareIdentifiers(a, b));
}

function compareIdentifiers(a: { identifier: string }, b: { identifier: string }): number {
  return compareText(a.identifier, b.identifier);
}

/**
 * The type weights (SEARCH_TYPE_WEIGHTS) of a search whose filter does not name `type`: each match ranks
 * and scores at relevance x its type's weight, ties by identifier. The matched set is the same (the cutoff
 * read the relevance), so POST /explore's count for a type is what filtering on it returns. A filter on
 * `type` means the client chose the types: nothing is weighted.
 */
export function applyTypeWeights(matches: Match[], filter: NormalisedFilter, weights: Readonly<Record<string, number>>): Match[] {
  if (!typeWeightsApply(filter, weights)) return matches;
  return rankBy(matches, (match) => match.relevance * typeWeight(match, filter, weights));
}

/** True when the type weights change anything: some are set and the filter does not name `type`. */
function typeWeightsApply(filter: NormalisedFilter, weights: Readonly<Record<string, number>>): boolean {
  return Object.keys(weights).length > 0 && !filter.some((f) => f.path === 'type');
}

/** A match's type weight in a search with `filter` (1 when the weights do not apply, or its type has none). */
export function typeWeight(match: Pick<Match, 'type'>, filter: NormalisedFilter, weights: Readonly<Record<string, number>>): number {
  if (!typeWeightsApply(filter, weights)) return 1;
  return match.type !== null && Object.hasOwn(weights, match.type) ? weights[match.type] : 1;
}

/**
 * The matches ordered by `rankOf` (on [0, 1]), ties by identifier, each scored at toScore of it: the order
 * and the scores agree, within 0-100. A match whose rank is its relevance keeps its score.
 */
export function rankBy(matches: readonly Match[], rankOf: (match: Match) => number): Match[] {
  return matches
    .map((match) => ({ match, rank: rankOf(match) }))
    .sort((a, b) => b.rank - a.rank || compareIdentifiers(a.match, b.match))
    .map(({ match, rank }) => (rank === match.relevance ? match : { ...match, score: toScore(rank) }));
}

/**
 * The scores a client sees (docs/relevance.md, "What the 0-100 score means"): each match's score x its
 * scoreConfidence, capped by the score before it so the list stays in score order. The order is the ranking's:
 * nothing moves, only how sure each score says the match is.
 */
export function confidentScores(matches: readonly Match[]): Match[] {
  let cap = 100;
  return matches.map((match) => {
    const score = Math.min(cap, Math.round(match.score * scoreConfidence(match.lexical, match.agreement)));
    cap = score;
    return score === match.score ? match : { ...match, score };
  });
}
