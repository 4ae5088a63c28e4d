import { describe, expect, it } from 'vitest';
import {
  emptyFcf,
  emptyReplayBuffer,
  fcfFromHistory,
  fcfWeight,
  pruneNegatives,
  pushReplay,
  sampleReplay,
  updateFcf,
  type FailureCurriculumOptions,
  type PositiveReplayOptions,
  type ReplayCandidate,
} from '../../core/rl/adagrpo.js';
import { createRng } from '../../core/util/rng.js';

describe('AdaPR replay buffer', () => {
  const opts: PositiveReplayOptions = { capacity: 256, topFraction: 0.25, replayRatio: 1, maxAge: 4, balance: 0.5, weighting: 'top-advantage' };
  const cand = (id: string, reward: number, advantage: number, groupSuccessRate = 0.25): ReplayCandidate<string> =>
    ({ id, taskKey: `task-${id}`, episode: `ep-${id}`, reward, advantage, groupSuccessRate });

  it('inserts the top quarter of the batch among positive episodes, with difficulty 1 − success rate', () => {
    const batch = [cand('a', 1, 1.5), cand('b', 1, 2.5), cand('c', 1, 0.5), cand('d', 0, -0.5), cand('e', 0, -0.5), cand('f', 0, -0.5), cand('g', 0, -0.5), cand('h', 1, 1)];
    const b = pushReplay(emptyReplayBuffer<string>(), batch, opts);
    expect(b.entries.map((e) => e.id)).toEqual(['b', 'a']);
    expect(b.entries[0]).toMatchObject({ difficulty: 0.75, insertedAt: 1, episode: 'ep-b' });
    expect(b.iteration).toBe(1);
  });

  it('never inserts failures or non-positive advantages, and refreshes a re-inserted id', () => {
    let b = pushReplay(emptyReplayBuffer<string>(), [cand('x', 0, 3), cand('y', 1, 0), cand('z', 1, 1)], { ...opts, topFraction: 1 });
    expect(b.entries.map((e) => e.id)).toEqual(['z']);
    b = pushReplay(b, [cand('z', 1, 2)], { ...opts, topFraction: 1 });
    expect(b.entries).toHaveLength(1);
    expect(b.entries[0]).toMatchObject({ advantage: 2, insertedAt: 2 });
  });

  it('drops entries maxAge iterations old', () => {
    let b = pushReplay(emptyReplayBuffer<string>(), [cand('a', 1, 1)], { ...opts, topFraction: 1 });
    for (let i = 0; i < 3; i++) b = pushReplay(b, [], opts);
    expect(b.entries).toHaveLength(1);
    b = pushReplay(b, [], opts);
    expect(b.entries).toHaveLength(0);
  });

  it('evicts the lowest 0.5·norm(advantage) + 0.5·norm(age) over capacity', () => {
    const o = { ...opts, topFraction: 1, capacity: 2 };
    let b = pushReplay(emptyReplayBuffer<string>(), [cand('low', 1, 1), cand('mid', 1, 2)], o);
    b = pushReplay(b, [cand('new', 1, 3)], o);
    // scores: low 0, mid 0.25, new 1
    expect(b.entries.map((e) => e.id).sort()).toEqual(['mid', 'new']);
  });

  it("'top-advantage' replays ⌈ratio · fresh⌉ of the best entries", () => {
    const b = pushReplay(emptyReplayBuffer<string>(), [cand('a', 1, 1), cand('b', 1, 3), cand('c', 1, 2)], { ...opts, topFraction: 1 });
    const picked = sampleReplay(b, 2, createRng(1), opts).map((e) => e.id).sort();
    expect(picked).toEqual(['b', 'c']);
    expect(sampleReplay(b, 10, createRng(1), opts)).toHaveLength(3);
    expect(sampleReplay(b, 3, createRng(1), { ...opts, replayRatio: 0.5 })).toHaveLength(2);
  });

  it("'difficulty' replays hard tasks more often, reproducibly for a seed", () => {
    const o: PositiveReplayOptions = { ...opts, topFraction: 1, weighting: 'difficulty' };
    const b = pushReplay(emptyReplayBuffer<string>(), [cand('hard', 1, 1, 0.1), cand('easy', 1, 1, 0.9)], o);
    const rng = createRng(7);
    let hard = 0;
    for (let i = 0; i < 2000; i++) if (sampleReplay(b, 1, rng, o)[0]!.id === 'hard') hard++;
    expect(hard / 2000).toBeGreaterThan(0.85);
    expect(hard / 2000).toBeLessThan(0.95);
    const once = (seed: number) => sampleReplay(b, 1, createRng(seed), o).map((e) => e.id);
    expect(once(3)).toEqual(once(3));
  });
});

