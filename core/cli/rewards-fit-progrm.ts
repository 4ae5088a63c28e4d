import { join } from 'node:path';
import { z } from 'zod';
import type { RewardEpisode } from '../rewards/component.js';
import { LABEL_SOURCES, type LabelSource } from '../rewards/progrm/annotate.js';
import { keyStepError, modelEstimator, type KeyStepErrorReport } from '../rewards/progrm/evaluate.js';
import { collectFitEpisodes, DEFAULT_FIT_PERTURBATIONS, fitProgRm, labellableEpisodes, saveProgRm } from '../rewards/progrm/fit.js';
import { DEFAULT_PROGRM_CHECKPOINT } from '../rewards/progrm/index.js';
import { parseProgressTrainConfig, ProgressTrainConfigError } from '../rewards/progrm/train.js';
import { parseFlags, UsageError } from './args.js';
import { dataDir } from '../util/data-dir.js';
import { embeddedDevice, type Io } from './main.js';
import {
  COMMON_FIT_FLAGS, CommonFitValues, finiteOrNull, FIT_USAGE, fitPlan, fmt, probabilityList, progressLines, readTrainConfig,
} from './rewards-fit.js';

const Flags = { ...COMMON_FIT_FLAGS, source: { type: 'string' }, perturbations: { type: 'string' } } as const;
const Values = CommonFitValues.extend({
  source: z.enum(LABEL_SOURCES, { error: (iss) => `must be one of ${LABEL_SOURCES.join(', ')} (got ${JSON.stringify(iss.input)})` }).default('lcs'),
  perturbations: z.string().optional(),
});

const keyStepSummary = (r: KeyStepErrorReport) => ({
  keyStepError: finiteOrNull(r.keyStepError), keySteps: r.keySteps, episodes: r.episodes, skipped: r.skipped,
  finalScore: { all: finiteOrNull(r.finalScore.all), success: finiteOrNull(r.finalScore.success), failure: finiteOrNull(r.finalScore.failure) },
});

function tally(eps: readonly RewardEpisode[]) {
  return { total: eps.length, success: eps.filter((e) => e.success === true).length, failure: eps.filter((e) => e.success === false).length };
}

/**
 * `awb rewards fit progrm`: oracle and perturbed-oracle episodes with SimDroid's ground-truth
 * subgoals, labelled by --source, one progress model trained on them (core/rewards/progrm/fit.ts),
 * scored by the paper's key-step progress error on held-out episodes (ProgRM §3.3, Table 3), saved
 * with its recipe library.
 */
export async function fitProgRmCommand(argv: string[], io: Io): Promise<number> {
  const { values: v, positionals } = parseFlags(argv, Flags, Values);
  if (positionals.length) throw new UsageError(`Unexpected ${JSON.stringify(positionals[0])}.\n${FIT_USAGE}`);
  const source: LabelSource = v.source;
  const perturbations = v.perturbations === undefined ? DEFAULT_FIT_PERTURBATIONS : probabilityList('--perturbations', v.perturbations);
  if (v.hidden === 0) throw new UsageError('--hidden: the progress head needs at least 1 hidden unit');
  const config = readTrainConfig(v.config, parseProgressTrainConfig, (e) => (e instanceof ProgressTrainConfigError ? e.problems : undefined));
  const plan = fitPlan(v, join(dataDir(), DEFAULT_PROGRM_CHECKPOINT));
  io.err(`ProgRM (${source}): ${plan.train.length} instances of ${plan.split}/${plan.part} x perturbations ${perturbations.join(',')}; ${plan.heldOut.length} held out`);

  // collect (core/rewards/progrm/fit.ts, shared with awb jobs submit --kind progrm)
  let trainEps: RewardEpisode[];
  let testEps: RewardEpisode[];
  const device = embeddedDevice();
  try {
    trainEps = await collectFitEpisodes(device, plan.train, { perturbations, seed: v.seed, part: 'train' }, progressLines(io, 'collect', plan.train.length));
    testEps = await collectFitEpisodes(device, plan.heldOut, { perturbations, seed: v.seed, part: 'test' }, progressLines(io, 'collect held-out', plan.heldOut.length));
  } finally {
    device.close();
  }
  if (source === 'env') {
    const { kept, leftOut } = labellableEpisodes(source, trainEps);
    if (leftOut.length) io.err(`--source env: ${leftOut.length} episodes of templates without ground-truth subgoals left out (${[...new Set(leftOut.map((e) => e.templateId))].join(', ')})`);
    trainEps = kept;
    if (trainEps.length === 0) throw new UsageError('--source env: none of these templates has ground-truth subgoals');
  }

  // update
  const fit = fitProgRm(trainEps, { source, config, seed: v.seed, ...(v.hidden === undefined ? {} : { hidden: v.hidden }) }, (m) => {
    io.err(`epoch ${m.epoch}/${config.epochs}  loss/bce ${m['loss/bce'].toFixed(4)}  err/mae ${m['err/mae'].toFixed(4)}  grad/norm ${m['grad/norm'].toFixed(3)}`);
  });

  // score: the trained model on held-out episodes; the labels it learnt from against the truth;
  // a constant 0.5, the floor any model must beat
  const labelsOf = new Map(fit.annotated.map((a) => [a.episode, a.labels]));
  const heldOut = keyStepError(testEps, modelEstimator(fit.model));
  const labels = keyStepError(trainEps, (ep) => labelsOf.get(ep) ?? []);
  const half = keyStepError(testEps, (ep) => ep.steps.map(() => 0.5));
  const summary = {
    checkpoint: plan.out, source, split: plan.split, part: plan.part, seed: v.seed, perturbations, testSeeds: plan.testSeeds,
    templates: new Set(plan.train.map((i) => i.template.id)).size, instances: plan.train.length, heldOutInstances: plan.heldOut.length,
    trainEpisodes: tally(trainEps), heldOutEpisodes: tally(testEps), states: fit.annotated.reduce((s, a) => s + a.episode.steps.length + 1, 0),
    recipes: [...fit.library.values()].reduce((s, r) => s + r.length, 0),
    final: fit.metrics.at(-1) ?? null, heldOut: keyStepSummary(heldOut), labels: keyStepSummary(labels), halfBaseline: keyStepSummary(half),
  };

  // log
  const { checkpoint: _path, ...provenance } = summary;
  saveProgRm(plan.out, fit, { trainer: 'awb rewards fit progrm', createdAt: new Date().toISOString(), config, ...provenance });
  if (v.json) {
    io.out(JSON.stringify(summary));
    return 0;
  }
  const t = summary.trainEpisodes;
  const h = summary.heldOutEpisodes;
  io.out(`Episodes: ${t.total} fitted (${t.success} ok / ${t.failure} failed), ${h.total} held out (${h.success} / ${h.failure}); ${summary.recipes} recipes`);
  io.out(`Held-out key-step progress error: ${fmt(heldOut.keyStepError)} over ${heldOut.keySteps} key steps (constant 0.5: ${fmt(half.keyStepError)})`);
  io.out(`Held-out final progress: ${fmt(heldOut.finalScore.success)} on successes, ${fmt(heldOut.finalScore.failure)} on failures`);
  io.out(`${source} labels against the ground truth (fitted episodes): key-step error ${fmt(labels.keyStepError)}`);
  io.out(`Checkpoint: ${plan.out}`);
  return 0;
}
