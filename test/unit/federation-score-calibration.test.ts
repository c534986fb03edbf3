// docs/federation.md "Scores": a peer's score is mapped onto this registry's scale by quantile matching.
import { CALIBRATION_KNOTS, ScoreHistory, calibrate, isScoreMap, scoreMap, shareOf } from '../../src/federation/score-calibration';

const spread = (from: number, to: number, n: number) => Array.from({ length: n }, (_v, i) => from + ((to - from) * i) / (n - 1));

describe('score calibration', () => {
  it('maps a peer whose scale is ours onto itself', () => {
    const local = new ScoreHistory();
    const peer = new ScoreHistory();
    for (let q = 0; q < 20; q++) {
      local.record(spread(95, 30, 20));
      peer.record(spread(95, 30, 20));
    }
    const map = scoreMap(peer, local);
    for (const s of [30, 42, 60, 88, 95]) expect(Math.abs(calibrate(map, s) - s)).toBeLessThan(1.5);
  });

  it('a peer that inflates (everything 100, or 150) lands in the middle of our scale, not the top', () => {
    const local = new ScoreHistory();
    const inflated = new ScoreHistory();
    const above = new ScoreHistory();
    for (let q = 0; q < 25; q++) {
      local.record(spread(90, 20, 20));
      inflated.record(Array(20).fill(100));
      above.record(Array(20).fill(150));
    }
    const middle = calibrate(scoreMap(new ScoreHistory(), local), 50);
    for (const h of [inflated, above]) {
      const s = calibrate(scoreMap(h, local), h === inflated ? 100 : 150);
      expect(s).toBeGreaterThan(middle - 5);
      expect(s).toBeLessThan(middle + 8);
      expect(s).toBeLessThan(70);
    }
  });

  it('a peer on another scale (0-1) keeps its order and reaches our top for its best', () => {
    const local = new ScoreHistory();
    const peer = new ScoreHistory();
    for (let q = 0; q < 25; q++) {
      local.record(spread(92, 25, 20));
      peer.record(spread(0.97, 0.3, 20));
    }
    const map = scoreMap(peer, local);
    const out = [0.97, 0.8, 0.5, 0.3].map((s) => calibrate(map, s));
    expect([...out].sort((a, b) => b - a)).toEqual(out);
    expect(out[0]).toBeGreaterThan(85);
    expect(out[3]).toBeLessThan(35);
    for (const s of out) expect(s).toBeGreaterThanOrEqual(0);
  });

  it('a new peer starts from the prior: its scores map about onto themselves', () => {
    const map = scoreMap(new ScoreHistory(), new ScoreHistory());
    expect(map.from).toHaveLength(CALIBRATION_KNOTS);
    for (const s of [0, 25, 70, 100]) expect(calibrate(map, s)).toBeCloseTo(s, 5);
    expect(shareOf([50, 50, 50], 50)).toBe(0.5);
  });

  it('checks a frozen map from a page token', () => {
    const map = scoreMap(new ScoreHistory(), new ScoreHistory());
    expect(isScoreMap(map)).toBe(true);
    expect(isScoreMap({ from: map.from.slice(1), to: map.to })).toBe(false);
    expect(isScoreMap({ from: [...map.from].reverse(), to: map.to })).toBe(false);
    expect(isScoreMap({ from: map.from.map(String), to: map.to })).toBe(false);
  });
});
