import { join } from 'node:path';
import { BuiltinJudge, DEFAULT_JUDGE_HIDDEN, JudgeConfigError, parseJudgeTrainConfig, saveJudge, trainJudge, type LabelledStep } from '../rewards/shepherd/builtin.js';
import type { LabelledSet } from '../rewards/shepherd/collect.js';
import { judgeAccuracy, type JudgeAccuracy } from '../rewards/shepherd/evaluate.js';
import { collectJudgeFitSteps, createFitJudgeModel } from '../rewards/shepherd/fit.js';
import { DEFAULT_JUDGE_CHECKPOINT } from '../rewards/shepherd/index.js';
import { intArg, parseFlags, UsageError } from './args.js';
import { dataDir } from '../util/data-dir.js';
import { embeddedDevice, type Io } from './main.js';
import { COMMON_FIT_FLAGS, CommonFitValues, FIT_USAGE, fitPlan, fmt, progressLines, readTrainConfig } from './rewards-fit.js';

const Flags = { ...COMMON_FIT_FLAGS, deviations: { type: 'string' } } as const;
const Values = CommonFitValues.extend({ deviations: intArg('--deviations').optional() });

const balance = (steps: readonly LabelledStep[]) => ({ steps: steps.length, positives: steps.filter((s) => s.label === 1).length });

/**
 * `awb rewards fit shepherd`: steps labelled by the oracle on SimDroid (core/rewards/shepherd/collect.ts:
 * the oracle's steps are correct, a deviating candidate at an oracle step is not), the builtin judge
 * trained on them, its accuracy at p ≥ 0.5 on held-out steps (GUI-Shepherd reports accuracy on
 * held-out steps, Table 3), and the checkpoint the builtin judge of the 'shepherd' reward reads.
 */
export async function fitShepherdCommand(argv: string[], io: Io): Promise<number> {
  const { values: v, positionals } = parseFlags(argv, Flags, Values);
  if (positionals.length) throw new UsageError(`Unexpected ${JSON.stringify(positionals[0])}.\n${FIT_USAGE}`);
  if (v.deviations === 0) throw new UsageError('--deviations: at least 1 deviating episode per instance (the negatives)');
  const config = readTrainConfig(v.config, parseJudgeTrainConfig, (e) => (e instanceof JudgeConfigError ? e.problems : undefined));
  const plan = fitPlan(v, join(dataDir(), DEFAULT_JUDGE_CHECKPOINT));
  const hidden = v.hidden ?? DEFAULT_JUDGE_HIDDEN;
  io.err(`GUI-Shepherd judge: ${plan.train.length} instances of ${plan.split}/${plan.part}; ${plan.heldOut.length} held out`);

  // collect (core/rewards/shepherd/fit.ts, shared with awb jobs submit --kind prm)
  const collect = (part: 'train' | 'test') => ({ seed: v.seed, part, ...(v.deviations === undefined ? {} : { deviations: v.deviations }) });
  let train: LabelledSet;
  let test: LabelledSet;
  const device = embeddedDevice();
  try {
    train = await collectJudgeFitSteps(device, plan.train, collect('train'), progressLines(io, 'collect', plan.train.length));
    test = await collectJudgeFitSteps(device, plan.heldOut, collect('test'), progressLines(io, 'collect held-out', plan.heldOut.length));
  } finally {
    device.close();
  }
  if (train.steps.length === 0) throw new UsageError('No labelled steps: the oracle took no step on these instances');

  // update
  const model = createFitJudgeModel(v.seed, hidden);
  const metrics = trainJudge(model, train.steps, config, (m) => {
    io.err(`epoch ${m.epoch}/${config.epochs}  loss/bce ${m['loss/bce'].toFixed(4)}  acc/train ${(m['acc/train'] * 100).toFixed(1)}%`);
  });

  // score
  const judge = new BuiltinJudge(model);
  const heldOut: JudgeAccuracy | null = test.steps.length ? await judgeAccuracy(judge, test.steps) : null;
  const summary = {
    checkpoint: plan.out, split: plan.split, part: plan.part, seed: v.seed, hidden, testSeeds: plan.testSeeds,
    templates: new Set(plan.train.map((i) => i.template.id)).size, instances: plan.train.length, heldOutInstances: plan.heldOut.length,
    trainSteps: { ...balance(train.steps), episodes: train.episodes, oracleFailures: train.oracleFailures, noAlternative: train.noAlternative },
    heldOutSteps: balance(test.steps),
    final: metrics.at(-1) ?? null, heldOut,
  };

  // log
  const { checkpoint: _path, ...provenance } = summary;
  saveJudge(plan.out, model, { trainer: 'awb rewards fit shepherd', createdAt: new Date().toISOString(), config, ...provenance });
  if (v.json) {
    io.out(JSON.stringify(summary));
    return 0;
  }
  io.out(`Labelled steps: ${train.steps.length} fitted (${summary.trainSteps.positives} correct) from ${train.episodes} oracle episodes, ${test.steps.length} held out`);
  io.out(heldOut
    ? `Held-out accuracy: ${fmt(heldOut.accuracy)} (correct steps judged correct ${fmt(heldOut.truePositiveRate)}, deviations judged incorrect ${fmt(heldOut.trueNegativeRate)})`
    : 'Held-out accuracy: n/a (no held-out steps)');
  io.out(`Training accuracy: ${fmt(summary.final?.['acc/train'] ?? NaN)}`);
  io.out(`Checkpoint: ${plan.out}`);
  return 0;
}
