import { z } from 'zod';
import { createRng } from '../../util/rng.js';
import type { RewardEpisode } from '../component.js';
import {
  annotateEpisodes, buildRecipeLibrary, DEFAULT_ANNOTATE, libraryFromJson, libraryToJson, type AnnotateOptions, type AnnotatedEpisode,
  type LabelSource, type Recipe,
} from './annotate.js';
import { loadProgressModel, saveProgressModel } from './checkpoint.js';
import { createProgressModel, type ProgressModel } from './model.js';
import { progressSamples, trainProgressModel, type ProgressEpochMetrics, type ProgressTrainConfig } from './train.js';

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

export interface FitOptions {
  source: LabelSource;
  config: ProgressTrainConfig;
  /** Seeds the model's initialisation (the config's seed shuffles minibatches). */
  seed: number;
  /** Hidden units of the progress head (default 32, core/rewards/progrm/model.ts). */
  hidden?: number;
  annotate?: Partial<AnnotateSettings>;
}

export interface FitResult {
  source: LabelSource;
  model: ProgressModel;
  /** The recipe library built from the successful episodes (always built, whatever the label source). */
  library: Map<string, Recipe[]>;
  annotate: AnnotateSettings;
  annotated: AnnotatedEpisode[];
  metrics: ProgressEpochMetrics[];
}

export function fitProgRm(episodes: readonly RewardEpisode[], opts: FitOptions, onEpoch?: (m: ProgressEpochMetrics) => void): FitResult {
  const model = createProgressModel(createRng(`progrm-fit/${opts.seed}`), opts.hidden === undefined ? {} : { hidden: opts.hidden });
  const annotate = AnnotateSettingsSchema.parse(opts.annotate ?? {});
  const full: AnnotateOptions = { ...annotate, encoder: model.encoder };
  const annotated = annotateEpisodes(episodes, opts.source, full);
  const metrics = trainProgressModel(model, progressSamples(model, annotated), opts.config, onEpoch);
  const library = buildRecipeLibrary(episodes, full);
  return { source: opts.source, model, library, annotate, annotated, metrics };
}

export function saveProgRm(path: string, fit: FitResult, meta: Record<string, unknown> = {}): void {
  saveProgressModel(path, fit.model, {
    ...meta, source: fit.source, annotate: fit.annotate, library: libraryToJson(fit.library), final: fit.metrics.at(-1) ?? null,
  });
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
