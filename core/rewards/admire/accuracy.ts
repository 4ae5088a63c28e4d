import type { Device } from '../../device/device.js';
import { runEpisode } from '../../episode/runner.js';
import type { SubgoalProgress } from '../../store/reward-annotations.js';
import { SubgoalTracker } from '../episode.js';
import type { Policy } from '../../episode/policy.js';
import type { TaskInstance } from '../../tasks/instance.js';
import type { AdmireConfig } from './config.js';
import type { SuccessTrace } from './distill.js';
import { hashedEmbedder, needsPrepare, type TextEmbedder } from './embedder.js';
import { matchMilestones, type MilestoneMatch } from './match.js';
import type { MilestoneMemory } from './memory.js';
import { fillPlaceholders, placeholderValues } from './placeholders.js';

/**
 * Ground truth of one episode: the template's subgoal names and, after each step, how many were done
 * (the framework's SubgoalTracker). Counting starts at 0: no template's first subgoal holds right after
 * the reset (checked over the suite on the evaluation seeds), so the first advance is a step's doing.
 */
export type GroundTruthProgress = SubgoalProgress;

/** Step-level agreement of milestone hits with ground-truth subgoal advances. */
export interface MatchAccuracy {
  steps: number;
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  precision: number;
  recall: number;
  accuracy: number;
}

/**
 * A step is a ground-truth positive when it advanced the subgoal pointer (done[t] > done[t−1], with
 * done[−1] = 0); a prediction is a milestone hit. precision = tp/(tp+fp), recall = tp/(tp+fn),
 * accuracy = (tp+tn)/steps — the paper's "matching accuracy" (81.3% at δ = 0.75, Fig. 9) is over
 * human-labelled (action, milestone) pairs, ours over every step against the simulator's own checks.
 */
export function matchAccuracy(episodes: ReadonlyArray<{ hit: readonly boolean[]; progress: GroundTruthProgress }>): MatchAccuracy {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  for (const { hit, progress } of episodes) {
    hit.forEach((h, t) => {
      const advanced = progress.done[t]! > (t === 0 ? 0 : progress.done[t - 1]!);
      if (h && advanced) tp++;
      else if (h) fp++;
      else if (advanced) fn++;
      else tn++;
    });
  }
  const steps = tp + fp + fn + tn;
  const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);
  return { steps, tp, fp, fn, tn, precision: ratio(tp, tp + fp), recall: ratio(tp, tp + fn), accuracy: ratio(tp + tn, steps) };
}

/** One episode of the evaluation: its descriptions, verdict and ground truth. */
export interface EvaluatedEpisode {
  templateId: string;
  seed: number;
  policy: string;
  success: boolean;
  descriptions: Array<string | null>;
  params: Record<string, unknown>;
  progress: GroundTruthProgress;
}

export interface MatchingEvalOptions {
  device: Device;
  memory: MilestoneMemory;
  /** Instances whose oracle successes distil the milestones (per template, all at once). */
  distillOn: readonly TaskInstance[];
  /** Instances the policies are run on and matched. */
  evalOn: readonly TaskInstance[];
  /** Fresh policy per episode; `name` labels the episodes. */
  policies: ReadonlyArray<{ name: string; make(instance: TaskInstance): Policy }>;
  makeOracle(): Policy;
  deltas: readonly number[];
  afterLast?: AdmireConfig['afterLast'];
  embedder?: TextEmbedder;
}

export interface MatchingEvalResult {
  episodes: EvaluatedEpisode[];
  /** Per δ, over all evaluated episodes, and per policy. */
  byDelta: Array<{ delta: number; all: MatchAccuracy; byPolicy: Record<string, MatchAccuracy> }>;
  /** Mean milestones per template with any, and templates left without. */
  milestones: { templates: number; meanK: number; without: string[] };
  /** Matching time per step (embedding the description and comparing), ms, at the last δ. */
  matchMsPerStep: number;
}

const params = (p: unknown) => (p && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, unknown>) : {});

/** Distils milestones from oracle successes on `distillOn`, then runs every policy on `evalOn` with subgoal progress captured. */
export async function runMatchingEpisodes(o: Omit<MatchingEvalOptions, 'deltas' | 'afterLast' | 'embedder'>): Promise<EvaluatedEpisode[]> {
  // distil
  const traces = new Map<string, SuccessTrace[]>();
  for (const inst of o.distillOn) {
    const r = await runEpisode({ device: o.device, instance: inst, policy: o.makeOracle() });
    if (!r.success) continue;
    const t: SuccessTrace = { instruction: inst.instruction, params: params(inst.params), descriptions: r.steps.flatMap((s) => (s.description ? [s.description] : [])) };
    traces.set(inst.template.id, [...(traces.get(inst.template.id) ?? []), t]);
  }
  for (const [id, list] of traces) await o.memory.refine(id, list);
  // run
  const episodes: EvaluatedEpisode[] = [];
  for (const inst of o.evalOn) {
    for (const p of o.policies) {
      const tracker = new SubgoalTracker(o.device, inst);
      const r = await runEpisode({ device: o.device, instance: inst, policy: p.make(inst), onStepDone: tracker.onStepDone });
      episodes.push({
        templateId: inst.template.id, seed: inst.seed, policy: p.name, success: r.success, params: params(inst.params),
        descriptions: r.steps.map((s) => s.description ?? null), progress: tracker.progress(),
      });
    }
  }
  return episodes;
}

