import { beforeEach, describe, expect, it } from 'vitest';
import { openStore, type WritableDB } from '../../core/store/db.js';
import { EpisodeNotFoundError, RewardValueError, StepNotFoundError } from '../../core/store/errors.js';
import { asEpisodeId, type EpisodeId } from '../../core/store/ids.js';
import { putRewards } from '../../core/store/rewards.js';
import { createRun } from '../../core/store/runs.js';
import { loadTrajectory } from '../../core/store/trajectory.js';
import { recordSynthetic } from './helpers.js';

let db: WritableDB;
let episode: EpisodeId;
beforeEach(() => {
  db = openStore(':memory:');
  const run = createRun(db, { kind: 'single', name: 'rewards' });
  episode = recordSynthetic(db, run.id, { templateId: 'ContactsAddContact', steps: 3, status: 'success', startedAt: 1 });
});

const rewardsOf = () => loadTrajectory(db, episode).steps.map((s) => s.rewards);

describe('step rewards', () => {
  it('loads rewards by kind with the trajectory, beside the outcome reward', () => {
    putRewards(db, episode, 'progrm', [
      { step: 0, value: 0.25, explanation: 'milestone: contact form open' },
      { step: 2, value: 0.75, explanation: 'milestone: saved' },
    ]);
    expect(rewardsOf()).toEqual([
      { progrm: { value: 0.25, explanation: 'milestone: contact form open' } },
      {},
      { progrm: { value: 0.75, explanation: 'milestone: saved' }, outcome: { value: 1, explanation: 'checker: success' } },
    ]);
  });

  it('replaces every reward of the kind for the episode and leaves other kinds alone', () => {
    putRewards(db, episode, 'admire', [{ step: 0, value: 1, explanation: 'a' }, { step: 1, value: 1, explanation: 'b' }]);
    putRewards(db, episode, 'admire', [{ step: 1, value: -0.5, explanation: 'recomputed' }]);
    expect(rewardsOf()).toEqual([
      {},
      { admire: { value: -0.5, explanation: 'recomputed' } },
      { outcome: { value: 1, explanation: 'checker: success' } },
    ]);
    putRewards(db, episode, 'admire', []);
    expect(rewardsOf()[1]).toEqual({});
  });

  it('refuses a non-finite value, an unknown step or episode, and then changes nothing', () => {
    putRewards(db, episode, 'admire', [{ step: 0, value: 0.5, explanation: 'kept' }]);
    expect(() => putRewards(db, episode, 'admire', [{ step: 1, value: Number.NaN, explanation: '' }]))
      .toThrow(expect.objectContaining({ name: 'RewardValueError', kind: 'admire', step: 1 }));
    expect(() => putRewards(db, episode, 'admire', [{ step: 1, value: Infinity, explanation: '' }])).toThrow(RewardValueError);
    expect(() => putRewards(db, episode, 'admire', [{ step: 3, value: 1, explanation: '' }])).toThrow(StepNotFoundError);
    expect(() => putRewards(db, asEpisodeId(404), 'admire', [])).toThrow(EpisodeNotFoundError);
    expect(rewardsOf()[0]).toEqual({ admire: { value: 0.5, explanation: 'kept' } });
  });
});
