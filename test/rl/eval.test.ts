import { describe, expect, it } from 'vitest';
import { aggregateEval, formatMeanStd, groupStats, meanStd, type EvalEpisode } from '../../core/rl/eval.js';

const ep = (seed: number, templateId: string, success: boolean, over: Partial<EvalEpisode> = {}): EvalEpisode => ({
  seed, templateId, success, error: false, regimes: ['unseen-instance'], difficulty: 'easy', app: 'Clock', ...over,
});

describe('meanStd', () => {
  it('uses the sample (n − 1) standard deviation', () => {
    // mean of 0.5, 0.75, 1 = 0.75; squared deviations 1/16, 0, 1/16 → sum 1/8; /(3−1) = 1/16 → std 0.25
    const r = meanStd([0.5, 0.75, 1]);
    expect(r.mean).toBeCloseTo(0.75, 12);
    expect(r.std).toBeCloseTo(0.25, 12);
  });
  it('gives std null (n/a) for a single value and mean 0, std null for none', () => {
    expect(meanStd([0.4])).toEqual({ mean: 0.4, std: null });
    expect(meanStd([])).toEqual({ mean: 0, std: null });
  });
  it('gives std 0 when every seed agrees', () => {
    expect(meanStd([0.5, 0.5])).toEqual({ mean: 0.5, std: 0 });
  });
});

describe('aggregateEval', () => {
  // Seeds 30, 7, 1234; 4 templates (A, B easy Clock; C, D hard Tasks).
  // seed 30: A✓ B✓ C✓ D✗ → 3/4; seed 7: A✓ B✗ C✗ D✗ → 1/4; seed 1234: A✓ B✓ C✗ D✗(error) → 2/4
  const hard = { difficulty: 'hard', app: 'Tasks', regimes: ['unseen-instance', 'unseen-app'] };
  const episodes: EvalEpisode[] = [
    ep(30, 'A', true), ep(30, 'B', true), ep(30, 'C', true, hard), ep(30, 'D', false, hard),
    ep(7, 'A', true), ep(7, 'B', false), ep(7, 'C', false, hard), ep(7, 'D', false, hard),
    ep(1234, 'A', true), ep(1234, 'B', true), ep(1234, 'C', false, hard), ep(1234, 'D', false, { ...hard, error: true }),
    ep(99, 'A', false), // an unlisted seed: ignored
  ];
  const r = aggregateEval(episodes, [30, 7, 1234]);

  it('computes per-seed rates, then mean ± sample std over seeds', () => {
    expect(r.overall.perSeed.map((s) => s.successRate)).toEqual([0.75, 0.25, 0.5]);
    // mean 0.5; deviations 0.25, −0.25, 0 → ss 0.125; /2 = 0.0625 → std 0.25
    expect(r.overall.mean).toBeCloseTo(0.5, 12);
    expect(r.overall.std).toBeCloseTo(0.25, 12);
    expect(r.overall).toMatchObject({ episodes: 12, successes: 6, errors: 1 });
  });

  it('groups by difficulty, app and regime (an instance may be in several regimes)', () => {
    // easy (A, B): 2/2, 1/2, 2/2 → 1, 0.5, 1 → mean 5/6; ss = 2·(1/6)² + (1/3)² = 1/6; /2 → std sqrt(1/12)
    expect(r.byDifficulty.easy!.mean).toBeCloseTo(5 / 6, 12);
    expect(r.byDifficulty.easy!.std).toBeCloseTo(Math.sqrt(1 / 12), 12);
    // hard (C, D): 1/2, 0, 0 → mean 1/6; ss = (1/3)² + 2·(1/6)² = 1/6 → std sqrt(1/12)
    expect(r.byDifficulty.hard!.mean).toBeCloseTo(1 / 6, 12);
    expect(r.byApp.Tasks!.std).toBeCloseTo(Math.sqrt(1 / 12), 12);
    expect(r.byApp.Tasks!.errors).toBe(1);
    expect(Object.keys(r.byRegime)).toEqual(['unseen-app', 'unseen-instance']);
    expect(r.byRegime['unseen-instance']!.mean).toBeCloseTo(0.5, 12);
    expect(r.byRegime['unseen-app']!.mean).toBeCloseTo(1 / 6, 12);
    expect(r.byRegime['unseen-app']!.episodes).toBe(6);
  });

  it('reports std null with one seed, and formats it as n/a', () => {
    const one = aggregateEval(episodes, [7]);
    expect(one.overall).toMatchObject({ mean: 0.25, std: null, episodes: 4 });
    expect(formatMeanStd(one.overall)).toBe('25.0% ± n/a');
    expect(formatMeanStd(r.overall)).toBe('50.0% ± 25.0');
  });

  it('skips seeds with no episodes in a group rather than counting them as 0', () => {
    const g = groupStats([ep(1, 'A', true), ep(2, 'A', false)], [1, 2, 3]);
    expect(g.perSeed.map((s) => s.seed)).toEqual([1, 2]);
    expect(g.mean).toBe(0.5);
    expect(g.std).toBeCloseTo(Math.SQRT1_2, 12);
  });
});
