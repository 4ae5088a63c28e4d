/**
 * GUI-Shepherd (issue 7, digest 002): the builtin judge trained on SimDroid steps labelled by the
 * oracle (oracle steps vs deviating candidates), its held-out accuracy in the unseen-instance and
 * unseen-template regimes, judging speed, and the best-of-n verifier's gain over a weak sampling
 * policy (SFT on 2 seeds for 10 or 30 epochs, temperature 1) on the unseen-instance test part, for
 * n = 3 and 5 over 3 sampling seeds.
 *   node --import tsx bench/shepherd.ts   (or `npm run bench -- shepherd` once registered in bench/run.ts)
 */
import { SimDroid } from '../emulators/simdroid/simdroid.js';
import { BuiltinPolicy, createModel } from '../core/policy/builtin.js';
import { collectDemonstrations } from '../core/rl/demonstrations.js';
import { parseSftConfig, trainSft } from '../core/rl/sft.js';
import { TASKS } from '../core/tasks/registry.js';
import { instantiate } from '../core/tasks/instance.js';
import { splitInstances, splitTemplates } from '../core/tasks/splits.js';
import { createRng } from '../core/util/rng.js';
import { BuiltinJudge, createJudgeModel, parseJudgeTrainConfig, trainJudge } from '../core/rewards/shepherd/builtin.js';
import { collectLabelledSteps } from '../core/rewards/shepherd/collect.js';
import { judgeAccuracy, verifierGain } from '../core/rewards/shepherd/evaluate.js';

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

export async function benchShepherd(): Promise<Record<string, unknown>> {
  const device = new SimDroid();
  const results: Record<string, unknown> = {};
  try {
    const ui = (part: 'train' | 'test') => splitInstances(TASKS, 'unseen-template', part);
    const trainSeeds = new Set([1, 2]);
    const train = ui('train').filter((i) => trainSeeds.has(i.seed));
    // Unseen instances: the training templates at a test seed.
    const unseenInstance = splitTemplates(TASKS, 'unseen-template', 'train').map((t) => instantiate(t, 30));
    const unseenTemplate = ui('test').filter((i) => i.seed === 30 || i.seed === 7);

    let t0 = performance.now();
    const trainSet = await collectLabelledSteps(device, train, { rng: createRng('bench-shepherd/train') });
    const collectS = (performance.now() - t0) / 1000;
    const testUi = await collectLabelledSteps(device, unseenInstance, { rng: createRng('bench-shepherd/test-ui') });
    const testUt = await collectLabelledSteps(device, unseenTemplate, { rng: createRng('bench-shepherd/test-ut') });
    const pos = trainSet.steps.filter((s) => s.label === 1).length;
    results.data = {
      trainInstances: train.length, trainSteps: trainSet.steps.length, trainPositives: pos, oracleFailures: trainSet.oracleFailures,
      unseenInstanceSteps: testUi.steps.length, unseenTemplateSteps: testUt.steps.length, collectS: round(collectS, 1),
    };
    console.log('data', results.data);

    for (const hidden of [0, 16]) {
      const model = createJudgeModel(createRng(`bench-shepherd/judge/${hidden}`), undefined, hidden);
      t0 = performance.now();
      const m = trainJudge(model, trainSet.steps, parseJudgeTrainConfig({ epochs: 40 }));
      const trainS = (performance.now() - t0) / 1000;
      const judge = new BuiltinJudge(model);
      const accUi = await judgeAccuracy(judge, testUi.steps);
      const accUt = await judgeAccuracy(judge, testUt.steps);
      t0 = performance.now();
      const inputs = testUi.steps.map((s) => s.input);
      await judge.judge(inputs);
      const msPerStep = (performance.now() - t0) / inputs.length;
      const key = hidden === 0 ? 'judgeLogistic' : 'judgeMlp16';
      results[key] = {
        trainS: round(trainS, 1), finalLoss: round(m.at(-1)!['loss/bce']), trainAcc: round(m.at(-1)!['acc/train']),
        unseenInstance: { acc: round(accUi.accuracy), tpr: round(accUi.truePositiveRate), tnr: round(accUi.trueNegativeRate) },
        unseenTemplate: { acc: round(accUt.accuracy), tpr: round(accUt.truePositiveRate), tnr: round(accUt.trueNegativeRate) },
        msPerStep: round(msPerStep, 3),
      };
      console.log(key, results[key]);
    }

    // Verifier gain: a weak sampling policy with and without the MLP judge.
    const judgeModel = createJudgeModel(createRng('bench-shepherd/judge/16'));
    trainJudge(judgeModel, trainSet.steps, parseJudgeTrainConfig({ epochs: 40 }));
    const judge = new BuiltinJudge(judgeModel);
    const demos = await collectDemonstrations(device, train, createModel(createRng('bench-shepherd/policy')));
    const gains: Record<string, unknown>[] = [];
    // Two base policies from the same demonstrations: weak (10 SFT epochs) and stronger (30).
    for (const sftEpochs of [10, 30]) {
      const policyModel = createModel(createRng('bench-shepherd/policy'));
      trainSft(policyModel, demos.demos, parseSftConfig({ epochs: sftEpochs, batchSize: 16 }));
      for (const n of [3, 5]) {
        for (const s of [0, 1, 2]) {
          t0 = performance.now();
          const g = await verifierGain(device, unseenInstance, (key) => new BuiltinPolicy(policyModel, { mode: 'sample', temperature: 1, rng: createRng(`bench-shepherd/sample/${s}/${key}`) }), judge, n);
          const row = { sftEpochs, n, samplingSeed: s, episodes: g.episodes, base: round(g.base), verified: round(g.verified), gain: round(g.gain), wallS: round((performance.now() - t0) / 1000, 1) };
          gains.push(row);
          console.log('verifier', row);
        }
      }
    }
    results.verifier = gains;
  } finally {
    device.close();
  }
  return results;
}