/** The texts matching the episodes will embed: each template's milestones (placeholders filled) and every description. */
export function episodeTexts(episodes: readonly EvaluatedEpisode[], memory: MilestoneMemory): string[] {
  return episodes.flatMap((ep) => {
    const values = placeholderValues(ep.params);
    const ms = (memory.get(ep.templateId)?.milestones ?? []).map((m) => fillPlaceholders(m, values));
    return [...ms, ...ep.descriptions.flatMap((d) => (d ? [d] : []))];
  });
}

/** One episode matched against its template's milestones (an embedder that needs `prepare` must have the episode's texts). */
export function matchEpisode(ep: EvaluatedEpisode, memory: MilestoneMemory, embedder: TextEmbedder, config: Pick<AdmireConfig, 'delta' | 'afterLast'>): MilestoneMatch {
  const values = placeholderValues(ep.params);
  const msEmb = (memory.get(ep.templateId)?.milestones ?? []).map((m) => embedder.embed(fillPlaceholders(m, values)));
  return matchMilestones(ep.descriptions.map((d) => (d ? embedder.embed(d) : null)), msEmb, config);
}

/**
 * The accuracy check against SimDroid's ground truth: milestones are distilled from oracle successes on
 * `distillOn`, then every policy runs on `evalOn` with subgoal progress captured, and each step's
 * milestone hit (at each δ) is compared with whether it advanced a subgoal.
 */
export async function evaluateMilestoneMatching(o: MatchingEvalOptions): Promise<MatchingEvalResult> {
  const embedder = o.embedder ?? hashedEmbedder();
  const episodes = await runMatchingEpisodes(o);
  // match
  const ids = [...new Set(o.evalOn.map((i) => i.template.id))];
  const withK = ids.map((id) => o.memory.get(id)?.milestones.length ?? 0);
  // A model embedder (transformers.js) embeds asynchronously: every text it will be asked for, in batches, first.
  if (needsPrepare(embedder)) await embedder.prepare(episodeTexts(episodes, o.memory));
  const byDelta: MatchingEvalResult['byDelta'] = [];
  let matchMs = 0;
  let matchedSteps = 0;
  for (const delta of o.deltas) {
    const all: Array<{ hit: boolean[]; progress: GroundTruthProgress; policy: string }> = [];
    matchMs = 0;
    matchedSteps = 0;
    for (const ep of episodes) {
      const t0 = performance.now();
      const m = matchEpisode(ep, o.memory, embedder, { delta, afterLast: o.afterLast ?? 'stop' });
      matchMs += performance.now() - t0;
      matchedSteps += ep.descriptions.length;
      all.push({ hit: m.hit, progress: ep.progress, policy: ep.policy });
    }
    const byPolicy: Record<string, MatchAccuracy> = {};
    for (const p of o.policies) byPolicy[p.name] = matchAccuracy(all.filter((e) => e.policy === p.name));
    byDelta.push({ delta, all: matchAccuracy(all), byPolicy });
  }
  return {
    episodes, byDelta,
    milestones: { templates: withK.filter((k) => k > 0).length, meanK: withK.filter((k) => k > 0).reduce((a, b) => a + b, 0) / Math.max(1, withK.filter((k) => k > 0).length), without: ids.filter((_, i) => withK[i] === 0) },
    matchMsPerStep: matchedSteps ? matchMs / matchedSteps : 0,
  };
}

/**
 * How well a per-episode score separates successes from failures: the area under the ROC curve, computed as the
 * Mann–Whitney probability that a random success scores above a random failure, ties counting one half:
 *   AUC = (1 / (n₊ n₋)) Σ_{i ∈ successes} Σ_{j ∈ failures} ([s_i > s_j] + ½ [s_i = s_j])
 * 0.5 is chance, 1 perfect separation; null when either class is empty.
 */
export function separationAuc(episodes: ReadonlyArray<{ score: number; success: boolean }>): number | null {
  const pos = episodes.filter((e) => e.success).map((e) => e.score);
  const neg = episodes.filter((e) => !e.success).map((e) => e.score);
  if (!pos.length || !neg.length) return null;
  let wins = 0;
  for (const p of pos) for (const n of neg) wins += p > n ? 1 : p === n ? 0.5 : 0;
  return wins / (pos.length * neg.length);
}
