import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadProgRm } from '../rewards/progrm/fit.js';
import { loadJudge } from '../rewards/shepherd/builtin.js';
import { updateRemoteJob, type RemoteJob } from '../store/remote-jobs.js';
import { assertNever, WorkbenchError } from '../util/errors.js';
import { RemoteJobStateError } from './errors.js';
import { isRewardJobKind, type RewardJobKind } from './prepare-rewards.js';
import type { RemoteJobs } from './remote.js';
import { copyFileAtomic } from '../util/atomic-write.js';

/**
 * Registering a progrm / prm job's model.json where the reward components find it: checked with
 * the loader the component uses (ProgRM's loadProgRm with its recipe library; the judge's
 * loadJudge), then copied under a versioned name beside the default checkpoint,
 *
 *   progrm → <data folder>/progrm/<trainer>-<job id>.json     (default: progrm/model.json)
 *   prm    → <data folder>/shepherd/<trainer>-<job id>.json   (default: shepherd/judge.json)
 *
 * A versioned name, not the default: registering never overwrites the model `awb rewards fit` wrote
 * or one registered before, and the reward config names the model it means. A relative checkpoint
 * in a reward config is resolved under the data folder, so the config entry holds the short path.
 */
export const REWARD_MODEL_FOLDER: Record<RewardJobKind, string> = { progrm: 'progrm', prm: 'shepherd' };

/** The registered file, relative to the data folder. */
export const rewardModelRelPath = (kind: RewardJobKind, j: Pick<RemoteJob, 'trainer' | 'remoteId'>) => join(REWARD_MODEL_FOLDER[kind], `${j.trainer}-${j.remoteId}.json`);

/** A reward config component (core/rewards/compose.ts) that scores with the registered model. */
export type RewardComponentEntry =
  | { kind: 'progrm'; weight: number; options: { checkpoint: string } }
  | { kind: 'shepherd'; weight: number; options: { judge: { kind: 'builtin'; checkpoint: string } } };

export function rewardComponentEntry(kind: RewardJobKind, checkpoint: string): RewardComponentEntry {
  switch (kind) {
    case 'progrm':
      return { kind: 'progrm', weight: 1, options: { checkpoint } };
    case 'prm':
      return { kind: 'shepherd', weight: 1, options: { judge: { kind: 'builtin', checkpoint } } };
    default:
      return assertNever(kind, 'reward job kind');
  }
}

/** The downloaded model.json is not a checkpoint the reward component can load; nothing was copied. */
export class RewardModelRejectedError extends WorkbenchError {
  override name = 'RewardModelRejectedError';
  constructor(readonly ref: string, readonly kind: RewardJobKind, readonly path: string, readonly problem: string) {
    super(`Remote job ${ref} (${kind}): ${path} is not a model the ${kind === 'prm' ? 'shepherd judge' : 'progrm reward'} can load, so it was not registered: ${problem}`);
  }
}

export interface RegisteredRewardModel {
  job: RemoteJob;
  kind: RewardJobKind;
  /** Absolute path of the registered file. */
  path: string;
  /** The same, relative to the data folder (what a reward config names). */
  checkpoint: string;
  component: RewardComponentEntry;
}

/** Throws RewardModelRejectedError when the component's loader refuses the file. */
function check(ref: string, kind: RewardJobKind, path: string): void {
  try {
    if (kind === 'progrm') loadProgRm(path);
    else loadJudge(path);
  } catch (e) {
    throw new RewardModelRejectedError(ref, kind, path, (e as Error).message);
  }
}

export function registerRewardModel(jobs: RemoteJobs, dataDir: string, ref: string): RegisteredRewardModel {
  const row = jobs.resolve(ref);
  const kind = row.kind;
  if (!isRewardJobKind(kind)) throw new RemoteJobStateError(ref, `is a ${kind} job, not progrm or prm`);
  if (!row.remoteId) throw new RemoteJobStateError(ref, 'was never accepted by the trainer');
  const art = row.artifacts.find((a) => a.name === 'model.json');
  if (!art) throw new RemoteJobStateError(ref, 'has no downloaded model.json (awb jobs download first)');
  check(ref, kind, art.path);
  const checkpoint = rewardModelRelPath(kind, row);
  const dest = join(dataDir, checkpoint);
  mkdirSync(dirname(dest), { recursive: true });
  copyFileAtomic(art.path, dest);
  // The store's "registered file" column (policy_path) holds it, so awb jobs list and the Jobs view show it.
  const job = updateRemoteJob(jobs.db, row.id, { policyPath: dest });
  return { job, kind, path: dest, checkpoint, component: rewardComponentEntry(kind, checkpoint) };
}
