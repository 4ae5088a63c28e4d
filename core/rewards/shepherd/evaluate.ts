import type { Device } from '../../device/device.js';
import type { Policy } from '../../episode/policy.js';
import { runEpisode } from '../../episode/runner.js';
import type { TaskInstance } from '../../tasks/instance.js';
import type { LabelledStep } from './builtin.js';
import type { StepJudge } from './judge.js';
import { VerifierPolicy } from './verifier.js';

/** Judge accuracy on labelled steps at p ≥ 0.5 (the paper reports accuracy on held-out steps, Table 3). */
export interface JudgeAccuracy {
  n: number;
  /** Steps the judge could not judge (not counted in the rates). */
  unjudged: number;
  accuracy: number;
  /** Of the correct steps, the fraction judged correct (recall of positives). */
  truePositiveRate: number;
  /** Of the deviating steps, the fraction judged incorrect. */
  trueNegativeRate: number;
}

export async function judgeAccuracy(judge: StepJudge, steps: readonly LabelledStep[], signal?: AbortSignal): Promise<JudgeAccuracy> {
  const verdicts = await judge.judge(steps.map((s) => s.input), signal);
  let tp = 0, tn = 0, pos = 0, neg = 0, unjudged = 0;
  verdicts.forEach((v, i) => {
    if (v.p === null) {
      unjudged++;
      return;
    }
    const y = steps[i]!.label;
    const yhat = v.p >= 0.5 ? 1 : 0;
    if (y === 1) {
      pos++;
      if (yhat === 1) tp++;
    } else {
      neg++;
      if (yhat === 0) tn++;
    }
  });
  const judged = pos + neg;
  return {
    n: steps.length, unjudged,
    accuracy: judged ? (tp + tn) / judged : 0,
    truePositiveRate: pos ? tp / pos : 0,
    trueNegativeRate: neg ? tn / neg : 0,
  };
}

export interface VerifierGain {
  episodes: number;
  /** Success rate of the base policy alone. */
  base: number;
  /** Success rate of the base policy under the verifier. */
  verified: number;
  /** verified − base, in points of success rate (0..1). */
  gain: number;
}

/**
 * Success with vs without the verifier on the same instances. `makeBase(key)` builds a fresh base
 * policy per episode (its own sampling RNG, named by key) so both arms see the same seeds.
 */
export async function verifierGain(
  device: Device, instances: readonly TaskInstance[], makeBase: (key: string) => Policy, judge: StepJudge, n = 3,
): Promise<VerifierGain> {
  let base = 0;
  let verified = 0;
  for (const instance of instances) {
    const key = `${instance.template.id}/${instance.seed}`;
    if ((await runEpisode({ device, instance, policy: makeBase(key) })).success) base++;
    if ((await runEpisode({ device, instance, policy: new VerifierPolicy(makeBase(key), judge, n) })).success) verified++;
  }
  const k = instances.length;
  return { episodes: k, base: k ? base / k : 0, verified: k ? verified / k : 0, gain: k ? (verified - base) / k : 0 };
}
