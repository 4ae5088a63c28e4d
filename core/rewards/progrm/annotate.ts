import { z } from 'zod';
import { WorkbenchError } from '../../util/errors.js';
import type { RewardEpisode } from '../component.js';
import { foldLcs, PROG_ACTION_TYPES, softLcs, softMatch, toProgAction, type ProgAction, type SoftMatchOptions } from './lcs.js';
import { formatIssues } from '../../util/zod-issues.js';

/**
 * ProgRM's LCS-based self-annotation (digest 001 §2.3.5–2.3.8; paper §2.2, Eqs. 3–4):
 *   Stage 1  group each task's successful trajectories (pairwise Sim > θ_L) and take each group's
 *            multi-sequence LCS as a recipe;
 *   Stage 2  match every trajectory against the recipe with the highest completion ratio; the
 *            matched steps are its key steps;
 *   Stage 3  a key step matched to recipe position κ (1-based) gets progress κ/|L|; other steps
 *            inherit the nearest preceding key step's label (0 before the first).
 * The env variant (ProgRM_Env) takes key steps from SimDroid's ground-truth subgoals instead.
 */
export interface AnnotateOptions extends SoftMatchOptions {
  /** Grouping threshold θ_L (paper: 0.6); pairs in a group must have Sim strictly above it. */
  thetaL: number;
  /** CR numerator: matched pairs (default) or the soft LCS score (the paper does not say which). */
  completion: 'pairs' | 'soft';
  /** What a "task goal" is: one template across seeds (values as placeholders), or one instance. */
  taskKey: 'template' | 'instance';
}

export const DEFAULT_ANNOTATE = { thetaL: 0.6, epsilon: 0.4, textThreshold: 0.5, completion: 'pairs', taskKey: 'template' } as const;

export class AnnotationError extends WorkbenchError {
  override name = 'AnnotationError';
  constructor(message: string, readonly got: unknown) {
    super(`ProgRM annotation: ${message} (got ${JSON.stringify(got)})`);
  }
}

export function taskKeyOf(ep: RewardEpisode, mode: AnnotateOptions['taskKey']): string {
  return mode === 'template' ? ep.templateId : `${ep.templateId}/${ep.seed}`;
}

export function progActions(ep: RewardEpisode): ProgAction[] {
  return ep.steps.map((s) => toProgAction(s, ep.params));
}

/** Sim(T_i, T_j) = SoftLCS(T_i, T_j) / min(|T_i|, |T_j|)  (ProgRM Eq. 3); 0 when either is empty. */
export function trajectorySimilarity(a: readonly ProgAction[], b: readonly ProgAction[], opts: SoftMatchOptions): number {
  const n = Math.min(a.length, b.length);
  if (n === 0) return 0;
  return softLcs(a, b, (x, y) => softMatch(x, y, opts)).score / n;
}

/**
 * Greedy grouping (the paper only states the invariant "Sim between any two members exceeds θ_L"):
 * shortest trajectory first, each joins the first group where Sim > θ_L against every member,
 * else starts a new group. Returns groups of indices into `trajs`.
 */
export function groupTrajectories(trajs: readonly (readonly ProgAction[])[], opts: SoftMatchOptions & { thetaL: number }): number[][] {
  const order = trajs.map((t, i) => [t.length, i] as const).sort((x, y) => x[0] - y[0] || x[1] - y[1]).map(([, i]) => i);
  const groups: number[][] = [];
  for (const i of order) {
    const g = groups.find((members) => members.every((j) => trajectorySimilarity(trajs[i]!, trajs[j]!, opts) > opts.thetaL));
    if (g) g.push(i);
    else groups.push([i]);
  }
  return groups;
}

export interface Recipe {
  actions: ProgAction[];
  /** How many successful trajectories it was distilled from. */
  support: number;
}

/** The recipe library L^(g) of each task: one recipe per group of successful trajectories. */
export function buildRecipeLibrary(episodes: readonly RewardEpisode[], opts: AnnotateOptions): Map<string, Recipe[]> {
  const byTask = new Map<string, ProgAction[][]>();
  for (const ep of episodes) {
    if (ep.success !== true) continue;
    const key = taskKeyOf(ep, opts.taskKey);
    const list = byTask.get(key) ?? [];
    list.push(progActions(ep));
    byTask.set(key, list);
  }
  const f = (x: ProgAction, y: ProgAction) => softMatch(x, y, opts);
  const library = new Map<string, Recipe[]>();
  for (const [key, trajs] of byTask) {
    const groups = groupTrajectories(trajs, opts);
    const recipes = groups.map((g) => ({ actions: foldLcs(g.map((i) => trajs[i]!), f), support: g.length })).filter((r) => r.actions.length > 0);
    library.set(key, recipes);
  }
  return library;
}

export interface KeyStepAlignment {
  /** Which recipe of the task's library matched best (index), and the recipe itself. */
  recipeIndex: number;
  recipe: Recipe;
  /** CR(T; L) = |LCS(T, L)| / |L|  (ProgRM Eq. 4). */
  completion: number;
  /** (step index, 0-based recipe position) for every key step. */
  keySteps: Array<[number, number]>;
}

