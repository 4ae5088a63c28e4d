import type { Device } from '../../device/device.js';
import { DEFAULT_ENCODER } from '../../policy/encoder.js';
import type { TaskInstance } from '../../tasks/instance.js';
import { createRng } from '../../util/rng.js';
import { createJudgeModel, DEFAULT_JUDGE_HIDDEN, type JudgeModel } from './builtin.js';
import { collectLabelledSteps, type LabelledSet } from './collect.js';

/**
 * What `awb rewards fit shepherd` and `awb jobs submit --kind prm` share: the labelled steps a judge
 * is fitted on ('train') or scored on ('test'), and the seeded fresh judge training starts from.
 * The local fit trains it in TypeScript (builtin.ts trainJudge); a remote prm job gets the same
 * steps' features (builtin.ts featureMatrix, the judge's view at scoring time) and this model as
 * init/model.json (core/remote-jobs/prepare-rewards.ts).
 */
export interface JudgeFitCollectOptions {
  seed: number;
  /** Deviating episodes per instance (default: one per oracle step, collect.ts). */
  deviations?: number;
  part: 'train' | 'test';
}

/** Adds one instance's labelled set to the running one. */
function merge(into: LabelledSet, add: LabelledSet): void {
  into.steps.push(...add.steps);
  into.episodes += add.episodes;
  into.oracleFailures += add.oracleFailures;
  into.noAlternative += add.noAlternative;
}

/**
 * One instance at a time (for progress lines through `onInstance`); the RNG of
 * `shepherd-fit/collect/<seed>/<part>` forks by instance inside collectLabelledSteps, so the steps
 * are those of one call for all.
 */
export async function collectJudgeFitSteps(
  device: Device, instances: readonly TaskInstance[], o: JudgeFitCollectOptions, onInstance?: (done: number) => void,
): Promise<LabelledSet> {
  const rng = createRng(`shepherd-fit/collect/${o.seed}`);
  const set: LabelledSet = { steps: [], episodes: 0, oracleFailures: 0, noAlternative: 0 };
  for (let i = 0; i < instances.length; i++) {
    merge(set, await collectLabelledSteps(device, [instances[i]!], { rng: rng.fork(o.part), ...(o.deviations === undefined ? {} : { deviationsPerEpisode: o.deviations }) }));
    onInstance?.(i + 1);
  }
  return set;
}

/** The fit's starting judge: the default encoder, `hidden` units (0 = logistic regression), seeded by `seed`. */
export function createFitJudgeModel(seed: number, hidden = DEFAULT_JUDGE_HIDDEN): JudgeModel {
  return createJudgeModel(createRng(`shepherd-fit/model/${seed}`), DEFAULT_ENCODER, hidden);
}
