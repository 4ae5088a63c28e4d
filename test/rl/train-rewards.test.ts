import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteMilestoneStore } from '../../core/rewards/admire/milestone-store.js';
import { rewardEpisodeFromResult } from '../../core/rewards/episode.js';
import { createJudgeModel, saveJudge } from '../../core/rewards/shepherd/builtin.js';
import { TrainConfigError, type TrainConfigInput } from '../../core/rl/config.js';
import { creditSteps, returnsToGo } from '../../core/rl/credit.js';
import { loadCheckpoint } from '../../core/policy/checkpoint.js';
import { runRollouts, type RolloutJob } from '../../core/rollout/rollouts.js';
import { RolloutWorkerPool } from '../../core/rollout/rollout-workers.js';
import { METRIC } from '../../core/rl/grpo-loop.js';
import { trainGrpo } from '../../core/rl/train-grpo.js';
import { REWARD_METRIC, TrainingRewards } from '../../core/rl/train-rewards.js';
import { listEpisodes, loadTrajectory, openStore } from '../../core/store/index.js';
import { createRng } from '../../core/util/rng.js';
import { GRPO_POOL, grpoTestConfig, sftWarmStart } from '../helpers/grpo-fixture.js';
import { scratch } from '../helpers/scratch.js';
import { device } from '../helpers/simdroid.js';

const d = device();
const { dir: tmp, cleanup } = scratch('awb-grpo-rewards-');
afterAll(() => {
  d.close();
  cleanup();
});
let init = '';
beforeAll(async () => {
  init = await sftWarmStart(d, tmp());
});
const config = (over: TrainConfigInput = {}) => grpoTestConfig(init, over);

describe('reward credit (core/rl/credit.ts)', () => {
  it('return-to-go discounts later rewards and propagates an unscored step to every earlier one', () => {
    expect(returnsToGo([1, 0, 1], 0.5)).toEqual([1.25, 0.5, 1]);
    expect(returnsToGo([0, 0, 1], 1)).toEqual([1, 1, 1]);
    expect(returnsToGo([], 0.9)).toEqual([]);
    const r = returnsToGo([1, Number.NaN, 2], 0.9);
    expect(Number.isNaN(r[0]!) && Number.isNaN(r[1]!)).toBe(true);
    expect(r[2]).toBe(2);
    expect(() => returnsToGo([1], 1.5)).toThrow(/gamma/);
  });

  it('episode-sum puts the return on every step, step keeps each value', () => {
    expect(creditSteps([0.5, -1, 1], 'episode-sum', 0.9)).toEqual([0.5, 0.5, 0.5]);
    expect(creditSteps([0.5, -1, 1], 'step', 0.9)).toEqual([0.5, -1, 1]);
    expect(creditSteps([0.5, -1, 1], 'return-to-go', 0)).toEqual([0.5, -1, 1]);
  });
});