describe('pruneNegatives', () => {
  it('keeps at most two failures per success, all successes, and leaves all-fail groups alone', () => {
    const keep = pruneNegatives([[1, 0, 0, 0, 0, 0], [0, 0, 0], [1, 1, 0, 0, 0, 0]], createRng(3));
    expect(keep[0]![0]).toBe(true);
    expect(keep[0]!.filter(Boolean)).toHaveLength(3);
    expect(keep[1]).toEqual([true, true, true]);
    expect(keep[2]).toEqual([true, true, true, true, true, true]);
  });

  it('drops the lowest-reward negatives first', () => {
    const keep = pruneNegatives([[1, -1, 0, 0, 0]], createRng(5));
    expect(keep[0]![1]).toBe(false);
    expect(keep[0]!.filter(Boolean)).toHaveLength(3);
  });

  it('honours another ratio', () => {
    expect(pruneNegatives([[1, 0, 0, 0]], createRng(1), 1)[0]!.filter(Boolean)).toHaveLength(2);
  });
});

describe('FCF', () => {
  const opts: FailureCurriculumOptions = { failStreak: 2, cooldown: 3, removeAfter: 5 };
  const fail = (key = 'A') => [{ taskKey: key, rewards: [0, 0, 0, 0] }];

  it('starts a cooldown of weight exp(−f) after two all-zero iterations, then re-tries at full weight', () => {
    let s = updateFcf(emptyFcf(), fail(), opts);
    expect(fcfWeight(s, 'A')).toBe(1);
    s = updateFcf(s, fail(), opts);
    expect(fcfWeight(s, 'A')).toBeCloseTo(Math.exp(-2), 12);
    for (let i = 0; i < 2; i++) {
      s = updateFcf(s, [], opts);
      expect(fcfWeight(s, 'A')).toBeCloseTo(Math.exp(-2), 12);
    }
    s = updateFcf(s, [], opts);
    expect(fcfWeight(s, 'A')).toBe(1);
    s = updateFcf(s, fail(), opts);
    expect(fcfWeight(s, 'A')).toBeCloseTo(Math.exp(-3), 12);
  });

  it('resets the failure count and ends the cooldown on any success', () => {
    let s = updateFcf(updateFcf(emptyFcf(), fail(), opts), fail(), opts);
    s = updateFcf(s, [{ taskKey: 'A', rewards: [0, 1, 0] }], opts);
    expect(s.tasks.A).toMatchObject({ failures: 0, removed: false });
    expect(fcfWeight(s, 'A')).toBe(1);
  });

  it('removes a task for good after removeAfter all-zero iterations, never with removeAfter null', () => {
    let s = emptyFcf();
    for (let i = 0; i < 5; i++) s = updateFcf(s, fail(), opts);
    expect(fcfWeight(s, 'A')).toBe(0);
    s = updateFcf(s, [{ taskKey: 'A', rewards: [1] }], opts);
    expect(fcfWeight(s, 'A')).toBe(0);
    let t = emptyFcf();
    for (let i = 0; i < 9; i++) t = updateFcf(t, fail(), { ...opts, removeAfter: null });
    expect(fcfWeight(t, 'A')).toBeCloseTo(Math.exp(-9), 12);
  });

  it('ignores tasks with only unscorable rewards and unseen tasks weigh 1', () => {
    const s = updateFcf(emptyFcf(), [{ taskKey: 'A', rewards: [Number.NaN] }], opts);
    expect(s.tasks.A).toBeUndefined();
    expect(fcfWeight(s, 'other')).toBe(1);
  });

  it('rebuilds its state from earlier training histories', () => {
    const s = fcfFromHistory({ A: [[0, 0], [0, 0]], B: [[1, 0]] }, opts);
    expect(s.iteration).toBe(2);
    expect(s.tasks.A!.failures).toBe(2);
    expect(fcfWeight(s, 'A')).toBeCloseTo(Math.exp(-2), 12);
    expect(fcfWeight(s, 'B')).toBe(1);
  });
});
