import { z } from 'zod';
import type { Device } from '../../device/device.js';
import type { TaskInstance } from '../../tasks/instance.js';
import { createRng } from '../../util/rng.js';
import type { RewardEpisode } from '../component.js';
import {
  annotateEpisodes, buildRecipeLibrary, DEFAULT_ANNOTATE, libraryFromJson, libraryToJson, type AnnotateOptions, type AnnotatedEpisode,
  type LabelSource, type Recipe,
} from './annotate.js';
import { loadProgressModel, saveProgressModel } from './checkpoint.js';
import { collectEpisodes } from './collect.js';
import { createProgressModel, type ProgressModel } from './model.js';
import { progressSamples, trainProgressModel, type ProgressEpochMetrics, type ProgressSample, type ProgressTrainConfig } from './train.js';

/**
 * Episodes in, a ready progress model out: annotate (LCS, ground truth or outcome), train, and keep
 * the recipe library next to the model so the reward can name each key step. A checkpoint written
 * by saveProgRm carries the library and the annotation settings in its meta.
 */
export const AnnotateSettingsSchema = z.strictObject({
  thetaL: z.number().min(0).max(1).default(DEFAULT_ANNOTATE.thetaL).describe('Grouping threshold θ_L (paper: 0.6)'),
  epsilon: z.number().min(0).max(1).default(DEFAULT_ANNOTATE.epsilon).describe('NOTHING–NOTHING match weight ε (paper: 0.4)'),
  textThreshold: z.number().min(0).max(1).default(DEFAULT_ANNOTATE.textThreshold).describe('Text similarities below this count as 0 (ours; 0 = the paper\'s literal f)'),
  completion: z.enum(['pairs', 'soft']).default(DEFAULT_ANNOTATE.completion).describe('CR numerator: matched pairs or the soft LCS score'),
  taskKey: z.enum(['template', 'instance']).default(DEFAULT_ANNOTATE.taskKey).describe('A task goal is a template (seeds joined by placeholders) or one instance'),
});
export type AnnotateSettings = z.infer<typeof AnnotateSettingsSchema>;

/** The bench's training perturbations (bench/progrm.ts): the oracle, and 20% / 40% random steps. */
export const DEFAULT_FIT_PERTURBATIONS: readonly number[] = [0, 0.2, 0.4];

/**
 * The episodes a fit learns from ('train') or is scored on ('test'), as `awb rewards fit progrm`
 * and `awb jobs submit --kind progrm` collect them: each instance once per perturbation level on
 * `device`, the perturbations' randomness forked from `progrm-fit/collect/<seed>/<part>` by instance
 * and level (so one instance at a time gives the same episodes as all at once). `onInstance` is
 * called after each instance with the count done, for progress lines.
 */
export interface FitCollectOptions {
  /** Each instance runs once per entry (DEFAULT_FIT_PERTURBATIONS unless told). */
  perturbations: readonly number[];
  seed: number;
  part: 'train' | 'test';
}

export async function collectFitEpisodes(
  device: Device, instances: readonly TaskInstance[], o: FitCollectOptions, onInstance?: (done: number) => void,
): Promise<RewardEpisode[]> {
  const rng = createRng(`progrm-fit/collect/${o.seed}`);
  const out: RewardEpisode[] = [];
  for (let i = 0; i < instances.length; i++) {
    out.push(...await collectEpisodes(device, [instances[i]!], { perturbations: o.perturbations, rng: rng.fork(o.part) }));
    onInstance?.(i + 1);
  }
  return out;
}

/**
 * The episodes a label source can label: ProgRM_Env labels need ground-truth subgoals, so with
 * --source env an episode of a template without any is left out (the other sources keep all).
 */
export function labellableEpisodes(source: LabelSource, episodes: readonly RewardEpisode[]): { kept: RewardEpisode[]; leftOut: RewardEpisode[] } {
  if (source !== 'env') return { kept: [...episodes], leftOut: [] };
  return { kept: episodes.filter((e) => e.subgoalNames?.length), leftOut: episodes.filter((e) => !e.subgoalNames?.length) };
}

export interface FitOptions {
  source: LabelSource;
  config: ProgressTrainConfig;
  /** Seeds the model's initialisation (the config's seed shuffles minibatches). */
  seed: number;
  /** Hidden units of the progress head (default 32, core/rewards/progrm/model.ts). */
  hidden?: number;
  annotate?: Partial<AnnotateSettings>;
}

/**
 * What training starts from: the seeded fresh model, the labelled episodes, their samples (the
 * features the reward computes at scoring time, model.ts episodeFeatures, with their labels) and
 * the recipe library. The local fit trains on it here; a remote progrm job gets the same samples
 * and this model as init/model.json (core/remote-jobs/prepare-rewards.ts).
 */
export interface ProgRmTrainingSet {
  source: LabelSource;
  model: ProgressModel;
  /** The recipe library built from the successful episodes (always built, whatever the label source). */
  library: Map<string, Recipe[]>;
  annotate: AnnotateSettings;
  annotated: AnnotatedEpisode[];
  samples: ProgressSample[];
}

export function progRmTrainingSet(episodes: readonly RewardEpisode[], opts: Omit<FitOptions, 'config'>): ProgRmTrainingSet {
  const model = createProgressModel(createRng(`progrm-fit/${opts.seed}`), opts.hidden === undefined ? {} : { hidden: opts.hidden });
  const annotate = AnnotateSettingsSchema.parse(opts.annotate ?? {});
  const full: AnnotateOptions = { ...annotate, encoder: model.encoder };
  const annotated = annotateEpisodes(episodes, opts.source, full);
  const samples = progressSamples(model, annotated);
  const library = buildRecipeLibrary(episodes, full);
  return { source: opts.source, model, library, annotate, annotated, samples };
}

export interface FitResult extends ProgRmTrainingSet {
  metrics: ProgressEpochMetrics[];
}

export function fitProgRm(episodes: readonly RewardEpisode[], opts: FitOptions, onEpoch?: (m: ProgressEpochMetrics) => void): FitResult {
  const set = progRmTrainingSet(episodes, opts);
  const metrics = trainProgressModel(set.model, set.samples, opts.config, onEpoch);
  return { ...set, metrics };
}

/** The checkpoint meta that lets loadProgRm rebuild the reward's explanations: label source, annotation settings, recipe library. */
export function progRmMeta(set: Pick<ProgRmTrainingSet, 'source' | 'annotate' | 'library'>, meta: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...meta, source: set.source, annotate: set.annotate, library: libraryToJson(set.library) };
}

export function saveProgRm(path: string, fit: FitResult, meta: Record<string, unknown> = {}): void {
  saveProgressModel(path, fit.model, { ...progRmMeta(fit, meta), final: fit.metrics.at(-1) ?? null });
}

/** A checkpoint with the library and annotation settings its meta holds (an empty library when it has none). */
export function loadProgRm(path: string): { model: ProgressModel; library: Map<string, Recipe[]>; annotate: AnnotateSettings; meta: Record<string, unknown> } {
  const { model, meta } = loadProgressModel(path);
  return {
    model, meta,
    library: meta.library === undefined ? new Map() : libraryFromJson(meta.library),
    annotate: AnnotateSettingsSchema.parse(meta.annotate ?? {}),
  };
}
