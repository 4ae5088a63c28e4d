import { join } from 'node:path';
import { BuiltinJudge, createJudgeModel, DEFAULT_JUDGE_HIDDEN, JudgeConfigError, parseJudgeTrainConfig, saveJudge, trainJudge, type LabelledStep } from '../rewards/shepherd/builtin.js';
import { collectLabelledSteps, type LabelledSet } from '../rewards/shepherd/collect.js';
import { judgeAccuracy, type JudgeAccuracy } from '../rewards/shepherd/evaluate.js';
import { DEFAULT_JUDGE_CHECKPOINT } from '../rewards/shepherd/index.js';
import { DEFAULT_ENCODER } from '../policy/encoder.js';
import { createRng } from '../util/rng.js';
import { intArg, parseFlags, UsageError } from './args.js';
import { dataDir } from './data-dir.js';
import { embeddedDevice, type Io } from './main.js';
import { COMMON_FIT_FLAGS, CommonFitValues, FIT_USAGE, fitPlan, fmt, readTrainConfig, withProgress } from './rewards-fit.js';

const Flags = { ...COMMON_FIT_FLAGS, deviations: { type: 'string' } } as const;
const Values = CommonFitValues.extend({ deviations: intArg('--deviations').optional() });

/** Adds one instance's labelled set to the running one. */
function merge(into: LabelledSet, add: LabelledSet): void {
  into.steps.push(...add.steps);
  into.episodes += add.episodes;
  into.oracleFailures += add.oracleFailures;
  into.noAlternative += add.noAlternative;
}

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

  // collect: per instance, for a progress line; the RNG forks by instance, so the steps are those of one call for all
  const rng = createRng(`shepherd-fit/collect/${v.seed}`);
  const opts = (label: string) => ({ rng: rng.fork(label), ...(v.deviations === undefined ? {} : { deviationsPerEpisode: v.deviations }) });
  const train: LabelledSet = { steps: [], episodes: 0, oracleFailures: 0, noAlternative: 0 };
  const test: LabelledSet = { steps: [], episodes: 0, oracleFailures: 0, noAlternative: 0 };
  const device = embeddedDevice();
  try {
    await withProgress(io, 'collect', plan.train, async (inst) => merge(train, await collectLabelledSteps(device, [inst], opts('train'))));
    await withProgress(io, 'collect held-out', plan.heldOut, async (inst) => merge(test, await collectLabelledSteps(device, [inst], opts('test'))));
  } finally {
    device.close();
  }
  if (train.steps.length === 0) throw new UsageError('No labelled steps: the oracle took no step on these instances');

  // update
  const model = createJudgeModel(createRng(`shepherd-fit/model/${v.seed}`), DEFAULT_ENCODER, hidden);
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
