import type { Device } from '../../device/device.js';
import type { TaskInstance } from '../../tasks/instance.js';
import { createRng } from '../../util/rng.js';
import type { RewardEpisode } from '../component.js';
import { annotateEpisodes, DEFAULT_ANNOTATE, LABEL_SOURCES, type AnnotateOptions, type LabelSource } from './annotate.js';
import { collectEpisodes } from './collect.js';
import { keyStepError, modelEstimator, type KeyStepErrorReport } from './evaluate.js';
import { createProgressModel, type ProgressModel } from './model.js';
import { constantBaselineError, meanAbsoluteError, progressSamples, trainProgressModel, type ProgressTrainConfig } from './train.js';

/**
 * The paper's reward-model comparison (ProgRM §3.3, Table 3) on SimDroid: collect oracle and
 * perturbed-oracle episodes of some instances, label them three ways (LCS, ground-truth subgoals,
 * outcome = ORM), train one progress model per labelling, and measure each on held-out episodes by
 * key-step progress error against the ground-truth subgoals. The LCS labels themselves are scored
 * the same way (how far self-annotation is from the truth before any learning).
 */
export interface StudyOptions {
  device: Device;
  train: readonly TaskInstance[];
  test: readonly TaskInstance[];
  /** Perturbation probabilities for collection (0 = plain oracle), per instance. */
  trainPerturbations: readonly number[];
  testPerturbations: readonly number[];
  config: ProgressTrainConfig;
  seed: number;
  annotate?: Partial<Omit<AnnotateOptions, 'encoder'>>;
  sources?: readonly LabelSource[];
}

export interface StudyRow {
  source: LabelSource;
  /** Held-out key-step progress error and final scores of the trained model. */
  heldOut: KeyStepErrorReport;
  /** Held-out mean |Prog − label| over all states, against the model's own kind of label. */
  heldOutMae: number;
  /** The same for the constant (training-mean) predictor. */
  constantMae: number;
  trainMs: number;
  samples: number;
  model: ProgressModel;
}

export interface StudyReport {
  trainEpisodes: { total: number; success: number; failure: number; error: number };
  testEpisodes: { total: number; success: number; failure: number; error: number };
  /** Key-step error of the LCS labels themselves on the training episodes (no model). */
  lcsLabelError: KeyStepErrorReport;
  /** Key-step error of a constant 0.5 on the held-out episodes, the floor any model must beat. */
  halfBaseline: KeyStepErrorReport;
  rows: StudyRow[];
  collectMs: number;
  annotateMs: number;
}

function tally(eps: readonly RewardEpisode[]) {
  return {
    total: eps.length,
    success: eps.filter((e) => e.success === true).length,
    failure: eps.filter((e) => e.success === false).length,
    error: eps.filter((e) => e.success === null).length,
  };
}

export async function runProgRmStudy(opts: StudyOptions): Promise<StudyReport> {
  const rng = createRng(`progrm-study/${opts.seed}`);
  // collect
  let t = performance.now();
  const trainEps = await collectEpisodes(opts.device, opts.train, { perturbations: opts.trainPerturbations, rng: rng.fork('train') });
  const testEps = await collectEpisodes(opts.device, opts.test, { perturbations: opts.testPerturbations, rng: rng.fork('test') });
  const collectMs = performance.now() - t;

  const probe = createProgressModel(rng.fork('probe'));
  const annotate: AnnotateOptions = { ...DEFAULT_ANNOTATE, ...opts.annotate, encoder: probe.encoder };
  t = performance.now();
  const lcs = annotateEpisodes(trainEps, 'lcs', annotate);
  const annotateMs = performance.now() - t;
  const lcsByEpisode = new Map(lcs.map((a) => [a.episode, a.labels]));
  const lcsLabelError = keyStepError(trainEps, (ep) => lcsByEpisode.get(ep)!);
  const halfBaseline = keyStepError(testEps, (ep) => ep.steps.map(() => 0.5));

  const rows: StudyRow[] = [];
  for (const source of opts.sources ?? LABEL_SOURCES) {
    const model = createProgressModel(rng.fork(`model/${source}`));
    const trainSet = progressSamples(model, source === 'lcs' ? lcs : annotateEpisodes(trainEps, source, annotate));
    const testSet = progressSamples(model, annotateEpisodes(testEps, source === 'outcome' ? 'outcome' : 'env', annotate));
    t = performance.now();
    trainProgressModel(model, trainSet, opts.config);
    const trainMs = performance.now() - t;
    rows.push({
      source, model, trainMs, samples: trainSet.length,
      heldOut: keyStepError(testEps, modelEstimator(model)),
      heldOutMae: meanAbsoluteError(model, testSet),
      constantMae: constantBaselineError(trainSet, testSet),
    });
  }
  return { trainEpisodes: tally(trainEps), testEpisodes: tally(testEps), lcsLabelError, halfBaseline, rows, collectMs, annotateMs };
}

/** A few lines for a terminal or a results file. */
export function formatStudy(r: StudyReport): string {
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a');
  const lines = [
    `episodes: train ${r.trainEpisodes.total} (${r.trainEpisodes.success} ok / ${r.trainEpisodes.failure} failed / ${r.trainEpisodes.error} error), held-out ${r.testEpisodes.total} (${r.testEpisodes.success} / ${r.testEpisodes.failure} / ${r.testEpisodes.error})`,
    `LCS labels vs ground truth (train, no model): key-step error ${f(r.lcsLabelError.keyStepError)} over ${r.lcsLabelError.keySteps} key steps`,
    `constant 0.5 (held-out): key-step error ${f(r.halfBaseline.keyStepError)}`,
    'model        key-step err  fin(all/ok/failed)     MAE (const)     train',
  ];
  for (const row of r.rows) {
    const h = row.heldOut;
    lines.push(
      `${row.source.padEnd(12)} ${f(h.keyStepError).padEnd(13)} ${f(h.finalScore.all)}/${f(h.finalScore.success)}/${f(h.finalScore.failure)}  ${f(row.heldOutMae)} (${f(row.constantMae)})  ${(row.trainMs / 1000).toFixed(1)} s on ${row.samples} states`,
    );
  }
  return lines.join('\n');
}
