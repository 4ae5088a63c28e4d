import type { Device } from '../device/device.js';
import { runEpisode } from '../episode/runner.js';
import type { EpisodeRecorder } from '../episode/record.js';
import type { TransformerModel } from '../policy/transformer/model.js';
import { TransformerPolicy, type TransformerStepRecord } from '../policy/transformer/policy.js';
import { scheduleOnDevices } from '../rollout/in-process.js';
import { outcomeReward, rolloutRecorder, type RolloutJob } from '../rollout/rollouts.js';
import type { EpisodeResult } from '../episode/record.js';
import { createRng } from '../util/rng.js';

/**
 * GRPO rollouts of the transformer policy: every job samples with its own RNG (job.rngKey) from the model the
 * iteration holds, on devices driven in this thread. The network runs in ONNX Runtime, whose `run` is asynchronous
 * and computes off the JavaScript thread, so N SimDroids here overlap one episode's inference with another's
 * simulation; results do not depend on the device or the order (each rollout's RNG is its own).
 */
export interface TransformerRollout {
  job: RolloutJob;
  result: EpisodeResult;
  records: TransformerStepRecord[];
  /** 1 success, 0 failure, NaN for an environment error. */
  reward: number;
  trees?: string[];
}

export const TRANSFORMER_ROLLOUT_POLICY = 'transformer-grpo';

export async function runTransformerRollouts(
  devices: readonly Device[], jobs: readonly RolloutJob[],
  opts: { model: (job: RolloutJob) => TransformerModel; temperature: number; maxSteps: number; captureTrees?: boolean; recorder?: (job: RolloutJob) => EpisodeRecorder },
): Promise<TransformerRollout[]> {
  const out: TransformerRollout[] = new Array(jobs.length);
  await scheduleOnDevices(devices, jobs, (device) => async (job, k) => {
    const policy = new TransformerPolicy(opts.model(job), { mode: 'sample', temperature: opts.temperature, rng: createRng(job.rngKey) }, { record: true, name: TRANSFORMER_ROLLOUT_POLICY });
    const { recorder, capture } = rolloutRecorder(opts, job);
    const result = await runEpisode({ device, instance: job.instance, policy, maxSteps: opts.maxSteps, onMalformed: 'continue', ...(recorder ? { recorder } : {}) });
    out[k] = { job, result, records: policy.takeRecords(), reward: outcomeReward(result), ...(capture ? { trees: capture.trees } : {}) };
  });
  return out;
}