/** Stage 2: the recipe with the highest completion ratio (first on ties) and the key steps matched to it. */
export function discoverKeySteps(actions: readonly ProgAction[], recipes: readonly Recipe[], opts: AnnotateOptions): KeyStepAlignment | null {
  const f = (x: ProgAction, y: ProgAction) => softMatch(x, y, opts);
  let best: KeyStepAlignment | null = null;
  recipes.forEach((recipe, recipeIndex) => {
    const r = softLcs(actions, recipe.actions, f);
    const matched = opts.completion === 'pairs' ? r.pairs.length : r.score;
    const completion = matched / recipe.actions.length;
    if (!best || completion > best.completion) best = { recipeIndex, recipe, completion, keySteps: r.pairs };
  });
  return best;
}

/**
 * Stage 3: p*_t = κ/|L| at a key step matched to recipe position κ (1-based); a non-key step takes
 * the nearest preceding key step's label, 0 before the first one. Label t is the progress after step t.
 */
export function lcsLabels(stepCount: number, alignment: KeyStepAlignment | null): number[] {
  const labels = new Array<number>(stepCount).fill(0);
  if (!alignment) return labels;
  const at = new Map(alignment.keySteps.map(([t, pos]) => [t, (pos + 1) / alignment.recipe.actions.length]));
  let cur = 0;
  for (let t = 0; t < stepCount; t++) {
    cur = at.get(t) ?? cur;
    labels[t] = cur;
  }
  return labels;
}

/**
 * ProgRM_Env labels (paper §2.2, §3.3): the steps after which another ground-truth subgoal holds are
 * the key steps, with progress even among the task's K subgoals: p*_t = done_t / K. K is the
 * template's subgoal count, so a failed episode ends below 1.
 */
export function envLabels(ep: RewardEpisode): { labels: number[]; keySteps: number[] } {
  const done = ep.subgoalsDone;
  const k = ep.subgoalNames?.length ?? 0;
  if (!done || k === 0) throw new AnnotationError(`episode ${ep.templateId}/${ep.seed} has no ground-truth subgoals`, { subgoalsDone: done ?? null, subgoals: k });
  if (done.length !== ep.steps.length) throw new AnnotationError(`subgoalsDone must have one entry per step (${ep.steps.length})`, done.length);
  const keySteps: number[] = [];
  let prev = 0;
  const labels = done.map((d, t) => {
    if (d > prev) keySteps.push(t);
    prev = Math.max(prev, d);
    return Math.min(1, prev / k);
  });
  return { labels, keySteps };
}

/**
 * Where progress labels come from: LCS self-annotation (ProgRM_LCS), ground-truth subgoals
 * (ProgRM_Env), or the trajectory's outcome on every state (the paper's ORM baseline, trained on
 * "the overall success or failure label of each trajectory"; unscorable episodes are left out).
 */
export const LABEL_SOURCES = ['lcs', 'env', 'outcome'] as const;
export type LabelSource = (typeof LABEL_SOURCES)[number];

export interface AnnotatedEpisode {
  episode: RewardEpisode;
  /** Progress after each step, in [0, 1]. */
  labels: number[];
  /** Indices of key steps. */
  keySteps: number[];
  /** The LCS alignment (lcs source only; null when the task has no recipe). */
  alignment: KeyStepAlignment | null;
}

/** Labels every episode (successful and failed) from the library built on the successful ones. */
export function annotateEpisodes(episodes: readonly RewardEpisode[], source: LabelSource, opts: AnnotateOptions): AnnotatedEpisode[] {
  switch (source) {
    case 'env':
      return episodes.map((episode) => ({ episode, ...envLabels(episode), alignment: null }));
    case 'outcome':
      return episodes
        .filter((episode) => episode.success !== null)
        .map((episode) => ({ episode, labels: episode.steps.map(() => (episode.success ? 1 : 0)), keySteps: [], alignment: null }));
    case 'lcs': {
      const library = buildRecipeLibrary(episodes, opts);
      return episodes.map((episode) => {
        const alignment = discoverKeySteps(progActions(episode), library.get(taskKeyOf(episode, opts.taskKey)) ?? [], opts);
        return { episode, labels: lcsLabels(episode.steps.length, alignment), keySteps: alignment?.keySteps.map(([t]) => t) ?? [], alignment };
      });
    }
    default: {
      const never: never = source;
      throw new AnnotationError('unknown label source', never);
    }
  }
}

const ProgActionSchema = z.strictObject({ type: z.enum(PROG_ACTION_TYPES), element: z.string(), text: z.string() });
/** A recipe library as plain JSON (kept in a progress-model checkpoint's meta for explanations). */
export const RecipeLibrarySchema = z.record(z.string(), z.array(z.strictObject({ actions: z.array(ProgActionSchema).min(1), support: z.int().min(1) })));

export function libraryToJson(library: ReadonlyMap<string, readonly Recipe[]>): z.infer<typeof RecipeLibrarySchema> {
  return Object.fromEntries([...library].map(([k, rs]) => [k, rs.map((r) => ({ actions: r.actions.map((a) => ({ ...a })), support: r.support }))]));
}

/** Parses a library written by libraryToJson; throws AnnotationError listing the problems. */
export function libraryFromJson(json: unknown): Map<string, Recipe[]> {
  const r = RecipeLibrarySchema.safeParse(json);
  if (!r.success) throw new AnnotationError(`bad recipe library: ${formatIssues(r.error.issues, { root: '(root)' })}`, typeof json);
  return new Map(Object.entries(r.data));
}
