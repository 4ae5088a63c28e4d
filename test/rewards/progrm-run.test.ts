import { afterAll, describe, expect, it } from 'vitest';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import { collectEpisode, PerturbedOraclePolicy } from '../../core/rewards/progrm/collect.js';
import { ProgRmReward } from '../../core/rewards/progrm/reward.js';
import { formatStudy, runProgRmStudy } from '../../core/rewards/progrm/study.js';
import { parseProgressTrainConfig } from '../../core/rewards/progrm/train.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { createRng } from '../../core/util/rng.js';
import { checkRewardValues } from '../../core/rewards/component.js';
import { device } from '../helpers/simdroid.js';

const d = device();
afterAll(() => d.close());

const TEMPLATES = ['SystemWifiTurnOn', 'TasksAddTask', 'ContactsDeleteContact'];

describe('ProgRM on SimDroid episodes', () => {
  it('captures ground-truth subgoal progress step by step: complete for the oracle, partial when perturbed', async () => {
    const inst = instantiate(getTemplate('ContactsDeleteContact'), 3);
    const oracle = await collectEpisode(d, inst, new OraclePolicy());
    expect(oracle.success).toBe(true);
    expect(oracle.subgoalNames).toHaveLength(4);
    expect(oracle.subgoalsDone).toHaveLength(oracle.steps.length);
    expect(oracle.subgoalsDone!.at(-1)).toBe(4);
    expect(oracle.steps.every((s) => s.tree?.startsWith('<?xml') || s.tree?.startsWith('<hierarchy'))).toBe(true);
    let failed = 0;
    for (let k = 0; k < 4; k++) {
      const ep = await collectEpisode(d, inst, new PerturbedOraclePolicy(0.5, createRng(`perturb/${k}`)));
      const done = ep.subgoalsDone!;
      for (let t = 1; t < done.length; t++) expect(done[t]).toBeGreaterThanOrEqual(done[t - 1]!);
      if (ep.success === false) {
        failed++;
        expect(done.at(-1)).toBeLessThan(4);
      }
    }
    expect(failed).toBeGreaterThan(0);
  });

  it('trains progress models whose held-out key-step error beats a constant, with ground-truth labels best and the ORM worst', async () => {
    const train = TEMPLATES.flatMap((id) => [0, 1, 2, 3].map((s) => instantiate(getTemplate(id), s)));
    const test = TEMPLATES.flatMap((id) => [100, 101, 102].map((s) => instantiate(getTemplate(id), s)));
    const report = await runProgRmStudy({
      device: d, train, test, trainPerturbations: [0, 0.2, 0.4], testPerturbations: [0, 0.3],
      config: parseProgressTrainConfig({ epochs: 30 }), seed: 1,
    });
    console.log(formatStudy(report));
    expect(report.trainEpisodes.failure).toBeGreaterThan(3);
    expect(report.testEpisodes.failure).toBeGreaterThan(1);
    const by = Object.fromEntries(report.rows.map((r) => [r.source, r]));
    const err = (s: string) => by[s]!.heldOut.keyStepError;
    expect(report.lcsLabelError.keyStepError).toBeLessThan(report.halfBaseline.keyStepError);
    expect(err('lcs')).toBeLessThan(report.halfBaseline.keyStepError);
    expect(err('env')).toBeLessThan(err('lcs'));
    expect(err('lcs')).toBeLessThan(err('outcome'));
    for (const r of report.rows) expect(r.heldOutMae).toBeLessThan(r.constantMae);
    // Progress models give failed episodes partial credit; the ORM pushes them toward 0.
    expect(by.lcs!.heldOut.finalScore.failure).toBeGreaterThan(by.outcome!.heldOut.finalScore.failure);

    // The trained LCS model as a reward: one finite value per step, progress gains that sum to the curve's rise.
    const ep = await collectEpisode(d, test[0]!, new OraclePolicy());
    const values = await new ProgRmReward(by.lcs!.model).compute(ep);
    checkRewardValues('progrm', ep, values);
    expect(values.reduce((s, v) => s + v.value!, 0)).toBeGreaterThan(0.3);
  }, 120_000);
});
