import { prepare, readConsistent, type ReadableDB } from './db.js';
import { rowToTemplate, type TemplateInfo, type TemplateRow } from './catalog.js';
import { getEpisodeRow, rowToEpisode, type EpisodeInfo } from './episodes.js';
import type { EpisodeId } from './ids.js';
import { fromJson } from './json.js';
import { loadSteps, type StoredStep } from './steps.js';
import { getSubgoalProgress, type SubgoalProgress } from './reward-annotations.js';
import { rolloutOf, type RolloutPlace } from './queries.js';

export interface InstanceInfo {
  templateId: string;
  seed: number;
  params: unknown;
  instruction: string;
  template: TemplateInfo;
}

/** One episode as the replay viewer and the trainers read it. Screenshots and trees are referenced by hash. */
export interface Trajectory {
  episode: EpisodeInfo;
  instance: InstanceInfo;
  steps: StoredStep[];
  /** The screen after the episode ended (null when the device failed before it could be observed). */
  final: { screenshot: string | null; tree: string | null };
  /** SimDroid's ground-truth subgoal progress, when it was captured while the episode ran. */
  subgoals?: SubgoalProgress;
  /** A GRPO training rollout's iteration, group, index in the group, reward and advantage; absent for other episodes. */
  rollout?: RolloutPlace;
}

/** Loads an episode, its instance and template, and its steps with their rewards; throws EpisodeNotFoundError. */
export function loadTrajectory(db: ReadableDB, id: EpisodeId): Trajectory {
  return readConsistent(db, () => {
    const row = getEpisodeRow(db, id);
    const inst = prepare<[number], { seed: number; params: string; instruction: string } & TemplateRow>(db, `
      SELECT i.seed, i.params, i.instruction, t.* FROM task_instances i JOIN task_templates t ON t.id = i.template_id
      WHERE i.id = ?`).get(row.instance_id)!;
    const template = rowToTemplate(inst);
    const traj: Trajectory = {
      episode: rowToEpisode(row),
      instance: { templateId: template.id, seed: inst.seed, params: fromJson(inst.params), instruction: inst.instruction, template },
      steps: loadSteps(db, id),
      final: { screenshot: row.final_screenshot, tree: row.final_tree },
    };
    const subgoals = getSubgoalProgress(db, id);
    if (subgoals) traj.subgoals = subgoals;
    const rollout = rolloutOf(db, id);
    if (rollout) traj.rollout = rollout;
    return traj;
  });
}
