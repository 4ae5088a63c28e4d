import type { Device } from '../device/device.js';
import { observe } from '../device/observation.js';
import type { EpisodeResult, StepRecord } from '../episode/record.js';
import type { Trajectory } from '../store/trajectory.js';
import type { SubgoalProgress } from '../store/reward-annotations.js';
import type { TaskInstance } from '../tasks/instance.js';
import type { Subgoal } from '../tasks/task.js';
import type { RewardEpisode, RewardStep } from './component.js';

/**
 * Building a RewardEpisode: from a stored trajectory (for recomputing rewards), and capturing
 * SimDroid's ground-truth subgoal progress while an episode runs (so components and accuracy checks
 * can compare against it later without the device).
 */

/** Stored params are JSON; a non-object (an import without them: null) gives no placeholders. */
function paramsOf(p: unknown): Record<string, unknown> {
  return p !== null && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, unknown>) : {};
}

/** Calls `read` once per distinct key. */
function cached<T>(read: (sha256: string) => T): (sha256: string) => T {
  const cache = new Map<string, T>();
  return (sha) => {
    if (!cache.has(sha)) cache.set(sha, read(sha));
    return cache.get(sha)!;
  };
}

/**
 * The episode as reward components see it. `trees(sha)` returns a stored accessibility tree's XML
 * (e.g. `(h) => getTree(db, h)`); it is asked once per distinct tree. `screenshots(sha)` returns a
 * stored screenshot's PNG (e.g. `(h) => getScreenshot(db, h)`); without it steps have no screenshot.
 * Screenshots are read lazily, on a step's first `screenshot` access and once per distinct hash, since
 * most components never look at them and PNGs are the bulk of an episode. Success is null unless the
 * checker gave a verdict (status success or failure): an error, interrupted or running episode is
 * unscorable by outcome-based components.
 */
export function rewardEpisodeFromTrajectory(
  traj: Trajectory, trees: (sha256: string) => string, screenshots?: (sha256: string) => Buffer,
): RewardEpisode {
  const treeOf = cached(trees);
  const shotOf = screenshots ? cached(screenshots) : undefined;
  const steps = traj.steps.map((s): RewardStep => {
    const step: RewardStep = { index: s.index, foreground: s.foreground };
    if (s.action) step.action = s.action;
    if (s.description !== undefined) step.description = s.description;
    if (s.error) step.error = s.error;
    if (s.tree) step.tree = treeOf(s.tree);
    if (s.target) step.target = { label: s.target.label };
    const sha = s.screenshot;
    if (shotOf && sha) Object.defineProperty(step, 'screenshot', { enumerable: true, get: () => shotOf(sha) });
    return step;
  });
  const e = traj.episode;
  const judged = e.status === 'success' || e.status === 'failure';
  const episode: RewardEpisode = {
    templateId: traj.instance.templateId,
    seed: traj.instance.seed,
    instruction: traj.instance.instruction,
    params: paramsOf(traj.instance.params),
    steps,
    success: judged ? e.status === 'success' : null,
  };
  if (!judged) {
    episode.verdictNote = `episode ${e.status}${e.terminatedBy ? `, ended by ${e.terminatedBy}` : ''}${e.error ? ` (${e.error.name}: ${e.error.message})` : ''}`;
  }
  if (traj.subgoals) {
    episode.subgoalNames = traj.subgoals.names;
    episode.subgoalsDone = traj.subgoals.done;
  }
  return episode;
}

/**
 * The episode as reward components see it, straight from a run (a GRPO rollout): `trees[i]` is the
 * accessibility tree step i was taken on (absent when not captured). Success is null unless the
 * checker gave a verdict, as for stored episodes.
 */
export function rewardEpisodeFromResult(instance: TaskInstance, result: EpisodeResult, trees?: readonly string[]): RewardEpisode {
  const steps = result.steps.map((s, i): RewardStep => {
    const step: RewardStep = { index: s.index, foreground: s.foreground };
    if (s.action) step.action = s.action;
    if (s.description !== undefined) step.description = s.description;
    if (s.error) step.error = s.error;
    const tree = trees?.[i];
    if (tree) step.tree = tree;
    if (s.target) step.target = { label: s.target.label };
    return step;
  });
  const judged = result.status === 'success' || result.status === 'failure';
  const episode: RewardEpisode = {
    templateId: instance.template.id, seed: instance.seed, instruction: instance.instruction, params: paramsOf(instance.params),
    steps, success: judged ? result.status === 'success' : null,
  };
  if (!judged) {
    episode.verdictNote = `episode ${result.status}, ended by ${result.terminatedBy}${result.error ? ` (${result.error.name}: ${result.error.message})` : ''}`;
  }
  return episode;
}

/**
 * Captures the template's ordered ground-truth subgoals step by step, as the task suite's subgoal test
 * does: after each step, the next unmet subgoal is checked on the new screen and state, and the
 * pointer advances while they hold (a sequential pointer, like ADMIRE's milestone matching). A step
 * that failed (an impossible action) left the device untouched, so its count is the previous one.
 *
 *   const tracker = new SubgoalTracker(device, instance);
 *   await runEpisode({ ..., onStepDone: tracker.onStepDone });
 *   putSubgoalProgress(db, recorder.episodeId!, tracker.progress());
 */
export class SubgoalTracker {
  private readonly subgoals: Subgoal[];
  private reached = 0;
  private readonly done: number[] = [];

  constructor(private readonly device: Device, instance: TaskInstance) {
    this.subgoals = instance.template.subgoals(instance.params);
  }

  /** For runEpisode's `onStepDone`. */
  readonly onStepDone = async (step: StepRecord): Promise<void> => {
    if (!step.error && this.reached < this.subgoals.length) {
      const obs = await observe(this.device);
      while (this.reached < this.subgoals.length && (await this.subgoals[this.reached]!.check({ device: this.device, obs }))) this.reached++;
    }
    this.done.push(this.reached);
  };

  progress(): SubgoalProgress {
    return { names: this.subgoals.map((s) => s.name), done: [...this.done] };
  }
}
