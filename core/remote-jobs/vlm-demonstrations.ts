import type { Device } from '../device/device.js';
import type { Observation } from '../device/observation.js';
import { OraclePolicy } from '../episode/policies/oracle.js';
import type { Policy } from '../episode/policy.js';
import { runEpisode, type EpisodeResult, type StepRecord } from '../episode/runner.js';
import { VlmDemonstrator } from '../policy/vlm/demonstrator.js';
import type { VlmPolicySettingsInput } from '../policy/vlm/settings.js';
import type { WritableDB } from '../store/db.js';
import type { EpisodeId, RunId } from '../store/ids.js';
import { StoreRecorder } from '../store/recorder.js';
import type { TaskInstance } from '../tasks/instance.js';
import { writeBundle, type Bundle } from './bundle.js';
import { BundleError } from './errors.js';
import { trainingSteps } from './vlm-episodes.js';

/**
 * SFT data for a VLM: a teacher's episodes (the oracle by default) run through VlmDemonstrator, so
 * each step is prompted exactly as VlmPolicy would prompt a served model and answered with the
 * teacher's action written in the format, recorded into the store like any VlmPolicy episode, and
 * exported as a vlm-sft bundle whose steps carry that chat and that completion (what the trainer
 * replays, vlm_samples.py).
 */
export interface VlmDemonstrationOptions {
  db: WritableDB;
  run: RunId;
  device: Device;
  instances: readonly TaskInstance[];
  /** How the VLM policy is prompted (format, history, screenshot, smart-resize pixels); the teacher answers. */
  settings: Omit<VlmPolicySettingsInput, 'endpoint'>;
  /** Default 'half'. */
  screenshots?: 'half' | 'full';
  /** A fresh teacher per episode; default the oracle. */
  teacher?: () => Policy;
  /** Each step as it is recorded, with what the policy saw (evaluations parse model output against it). */
  onStep?: (instance: TaskInstance, step: StepRecord, obs: Observation, policy: VlmDemonstrator) => void;
}

export interface VlmDemonstration {
  instance: TaskInstance;
  id: EpisodeId;
  result: EpisodeResult;
}

/** Records one demonstration episode per instance, in order. */
export async function recordVlmDemonstrations(o: VlmDemonstrationOptions): Promise<VlmDemonstration[]> {
  const out: VlmDemonstration[] = [];
  for (const instance of o.instances) {
    const policy = new VlmDemonstrator((o.teacher ?? (() => new OraclePolicy()))(), o.settings);
    const recorder = new StoreRecorder(o.db, o.run);
    const result = await runEpisode({
      device: o.device, instance, policy, screenshots: o.screenshots ?? 'half', recorder,
      ...(o.onStep ? { onStep: (step: StepRecord, obs: Observation) => o.onStep!(instance, step, obs, policy) } : {}),
    });
    out.push({ instance, id: recorder.episodeId!, result });
  }
  return out;
}

/**
 * The vlm-sft bundle of the successful demonstrations (a failed one would teach its mistakes): the
 * store's export, each step with `raw` = the completion and `messages` = its recorded request (vlm-episodes.ts). BundleError when
 * none succeeded.
 */
export function vlmDemonstrationBundle(db: WritableDB, demos: readonly VlmDemonstration[], out: { file: string; createdAt: number }): { bundle: Bundle; used: VlmDemonstration[] } {
  const used = demos.filter((d) => d.result.status === 'success');
  if (!used.length) throw new BundleError('vlm-sft', `none of the ${demos.length} demonstrations succeeded`);
  const bundle = writeBundle({
    kind: 'vlm-sft', file: out.file, createdAt: out.createdAt, episodes: { db, ids: used.map((d) => d.id) },
    annotateEpisode: (line, id) => ({ ...line, steps: trainingSteps(db, id, line.steps as Array<Record<string, unknown>>).steps }),
  });
  return { bundle, used };
}