describe('TrainConfig.rewards', () => {
  it('refuses combinations that cannot work, naming each field', () => {
    const err = (() => {
      try {
        config({
          rewards: { components: [{ kind: 'outcome', weight: 1 }, { kind: 'shortest-path', weight: 1 }, { kind: 'outcome', weight: 2 }], credit: 'step' },
        });
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(TrainConfigError);
    const problems = (err as TrainConfigError).problems.join('\n');
    expect(problems).toMatch(/rewards\.credit: 'step' .* advantage\.mode 'step', got 'trajectory'/);
    expect(problems).toMatch(/rewards\.components\.1: .*adagrpo\.shortestPath/);
    expect(problems).toMatch(/rewards\.components\.2\.kind: outcome is already/);
    expect(() => config({ rewards: { credit: 'return-to-go' }, advantage: { mode: 'step' } })).toThrow(/needs rewards\.components/);
    expect(() => config({ rewards: { components: [{ kind: 'nope', weight: 1 }] } } as unknown as TrainConfigInput)).toThrow(TrainConfigError);
  });
});

describe('GRPO on composed rewards', () => {
  it('the outcome component alone, summed per episode, trains exactly as the checker outcome does', async () => {
    const plain = await trainGrpo({ config: config({ iterations: 2 }), outDir: tmp(), instances: GRPO_POOL, devices: [d] });
    const composed = await trainGrpo({
      config: config({ iterations: 2, rewards: { components: [{ kind: 'outcome', weight: 1 }] } }), outDir: tmp(), instances: GRPO_POOL, devices: [d],
    });
    expect(Array.from(composed.model.net.params)).toEqual(Array.from(plain.model.net.params));
    for (const [i, m] of composed.history.entries()) {
      expect(m.metrics[REWARD_METRIC.total]).toBe(plain.history[i]!.metrics[METRIC.rewardMean]);
      expect(m.metrics[REWARD_METRIC.kind('outcome')]).toBe(plain.history[i]!.metrics[METRIC.rewardMean]);
      expect(m.metrics[REWARD_METRIC.unscored]).toBe(0);
      const share = m.metrics[REWARD_METRIC.share]!;
      expect(share > 0 && share < 1).toBe(true);
    }
  });

  it('ADMIRE step-level training distils milestones from the batch successes into the run store and pays milestone credit', async () => {
    const db = openStore(':memory:');
    const run = await trainGrpo({
      config: config({
        // seed 4: iteration 2 has successes (the batch's first successes distil the milestones)
        seed: 4, iterations: 2, advantage: { mode: 'step' },
        rewards: {
          credit: 'step',
          components: [{ kind: 'outcome', weight: 1, options: { placement: 'every' } }, { kind: 'format', weight: 1 }, { kind: 'admire', weight: 1 }],
        },
      }),
      outDir: tmp(), instances: GRPO_POOL, devices: [d], db, recordEpisodes: true,
    });
    const successes = run.history.map((m) => m.metrics[METRIC.successRate]!);
    expect(successes.some((s) => s > 0)).toBe(true);
    // Phase 1 ran: every template with a success in the batch has milestones in the run's store.
    const store = new SqliteMilestoneStore(db);
    expect(store.templates().length).toBeGreaterThan(0);
    expect(run.history.some((m) => m.metrics[REWARD_METRIC.kind('admire')]! > 0)).toBe(true);
    for (const m of run.history) expect(m.metrics[REWARD_METRIC.kind('format')]).toBeLessThanOrEqual(0);
    // the recorded rollouts carry every component's values, ADMIRE's explanations included
    const stored = listEpisodes(db, { runId: run.runId! }).rows.map((e) => loadTrajectory(db, e.id));
    expect(stored).toHaveLength(2 * 2 * 4);
    for (const t of stored) {
      const last = t.steps.at(-1)!;
      expect(Object.keys(last.rewards).sort()).toEqual(['admire', 'format', 'outcome']);
      expect(last.rewards.outcome!.value).toBe(t.episode.status === 'success' ? 1 : 0);
      expect(t.steps.every((s) => s.rewards.outcome?.value === last.rewards.outcome!.value)).toBe(true); // placement every
    }
    expect(stored.some((t) => t.steps.some((s) => /hit m\d/.test(s.rewards.admire?.explanation ?? '')))).toBe(true);
    db.close();
  });

  it('return-to-go credit trains with a GUI-Shepherd judge from a checkpoint', async () => {
    const dir = tmp();
    saveJudge(join(dir, 'judge.json'), createJudgeModel(createRng('judge-test')));
    const run = await trainGrpo({
      config: config({
        iterations: 1, advantage: { mode: 'step' },
        rewards: { credit: 'return-to-go', gamma: 0.9, components: [{ kind: 'outcome', weight: 1 }, { kind: 'shepherd', weight: 0.5, options: { judge: { kind: 'builtin', checkpoint: 'judge.json' } } }] },
      }),
      // a relative checkpoint is under the data folder
      outDir: tmp(), instances: GRPO_POOL, devices: [d], rewardContext: { dataDir: dir },
    });
    const m = run.history[0]!.metrics;
    // probabilities in (0, 1) summed over ≥ 1 step per episode
    expect(m[REWARD_METRIC.kind('shepherd')]!).toBeGreaterThan(0);
    expect(m[REWARD_METRIC.unscored]).toBe(0);
    expect(m[METRIC.batchSteps]!).toBeGreaterThan(0);
  });

  it('an episode without a checker verdict is unscored as a whole: NaN values, counted, never 0', async () => {
    const jobs: RolloutJob[] = [0, 1].map((k) => ({ group: 0, rollout: k, instance: GRPO_POOL[0]!, rngKey: `unscored/${k}` }));
    const model = loadCheckpoint(init).model;
    const rollouts = await runRollouts([d], jobs, { model, temperature: 1, maxSteps: 4, captureTrees: true });
    rollouts[1]!.result = { ...rollouts[1]!.result, status: 'error', success: false, terminatedBy: 'environment_error' };
    const rewards = (await TrainingRewards.start(config({ rewards: { components: [{ kind: 'outcome', weight: 1 }, { kind: 'format', weight: 1 }] } }).rewards, {}))!;
    const scored = await rewards.score([rollouts], 1);
    expect(scored.metrics[REWARD_METRIC.unscored]).toBe(1);
    expect(Number.isNaN(scored.returns[0]![1]!)).toBe(true);
    expect(scored.stepValues[0]![1]!.every(Number.isNaN)).toBe(true);
    expect(Number.isFinite(scored.returns[0]![0]!)).toBe(true);
    // what the components saw: each step with the tree it was taken on
    const ep = rewardEpisodeFromResult(jobs[0]!.instance, rollouts[0]!.result, rollouts[0]!.trees);
    expect(ep.steps.length).toBeGreaterThan(0);
    ep.steps.forEach((s, i) => expect(s.tree).toBe(rollouts[0]!.trees![i]));
    expect(ep.success).toBe(rollouts[0]!.result.success);
  });

  it('worker-thread rollouts capture the same trees as in-process ones', async () => {
    const model = loadCheckpoint(init).model;
    const jobs: RolloutJob[] = GRPO_POOL.slice(0, 2).map((instance, k) => ({ group: k, rollout: 0, instance, rngKey: `trees/${k}` }));
    const opts = { model, temperature: 1, maxSteps: 5, captureTrees: true };
    const here = await runRollouts([d], jobs, opts);
    const pool = await RolloutWorkerPool.start({ workers: 1 });
    try {
      const there = await pool.run(jobs, opts);
      for (const [i, r] of here.entries()) {
        expect(r.trees!.length).toBe(r.result.steps.length);
        expect(r.trees![0]).toMatch(/<hierarchy/);
        expect(there[i]!.trees).toEqual(r.trees);
      }
    } finally {
      await pool.close();
    }
  });
});
