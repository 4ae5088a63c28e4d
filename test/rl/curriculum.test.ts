import { describe, expect, it } from 'vitest';
import {
  advanceCurriculum,
  eligibleAtStage,
  initialCurriculum,
  sampleIterationTasks,
  stageDifficulties,
  weightedSample,
  CurriculumError,
  type CurriculumCandidate,
  type CurriculumOptions,
} from '../../core/rl/curriculum.js';
import { createRng } from '../../core/util/rng.js';

const tasks: CurriculumCandidate[] = [
  { key: 'e1', difficulty: 'easy' },
  { key: 'e2', difficulty: 'easy' },
  { key: 'm1', difficulty: 'medium' },
  { key: 'h1', difficulty: 'hard' },
];

describe('curriculum stages', () => {
  it('samples easy, then easy + medium, then all', () => {
    expect(stageDifficulties(1)).toEqual(['easy']);
    expect(stageDifficulties(2)).toEqual(['easy', 'medium']);
    expect(stageDifficulties(3)).toEqual(['easy', 'medium', 'hard']);
    expect(eligibleAtStage(tasks, 2).map((t) => t.key)).toEqual(['e1', 'e2', 'm1']);
  });

  it("'iterations' switches at the configured fractions of the run", () => {
    const opts: CurriculumOptions = { mode: 'iterations', stageAt: [1 / 3, 2 / 3] };
    let s = initialCurriculum(opts);
    const stages: number[] = [];
    for (let i = 0; i < 9; i++) {
      s = advanceCurriculum(s, opts, i, 9, null);
      stages.push(s.stage);
    }
    expect(stages).toEqual([1, 1, 1, 2, 2, 2, 3, 3, 3]);
  });

  it("'success' advances once the last window's mean success rate reaches the threshold", () => {
    const opts: CurriculumOptions = { mode: 'success', threshold: 0.5, window: 2 };
    let s = initialCurriculum(opts);
    s = advanceCurriculum(s, opts, 1, 100, 0.9);
    expect(s.stage).toBe(1); // one iteration is not a window
    s = advanceCurriculum(s, opts, 2, 100, 0.05);
    expect(s.stage).toBe(1); // mean 0.475
    s = advanceCurriculum(s, opts, 3, 100, 0.95);
    expect(s.stage).toBe(2); // mean of [0.05, 0.95] = 0.5
    s = advanceCurriculum(s, opts, 4, 100, 0.9);
    expect(s.stage).toBe(2); // the window restarts in the new stage
  });

  it("'none' samples every difficulty from the start", () => {
    const opts: CurriculumOptions = { mode: 'none' };
    expect(initialCurriculum(opts).stage).toBe(3);
    expect(advanceCurriculum(initialCurriculum(opts), opts, 0, 10, null).stage).toBe(3);
  });

  it('falls through to the next stage with eligible tasks', () => {
    const noEasy = tasks.filter((t) => t.difficulty !== 'easy');
    expect(eligibleAtStage(noEasy, 1).map((t) => t.key)).toEqual(['m1']);
    expect(eligibleAtStage(noEasy.filter((t) => t.difficulty === 'hard'), 1).map((t) => t.key)).toEqual(['h1']);
    expect(eligibleAtStage([], 1)).toEqual([]);
  });
});

describe('weightedSample', () => {
  it('draws distinct items, never one of weight 0, and all positive ones when asked for more', () => {
    const picked = weightedSample(['a', 'b', 'c'], [1, 0, 2], 5, createRng(1));
    expect([...picked].sort()).toEqual(['a', 'c']);
  });

  it('is reproducible for a seed and follows the weights', () => {
    expect(weightedSample(['a', 'b', 'c', 'd'], [1, 1, 1, 1], 2, createRng(9))).toEqual(weightedSample(['a', 'b', 'c', 'd'], [1, 1, 1, 1], 2, createRng(9)));
    const rng = createRng(4);
    let a = 0;
    for (let i = 0; i < 3000; i++) if (weightedSample(['a', 'b'], [3, 1], 1, rng)[0] === 'a') a++;
    expect(a / 3000).toBeGreaterThan(0.72);
    expect(a / 3000).toBeLessThan(0.78);
  });

  it('refuses negative or non-finite weights and mismatched lengths', () => {
    expect(() => weightedSample(['a'], [-1], 1, createRng(1))).toThrow(CurriculumError);
    expect(() => weightedSample(['a'], [Number.NaN], 1, createRng(1))).toThrow(CurriculumError);
    expect(() => weightedSample(['a'], [1, 2], 1, createRng(1))).toThrow(/one weight per item/);
  });
});

describe('sampleIterationTasks', () => {
  it('samples only the stage’s difficulties, weighted by the FCF weight', () => {
    const picked = sampleIterationTasks(tasks, 1, 2, createRng(2));
    expect(picked.map((t) => t.key).sort()).toEqual(['e1', 'e2']);
    const weighted = sampleIterationTasks(tasks, 3, 4, createRng(2), (key) => (key === 'h1' ? 0 : 1));
    expect(weighted.map((t) => t.key).sort()).toEqual(['e1', 'e2', 'm1']);
  });
});
