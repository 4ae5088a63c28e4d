import { join } from 'node:path';
import type { Device } from '../../core/device/device.js';
import { createModel } from '../../core/policy/builtin.js';
import { saveCheckpoint } from '../../core/policy/checkpoint.js';
import type { AdaptConfigInput } from '../../core/rl/adapt-config.js';
import { pickShots, resolveAdaptApp } from '../../core/rl/adapt-instances.js';
import { collectDemonstrations } from '../../core/rl/demonstrations.js';
import { parseSftConfig, trainSft } from '../../core/rl/sft.js';
import type { IterationMetrics } from '../../core/rl/grpo-loop.js';
import { listEpisodes, loadTrajectory, type ReadableDB, type RunId } from '../../core/store/index.js';
import { createRng } from '../../core/util/rng.js';

/**
 * The small adaptation GRPO setup the rollout-placement tests share (in process, worker threads, Ray): Audio
 * Recorder's two easy shots of seed 0 (AudioRecorderSetFormat, AudioRecorderBookmarkRecording), 2 iterations of
 * 2 × 4 rollouts of ≤ 8 steps, from a base behaviour-cloned on those shots — sampled at temperature 1 it both
 * succeeds and fails on them, so groups are mixed and the adapter moves (an untrained base never succeeds).
 */
export const ADAPT_APP = 'Audio Recorder';

export function adaptTestConfig(grpo: AdaptConfigInput['grpo'] = {}, over: AdaptConfigInput = {}): AdaptConfigInput {
  return { shots: 2, method: 'grpo', seed: 0, ...over, grpo: { iterations: 2, instancesPerIteration: 2, rolloutsPerInstance: 4, maxSteps: 8, learningRate: 0.05, ...grpo } };
}

/** Trains the base on `device` and writes it to `dir`/policy.json; returns the path. */
export async function adaptTestBase(device: Device, dir: string): Promise<string> {
  const model = createModel(createRng('adapt-rollouts-test/base'));
  trainSft(model, (await collectDemonstrations(device, pickShots(resolveAdaptApp(ADAPT_APP), 2, 0), model)).demos, parseSftConfig({ epochs: 25, batchSize: 8 }));
  const path = join(dir, 'policy.json');
  saveCheckpoint(path, model);
  return path;
}

/** What must not depend on where the rollouts ran: every metric of every iteration but the timings. */
export const metricsEssence = (history: readonly IterationMetrics[]) =>
  history.map((m) => Object.fromEntries(Object.entries(m.metrics).filter(([k]) => !k.startsWith('perf/'))));

/**
 * A run's recorded GRPO rollouts by iteration/group/index, without the device each ran on; apart, the devices they
 * ran on and those of the run's other episodes (demonstrations, before/after).
 */
export function recordedRollouts(db: ReadableDB, runId: RunId) {
  const all = listEpisodes(db, { runId, limit: 1000 }).rows.map((e) => loadTrajectory(db, e.id));
  const ts = all.filter((t) => t.rollout !== undefined);
  return {
    rollouts: ts.map((t) => ({
      key: `${t.rollout!.iteration}/${t.rollout!.group}/${t.rollout!.index}`, instance: `${t.instance.templateId}#${t.instance.seed}`,
      policy: t.episode.policy, status: t.episode.status, rollout: t.rollout, actions: t.steps.map((s) => s.action),
    })).sort((a, b) => a.key.localeCompare(b.key)),
    serials: new Set(ts.map((t) => t.episode.device?.serial)),
    otherSerials: new Set(all.filter((t) => t.rollout === undefined).map((t) => t.episode.device?.serial)),
  };
}
