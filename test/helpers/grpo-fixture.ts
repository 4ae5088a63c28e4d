import { join } from 'node:path';
import type { Device } from '../../core/device/device.js';
import { createModel } from '../../core/policy/builtin.js';
import { saveCheckpoint } from '../../core/policy/checkpoint.js';
import { parseTrainConfig, type TrainConfig, type TrainConfigInput } from '../../core/rl/config.js';
import { collectDemonstrations } from '../../core/rl/demonstrations.js';
import { parseSftConfig, trainSft } from '../../core/rl/sft.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { createRng } from '../../core/util/rng.js';

/**
 * The small GRPO setup the training-loop tests share: two easy templates × two seeds, and an SFT
 * warm start (as every seed paper does before RL) — the untrained policy never succeeds, so every
 * group would be all-zero and skipped; after SFT some groups have mixed outcomes.
 */
export const GRPO_POOL = ['SystemWifiTurnOn', 'ClockStopwatchRun'].flatMap((id) => [0, 1].map((seed) => instantiate(getTemplate(id), seed)));


/** Trains the warm start on `device` and writes it to `dir`/sft.json; returns the path. */
export async function sftWarmStart(device: Device, dir: string): Promise<string> {
  const model = createModel(createRng('grpo-test/init'));
  trainSft(model, (await collectDemonstrations(device, GRPO_POOL, model)).demos, parseSftConfig({ epochs: 25, batchSize: 8 }));
  const path = join(dir, 'sft.json');
  saveCheckpoint(path, model);
  return path;
}

/** The tests' run config: 3 iterations of 2 × 4 episodes of ≤ 8 steps, no curriculum, a fast optimiser. */
export function grpoTestConfig(init: string, over: TrainConfigInput = {}): TrainConfig {
  return parseTrainConfig({
    init, seed: 3, iterations: 3, instancesPerIteration: 2, rolloutsPerInstance: 4, maxSteps: 8, devices: 1, checkpointEvery: 1,
    curriculum: { mode: 'none' }, optimizer: { learningRate: 0.05, warmupFraction: 0, epochs: 2, minibatchSize: 8 }, ...over,
  });
}
