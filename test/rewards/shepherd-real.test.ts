import { afterAll, describe, expect, it } from 'vitest';
import { getTemplate } from '../../core/tasks/registry.js';
import { instantiate } from '../../core/tasks/instance.js';
import { BuiltinPolicy, createModel } from '../../core/policy/builtin.js';
import { collectDemonstrations } from '../../core/rl/demonstrations.js';
import { parseSftConfig, trainSft } from '../../core/rl/sft.js';
import { createRng } from '../../core/util/rng.js';
import { BuiltinJudge, createJudgeModel, parseJudgeTrainConfig, trainJudge } from '../../core/rewards/shepherd/builtin.js';
import { collectLabelledSteps } from '../../core/rewards/shepherd/collect.js';
import { judgeAccuracy, verifierGain } from '../../core/rewards/shepherd/evaluate.js';
import { device } from '../helpers/simdroid.js';

const d = device();
afterAll(() => d.close());

const TEMPLATES = ['SystemWifiTurnOn', 'SystemBluetoothTurnOff', 'ClockStopwatchRun', 'TasksAddTask', 'ContactsDeleteContact', 'SystemRenameDevice'];
const TRAIN_SEEDS = [0, 1, 2, 3, 4, 5];
const TEST_SEEDS = [100, 101, 102, 103];
const inst = (seeds: number[]) => TEMPLATES.flatMap((id) => seeds.map((s) => instantiate(getTemplate(id), s)));

describe('GUI-Shepherd on SimDroid (small real run)', () => {
  it('the builtin judge trained on oracle vs deviating steps classifies held-out steps well above chance, and the verifier does not hurt a sampling policy', async () => {
    const train = await collectLabelledSteps(d, inst(TRAIN_SEEDS), { rng: createRng('shepherd-real/train') });
    const test = await collectLabelledSteps(d, inst(TEST_SEEDS), { rng: createRng('shepherd-real/test') });
    expect(train.oracleFailures).toBe(0);
    const pos = train.steps.filter((s) => s.label === 1).length;
    expect(pos).toBeGreaterThan(30);
    expect(train.steps.length - pos).toBeGreaterThan(20);

    const model = createJudgeModel(createRng('shepherd-real/judge'));
    const untrained = await judgeAccuracy(new BuiltinJudge(model), test.steps);
    const metrics = trainJudge(model, train.steps, parseJudgeTrainConfig({ epochs: 40 }));
    const judge = new BuiltinJudge(model);
    const acc = await judgeAccuracy(judge, test.steps);

    // A weak base policy: briefly cloned from two seeds, sampled at temperature 1.
    const policyModel = createModel(createRng('shepherd-real/policy'));
    const demos = await collectDemonstrations(d, inst([0, 1, 2]), policyModel);
    trainSft(policyModel, demos.demos, parseSftConfig({ epochs: 12, batchSize: 16 }));
    const gain = await verifierGain(d, inst(TEST_SEEDS), (key) => new BuiltinPolicy(policyModel, { mode: 'sample', temperature: 1, rng: createRng(`shepherd-real/sample/${key}`) }), judge, 3);
    console.log(JSON.stringify({ train: train.steps.length, trainPos: pos, test: test.steps.length, untrained, acc, loss: [metrics[0]!['loss/bce'], metrics.at(-1)!['loss/bce']], gain }));

    expect(metrics.at(-1)!['loss/bce']).toBeLessThan(metrics[0]!['loss/bce']);
    expect(acc.unjudged).toBe(0);
    expect(acc.accuracy).toBeGreaterThan(0.8);
    expect(acc.accuracy).toBeGreaterThan(untrained.accuracy + 0.2);
    expect(gain.episodes).toBe(TEMPLATES.length * TEST_SEEDS.length);
    expect(gain.verified).toBeGreaterThanOrEqual(gain.base);
  }, 600_000);
});
