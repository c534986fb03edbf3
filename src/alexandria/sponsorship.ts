/**
 * The sponsorship rule (docs/alexandria.md, "Sponsorship rule"; the contract: "Sponsored results are marked
 * in the record and never outrank editorial order").
 *
 *   1. Relevance is the only ranking signal. Sponsorship adds exactly zero to a score.
 *   2. Results are ordered by their published score (0..1, two decimals), highest first.
 *   3. At equal published score every editorial result comes before every sponsored one; otherwise the
 *      relevance engine's order is kept (the sort is stable).
 *
 * Invariant an agent can check from any response: if a sponsored result is listed above an editorial one,
 * its score is strictly greater. Ties are judged on the published (rounded) score, not the engine's raw
 * score, so a sponsored 0.914 never sits above an editorial 0.912 that both read as 0.91.
 */

export interface RankedItem {
  /** The published relevance score (already rounded). */
  score: number;
  /** true only for sponsored records; absent or false for editorial ones. */
  sponsored?: boolean;
}

/** Applies the rule to results given in the relevance engine's order; returns a new array. Pure. */
export function applySponsorshipRule<T extends RankedItem>(rankedResults: readonly T[]): T[] {
  // Array.prototype.sort is stable (ES2019), which is what keeps the engine's order within a tie class.
  return [...rankedResults].sort((a, b) => {
    if (a.score !== b.score) return b.score - a.score;
    return sponsorshipRank(a) - sponsorshipRank(b);
  });
}

function sponsorshipRank(item: RankedItem): number {
  return item.sponsored === true ? 1 : 0;
}

/** The rule's invariant as a predicate (used by tests and usable as a runtime assertion). */
export function violatesSponsorshipRule(results: readonly RankedItem[]): boolean {
  for (let i = 0; i < results.length; i += 1) {
    const above = results[i] as RankedItem;
    if (above.sponsored !== true) continue;
    for (let j = i + 1; j < results.length; j += 1) {
      const below = results[j] as RankedItem;
      if (below.sponsored !== true && below.score >= above.score) return true;
    }
  }
  return false;
}
