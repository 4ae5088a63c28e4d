import type { RewardEpisode } from '../component.js';
import { envLabels } from './annotate.js';
import { predictProgress, type ProgressModel } from './model.js';

/**
 * Key-step progress error (ProgRM §3.3, Table 3): on evaluation trajectories, the steps after which
 * a new environment milestone (here a SimDroid ground-truth subgoal) holds are the true key steps,
 * with progress even among the task's milestones (done_t / K). The error is the mean absolute
 * difference between the estimate and that progress over all key steps of all episodes:
 *   err = (1 / Σ_e |K_e|) Σ_e Σ_{t ∈ K_e} |p̂_t − done_t / K|
 * "Avg. Fin. Score" is the mean estimate after each episode's last step.
 * Episodes without ground-truth subgoals are skipped (counted in `skipped`).
 */
export interface KeyStepErrorReport {
  /** Mean |p̂ − p| over key steps (NaN when there are none). */
  keyStepError: number;
  keySteps: number;
  episodes: number;
  skipped: number;
  /** Mean estimate on final steps, over all, successful and failed episodes. */
  finalScore: { all: number; success: number; failure: number };
}

/** `estimate(ep)` gives the progress after each step (length = steps). */
export function keyStepError(episodes: readonly RewardEpisode[], estimate: (ep: RewardEpisode) => readonly number[]): KeyStepErrorReport {
  let sum = 0;
  let keySteps = 0;
  let used = 0;
  let skipped = 0;
  const finals: Record<'all' | 'success' | 'failure', number[]> = { all: [], success: [], failure: [] };
  for (const ep of episodes) {
    if (!ep.subgoalsDone || !ep.subgoalNames?.length || ep.steps.length === 0) {
      skipped++;
      continue;
    }
    used++;
    const truth = envLabels(ep);
    const est = estimate(ep);
    for (const t of truth.keySteps) {
      sum += Math.abs(est[t]! - truth.labels[t]!);
      keySteps++;
    }
    const fin = est[ep.steps.length - 1]!;
    finals.all.push(fin);
    if (ep.success === true) finals.success.push(fin);
    if (ep.success === false) finals.failure.push(fin);
  }
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
  return {
    keyStepError: keySteps ? sum / keySteps : NaN,
    keySteps,
    episodes: used,
    skipped,
    finalScore: { all: mean(finals.all), success: mean(finals.success), failure: mean(finals.failure) },
  };
}

/** The progress model as an estimator for keyStepError: the states after each step. */
export function modelEstimator(model: ProgressModel): (ep: RewardEpisode) => number[] {
  return (ep) => predictProgress(model, ep).slice(1);
}
