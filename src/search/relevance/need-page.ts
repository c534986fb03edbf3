// The ranked list of a text with several needs (need-texts.ts): coverage first. The whole text and each need
// are ranked by the pipeline on their own. The list opens with the whole text's best entry, then the best entry
// not yet placed of every need the text names (by score), then that of every need it implies (by score), then
// every other match by its best score over the lists. Scores are capped by the one before, so the list stays in
// score order (docs/relevance.md, "Several needs").
import { compareText } from '../query-text';
import { RELEVANCE_CUTOFF, type Match } from './scoring';

/**
 * Rounds of one entry per list before the rest. 1: the best of the whole text and of each need. 2 and 3 (the
 * second and third best of each too) covered fewer LiveMCPBench tasks, 0.568 against 0.589
 * (docs/decisions/0031-several-needs.md).
 */
export const COVERAGE_ROUNDS = 1;

function byScore(a: Match, b: Match): number {
  return b.score - a.score || b.relevance - a.relevance || compareText(a.identifier, b.identifier);
}

/** How a text's needs are assembled (assembleNeedPage). */
export interface NeedPageOptions {
  /**
   * For each need, whether the text implies it rather than names it (need-texts.ts, isImpliedNeed): in a round,
   * the picks of the needs it names go first. An implied need is written in the words entries use ("read and
   * write files ...") and outscores the named ones, but it is a guess at what the task needs: on LiveMCPBench,
   * named first, MRR@10 0.752 → 0.762 (decision 0039).
   */
  implied?: readonly boolean[];
  rounds?: number;
}

/**
 * The matched set of a text with several needs: the union of the whole text's and each need's matched sets,
 * each entry at its best score and relevance over the lists, in coverage order, each score capped by the one
 * before it. A need takes part in the rounds only with matches at the cutoff (minimum matches' weak fill covers
 * nothing); the whole text's best goes first in the first round (its single-need order keeps its first place).
 */
export function assembleNeedPage(whole: readonly Match[], needs: ReadonlyArray<readonly Match[]>, options: NeedPageOptions = {}): Match[] {
  const { implied = [], rounds = COVERAGE_ROUNDS } = options;
  const best = new Map<string, Match>();
  for (const match of [whole, ...needs].flat()) {
    const known = best.get(match.identifier);
    if (!known || byScore(match, known) < 0) best.set(match.identifier, match);
  }
  const lists = [whole, ...needs].map((list) => list.filter((m) => m.relevance >= RELEVANCE_CUTOFF));
  const placed = new Set<string>();
  const ordered: Match[] = [];
  const place = (match: Match) => {
    placed.add(match.identifier);
    ordered.push(match);
  };
  for (let round = 0; round < rounds; round++) {
    const picks = new Map<string, Match>();
    const impliedPicks = new Set<string>();
    lists.forEach((list, i) => {
      const next = list.find((m) => !placed.has(m.identifier) && !picks.has(m.identifier));
      if (!next) return;
      picks.set(next.identifier, best.get(next.identifier)!);
      if (i > 0 && implied[i - 1]) impliedPicks.add(next.identifier);
    });
    const [first, ...others] = [...picks.values()];
    if (round === 0 && first && first.identifier === lists[0][0]?.identifier) place(first);
    else if (first) others.push(first);
    const isImplied = (m: Match) => Number(impliedPicks.has(m.identifier));
    others.sort((a, b) => isImplied(a) - isImplied(b) || byScore(a, b)).forEach(place);
  }
  [...best.values()]
    .filter((m) => !placed.has(m.identifier))
    .sort(byScore)
    .forEach(place);
  let cap = Infinity;
  return ordered.map((match) => {
    const score = Math.min(match.score, cap);
    cap = score;
    return score === match.score ? match : { ...match, score };
  });
}
