import type { Device } from '../device/device.js';
import type { PolicyModel } from '../policy/builtin.js';
import type { ScorerNetwork } from '../policy/network.js';
import type { AdvantageMode, AdvantageOptions, GroupStats } from '../rl/grpo.js';
import { scoreAdvantages, type GrpoAdvantages } from '../rl/grpo-loop.js';
import { runRollouts, type Rollout, type RolloutJob } from '../rollout/rollouts.js';
import { collectDemonstrations } from '../rl/demonstrations.js';
import type { TaskInstance } from '../tasks/instance.js';

/**
 * steps.jsonl of a builtin-policy bundle (docs/trainer-protocol.md): one line per policy step with
 * the candidate features the workbench built, the chosen index, log π_old(chosen) at the recorded
 * temperature and, for GRPO, the workbench's advantage. The trainer needs no SimDroid and no
 * encoder: the features are the policy's whole input.
 */
export interface BundleStep {
  /** The episode the step belongs to: `<template>/<seed>` (SFT) or `<template>/<seed>/<group>.<rollout>` (GRPO). */
  episode: string;
  step: number;
  n: number;
  /** base64 of little-endian float32 [n × F], row-major. */
  features: string;
  chosen: number;
  logProb: number;
  temperature: number;
  advantage: number | null;
  logProbRef: number | null;
}

export function encodeFeatures(f: Float32Array): string {
  const b = Buffer.alloc(f.length * 4);
  for (let i = 0; i < f.length; i++) b.writeFloatLE(f[i]!, i * 4);
  return b.toString('base64');
}

export function decodeFeatures(s: string): Float32Array {
  const b = Buffer.from(s, 'base64');
  const f = new Float32Array(b.length >> 2);
  for (let i = 0; i < f.length; i++) f[i] = b.readFloatLE(i * 4);
  return f;
}

/**
 * SFT steps: the oracle's demonstrations on each instance (core/rl/demonstrations.ts collectDemonstrations, one
 * instance at a time so each step knows its episode), with log π_init(chosen) at temperature 1 (the
 * trainer logs it as the starting NLL; the SFT loss does not use it).
 */
export async function collectSftSteps(device: Device, instances: readonly TaskInstance[], model: PolicyModel): Promise<{ steps: BundleStep[]; skipped: number; episodes: number }> {
  const steps: BundleStep[] = [];
  let skipped = 0;
  for (const instance of instances) {
    const set = await collectDemonstrations(device, [instance], model);
    skipped += Object.values(set.skipped).reduce((a, b) => a + (b ?? 0), 0);
    const episode = `${instance.template.id}/${instance.seed}`;
    set.demos.forEach((d, i) => steps.push({
      episode, step: i, n: d.n, features: encodeFeatures(d.features), chosen: d.chosen,
      logProb: model.net.logProbs(d.features, d.n, 1)[d.chosen]!, temperature: 1, advantage: null, logProbRef: null,
    }));
  }
  return { steps, skipped, episodes: instances.length };
}

export interface GrpoStepsOptions {
  advantage: AdvantageOptions;
  mode: AdvantageMode;
  /** A KL reference different from the policy that rolled out: its log π(chosen) goes in logProbRef. */
  reference?: ScorerNetwork;
}

/**
 * The steps GRPO trains on, each with its advantage: every step of every episode in a group that is
 * not skipped (zero-std groups under zeroStdGroups 'skip' carry no signal). groups[g] are group g's
 * rollouts, advantages as core/rl/grpo-loop.ts's advantages section gives them.
 */
export function grpoBundleSteps(groups: readonly (readonly Rollout[])[], a: GrpoAdvantages, reference?: ScorerNetwork): BundleStep[] {
  const steps: BundleStep[] = [];
  groups.forEach((g, gi) => {
    if (a.groups[gi]!.skipped) return;
    g.forEach((r, i) => {
      const episode = `${r.job.instance.template.id}/${r.job.instance.seed}/${r.job.group}.${r.job.rollout}`;
      r.records.forEach((rec, t) => steps.push({
        episode, step: t, n: rec.n, features: encodeFeatures(rec.features), chosen: rec.chosen, logProb: rec.logProb,
        temperature: rec.temperature, advantage: a.advantages[gi]![i]![t]!,
        logProbRef: reference ? reference.logProbs(rec.features, rec.n, rec.temperature)[rec.chosen]! : null,
      }));
    });
  });
  return steps;
}

/**
 * One GRPO iteration's batch as steps: rollouts grouped by `job.group`, outcome rewards (NaN =
 * unscorable, left out of the group statistics), group-normalised advantages (core/rl/grpo-loop.ts
 * scoreAdvantages, as every GRPO loop takes them), then grpoBundleSteps.
 */
export function grpoSteps(rollouts: readonly Rollout[], opts: GrpoStepsOptions): { steps: BundleStep[]; groups: GroupStats[] } {
  const groupIds = [...new Set(rollouts.map((r) => r.job.group))].sort((a, b) => a - b);
  const groups = groupIds.map((g) => rollouts.filter((r) => r.job.group === g));
  const scores = { kind: 'episode', returns: groups.map((g) => g.map((r) => r.reward)), steps: groups.map((g) => g.map((r) => r.records.length)) } as const;
  const a = scoreAdvantages(scores, opts.mode, opts.advantage);
  return { steps: grpoBundleSteps(groups, a, opts.reference), groups: a.groups };
}

export interface GrpoCollectOptions extends GrpoStepsOptions {
  model: PolicyModel;
  groupSize: number;
  temperature: number;
  maxSteps: number;
  seed: number;
}

/** Rolls out `groupSize` episodes per instance with the model (sampling RNGs named by seed) and turns them into steps. */
export async function collectGrpoSteps(devices: readonly Device[], instances: readonly TaskInstance[], o: GrpoCollectOptions): Promise<{ steps: BundleStep[]; groups: GroupStats[]; rollouts: Rollout[] }> {
  const jobs: RolloutJob[] = instances.flatMap((instance, g) => Array.from({ length: o.groupSize }, (_, k) => ({
    group: g, rollout: k, instance, rngKey: `jobs/grpo/${o.seed}/${g}/${k}`,
  })));
  const rollouts = await runRollouts(devices, jobs, { model: o.model, temperature: o.temperature, maxSteps: o.maxSteps });
  return { ...grpoSteps(rollouts, o), rollouts };
}
