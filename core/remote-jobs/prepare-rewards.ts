import type { Device } from '../device/device.js';
import { serializeProgressModel } from '../rewards/progrm/checkpoint.js';
import { collectFitEpisodes, DEFAULT_FIT_PERTURBATIONS, labellableEpisodes, progRmMeta, progRmTrainingSet } from '../rewards/progrm/fit.js';
import type { LabelSource } from '../rewards/progrm/annotate.js';
import { featureMatrix, serializeJudge } from '../rewards/shepherd/builtin.js';
import { collectJudgeFitSteps, createFitJudgeModel } from '../rewards/shepherd/fit.js';
import type { TaskInstance } from '../tasks/instance.js';
import { assertNever } from '../util/errors.js';
import { writeBundle, type Bundle, type BundleSample } from './bundle.js';
import { BundleError } from './errors.js';
import { encodeFeatures } from './steps.js';

/**
 * progrm / prm bundles: the samples `awb rewards fit progrm|shepherd` would train on, collected by
 * the same functions (core/rewards/progrm/fit.ts, core/rewards/shepherd/fit.ts) with the same
 * seeds, and the same seeded fresh model as init/model.json in the TypeScript checkpoint format.
 * Each sample's features are the row the reward computes at scoring time (progrm: model.ts
 * episodeFeatures of one state; prm: features.ts judgeFeatures of one step), so the trained
 * model.json is read back by the reward components unchanged.
 */
export const REWARD_JOB_KINDS = ['progrm', 'prm'] as const;
export type RewardJobKind = (typeof REWARD_JOB_KINDS)[number];
export const isRewardJobKind = (k: string): k is RewardJobKind => (REWARD_JOB_KINDS as readonly string[]).includes(k);

export interface RewardBundleSettings {
  /** progrm: label source (default lcs, ProgRM_LCS). */
  source?: LabelSource;
  /** progrm: each instance runs once per entry (default 0, 0.2, 0.4). */
  perturbations?: readonly number[];
  /** prm: deviating episodes per instance (default one per oracle step). */
  deviations?: number;
  /** Hidden units (progrm default 32, at least 1; prm default 16, 0 = logistic regression). */
  hidden?: number;
}

export interface RewardBundleInput {
  kind: RewardJobKind;
  file: string;
  createdAt: number;
  device: Device;
  instances: readonly TaskInstance[];
  /** The model's initialisation and the collection's randomness, as `awb rewards fit --seed`. */
  seed: number;
  settings: RewardBundleSettings;
  onInstance?: (done: number) => void;
}

export interface RewardBundle {
  bundle: Bundle;
  /** What the user should know about the data (episodes left out, class balance). */
  notes: string[];
}

const row = (x: Float32Array, F: number, r: number) => encodeFeatures(x.subarray(r * F, (r + 1) * F));

export async function prepareRewardBundle(o: RewardBundleInput): Promise<RewardBundle> {
  const s = o.settings;
  const provenance = { trainer: 'awb jobs submit', createdAt: new Date(o.createdAt).toISOString(), seed: o.seed, instances: o.instances.length };
  switch (o.kind) {
    case 'progrm': {
      if (s.deviations !== undefined) throw new BundleError(o.kind, '--deviations is a prm setting');
      if (s.hidden === 0) throw new BundleError(o.kind, 'the progress head needs at least 1 hidden unit (--hidden 0 is for prm)');
      const source = s.source ?? 'lcs';
      const perturbations = s.perturbations ?? DEFAULT_FIT_PERTURBATIONS;
      const episodes = await collectFitEpisodes(o.device, o.instances, { perturbations, seed: o.seed, part: 'train' }, o.onInstance);
      const { kept, leftOut } = labellableEpisodes(source, episodes);
      if (!kept.length) throw new BundleError(o.kind, `--source ${source}: none of the ${episodes.length} episodes can be labelled (no template with ground-truth subgoals)`);
      const set = progRmTrainingSet(kept, { source, seed: o.seed, ...(s.hidden === undefined ? {} : { hidden: s.hidden }) });
      const samples: BundleSample[] = set.samples.map((x) => ({ features: encodeFeatures(x.x), label: x.y }));
      const initModel = serializeProgressModel(set.model, progRmMeta(set, { ...provenance, perturbations, episodes: kept.length }));
      const notes = leftOut.length ? [`--source env: ${leftOut.length} episodes of templates without ground-truth subgoals left out`] : [];
      notes.push(`${kept.length} episodes, ${samples.length} states labelled by ${source}`);
      return { bundle: writeBundle({ kind: o.kind, file: o.file, createdAt: o.createdAt, samples, initModel }), notes };
    }
    case 'prm': {
      if (s.source !== undefined || s.perturbations !== undefined) throw new BundleError(o.kind, '--source and --perturbations are progrm settings');
      if (s.deviations === 0) throw new BundleError(o.kind, '--deviations: at least 1 deviating episode per instance (the negatives)');
      const set = await collectJudgeFitSteps(o.device, o.instances, { seed: o.seed, part: 'train', ...(s.deviations === undefined ? {} : { deviations: s.deviations }) }, o.onInstance);
      if (!set.steps.length) throw new BundleError(o.kind, 'no labelled steps: the oracle took no step on these instances');
      const model = createFitJudgeModel(o.seed, s.hidden);
      const F = model.net.dims.input;
      const x = featureMatrix(model, set.steps);
      const samples: BundleSample[] = set.steps.map((st, r) => ({ features: row(x, F, r), label: st.label }));
      const positives = set.steps.filter((st) => st.label === 1).length;
      const initModel = serializeJudge(model, { ...provenance, hidden: model.net.dims.hidden, ...(s.deviations === undefined ? {} : { deviations: s.deviations }) });
      const notes = [`${set.steps.length} labelled steps (${positives} correct) from ${set.episodes} oracle episodes`];
      return { bundle: writeBundle({ kind: o.kind, file: o.file, createdAt: o.createdAt, samples, initModel }), notes };
    }
    default:
      return assertNever(o.kind, 'reward job kind');
  }
}
