// A peer's score is an input, not a fact: it is mapped onto this registry's own 0-100 scale by
// quantile matching (docs/federation.md, "Scores"). For each registry (this one and every peer) the
// scores of the top CALIBRATION_DEPTH results of its recent first pages are kept (the last
// CALIBRATION_WINDOW), together with a prior of PRIOR_SCORES spread evenly over 0-100. A peer's score s
// becomes
//     calibrated(s) = Q_local(F_peer(s))
// F_peer: the share of the peer's kept scores below s, plus half the share equal to s (mid-rank);
// Q_local: the score at that share of this registry's kept scores (linear interpolation).
// So a score means "as good a match, for the registry that gave it, as a result scoring this is for
// us". A peer whose scale is ours maps onto itself; a peer that calls everything 100 (or 150) gets the
// middle of our scale for everything, whatever number it writes; a new peer starts near the identity
// (the prior) and its own scores take over as they accumulate.
//
// The map is frozen for a query as two rows of CALIBRATION_KNOTS knots (the peer's scores and ours at
// the same shares), kept in the page token, so later pages map the same way as the first and scores
// stay ordered across pages.

/** Scores of each registry kept for calibration (a ring buffer). */
export const CALIBRATION_WINDOW = 500;
/** Results of a first page whose scores are kept (the same depth for every registry). */
export const CALIBRATION_DEPTH = 20;
/** The prior: this many scores spread evenly over 0-100 (0, 5, ..., 100). */
export const PRIOR_SCORES = 21;
/** Knots of a frozen map: the scores at shares 0, 1/20, ..., 1. */
export const CALIBRATION_KNOTS = 21;

const PRIOR = Array.from({ length: PRIOR_SCORES }, (_v, i) => (100 * i) / (PRIOR_SCORES - 1));

/** A frozen map: peer-scale knots `from` and this registry's knots `to`, both non-decreasing, same length. */
export interface ScoreMap {
  from: number[];
  to: number[];
}

export class ScoreHistory {
  private readonly scores: number[] = [];
  private next = 0;

  /** Keeps the top CALIBRATION_DEPTH scores of a first page (in the order sent). */
  record(scores: readonly number[]): void {
    for (const s of scores.slice(0, CALIBRATION_DEPTH)) {
      if (!Number.isFinite(s)) continue;
      if (this.scores.length < CALIBRATION_WINDOW) this.scores.push(s);
      else this.scores[this.next] = s;
      this.next = (this.next + 1) % CALIBRATION_WINDOW;
    }
  }

  /** The kept scores and the prior, ascending. */
  sample(): number[] {
    return [...PRIOR, ...this.scores].sort((a, b) => a - b);
  }
}

/** The score at share q (0-1) of an ascending sample, interpolated linearly. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 100 * q;
  const pos = Math.min(1, Math.max(0, q)) * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

function knots(sorted: readonly number[]): number[] {
  return Array.from({ length: CALIBRATION_KNOTS }, (_v, i) => round1(quantile(sorted, i / (CALIBRATION_KNOTS - 1))));
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}

/** The map of a peer's scale onto ours, from the two histories as they are now. */
export function scoreMap(peer: ScoreHistory, local: ScoreHistory): ScoreMap {
  return { from: knots(peer.sample()), to: knots(local.sample()) };
}

/**
 * Share (0-1) of the peer's knots below s, plus half of those equal to s (mid-rank, so a peer that sends
 * one score for everything lands in the middle); between two knots, interpolated.
 */
export function shareOf(from: readonly number[], s: number): number {
  const n = from.length;
  let below = 0;
  while (below < n && from[below]! < s) below++;
  let upTo = below;
  while (upTo < n && from[upTo]! === s) upTo++;
  if (upTo > below) return (below + upTo - 1) / 2 / (n - 1);
  if (below === 0) return 0;
  if (below === n) return 1;
  const a = from[below - 1]!;
  const b = from[below]!;
  return (below - 1 + (s - a) / (b - a)) / (n - 1);
}

/** A peer's raw score on this registry's scale (real; rounded only when shown). */
export function calibrate(map: ScoreMap, s: number): number {
  return quantile(map.to, shareOf(map.from, s));
}

/** A map is usable when both rows have CALIBRATION_KNOTS finite, non-decreasing numbers (a page token's). */
export function isScoreMap(x: unknown): x is ScoreMap {
  const row = (r: unknown) =>
    Array.isArray(r) &&
    r.length === CALIBRATION_KNOTS &&
    r.every((v, i) => typeof v === 'number' && Number.isFinite(v) && (i === 0 || v >= (r[i - 1] as number)));
  return !!x && typeof x === 'object' && row((x as ScoreMap).from) && row((x as ScoreMap).to);
}
