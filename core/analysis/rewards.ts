import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RewardComponent, RewardEpisode, RewardStep } from '../rewards/component.js';
import type { AdmireDetail, ProgRmDetail, RewardDetail, ShepherdDetail } from '../rewards/details.js';
import { AdmireOptions, createDistiller, createEmbedder, storedSuccesses } from '../rewards/admire/index.js';
import type { SuccessTrace } from '../rewards/admire/distill.js';
import { MilestoneMemory } from '../rewards/admire/memory.js';
import { MemoryMilestoneStore, storedMilestoneVersions } from '../rewards/admire/milestone-store.js';
import { AdmireReward } from '../rewards/admire/reward.js';
import { DEFAULT_PROGRM_CHECKPOINT, ProgRmModelMissingError, ProgRmOptions, rewardModule as progrmModule } from '../rewards/progrm/index.js';
import { BuiltinJudge, loadJudge } from '../rewards/shepherd/builtin.js';
import { DEFAULT_JUDGE_CHECKPOINT } from '../rewards/shepherd/index.js';
import { ShepherdReward } from '../rewards/shepherd/reward.js';
import type { ReadableDB } from '../store/db.js';
import { WorkbenchError } from '../util/errors.js';
import type { Alignment, Reference } from './align.js';
import type { EpisodePath } from './path.js';

/**
 * Rewards on the failed path, beside the successful path's (issue 22): ADMIRE's milestones reached
 * and missed, ProgRM's progress curve and GUI-Shepherd's step verdicts, for the failed episode and
 * the reference it was aligned with. A component that cannot be built (no ProgRM model fitted, no
 * judge checkpoint) says so in one line and the others still show.
 */

export const PATH_REWARD_KINDS = ['admire', 'progrm', 'shepherd'] as const;
export type PathRewardKind = (typeof PATH_REWARD_KINDS)[number];

/** One path's details per component (null where the component could not be built: see `missing`). */
export interface PathRewards {
  label: string;
  episodeId: number | null;
  success: boolean;
  admire: AdmireDetail | null;
  progrm: ProgRmDetail | null;
  shepherd: ShepherdDetail | null;
}

export interface RewardsBeside {
  failed: PathRewards;
  /** The aligned reference (the one the divergence names, else the one followed furthest); null without references. */
  reference: PathRewards | null;
  /** Per component, one line saying why its section is empty, or null when it was computed. */
  missing: Record<PathRewardKind, string | null>;
  /** Where ADMIRE's milestones came from: the store's versions, stored successes, or the reference's path. */
  milestoneSource: string | null;
}

export interface PathRewardOptions {
  /** The data folder ($AWB_HOME): ProgRM's model and the judge's checkpoint live there. */
  dataDir?: string;
}

/** The path as reward components read it (screens as trees; no screenshots, so the builtin judge only). */
export function rewardEpisodeOfPath(p: EpisodePath, task: { templateId: string; instruction: string; params: unknown }, success: boolean): RewardEpisode {
  const params = task.params !== null && typeof task.params === 'object' && !Array.isArray(task.params) ? (task.params as Record<string, unknown>) : {};
  return {
    templateId: task.templateId, seed: p.seed, instruction: task.instruction, params, success,
    steps: p.steps.map((s, i): RewardStep => ({
      index: i, foreground: s.foreground, ...(s.action ? { action: s.action } : {}), ...(s.description !== undefined ? { description: s.description } : {}),
      ...(s.error ? { error: s.error } : {}), ...(s.xml !== null ? { tree: s.xml } : {}), ...(s.targetLabel !== undefined ? { target: { label: s.targetLabel } } : {}),
    })),
  };
}

/** The reference laid beside the failed path: the divergence's, else the furthest followed, else a same-instance one. */
export function alignedReference(refs: readonly Reference[], a: Alignment | null): Reference | null {
  const label = a?.divergence?.reference ?? a?.progress?.reference;
  return refs.find((r) => r.path.label === label) ?? refs.find((r) => r.level === 'exact') ?? refs[0] ?? null;
}

const line = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

/** ADMIRE against the store's milestones, read-only: a copy in memory, distilled there when the store has none. */
function admireComponent(db: ReadableDB, templateId: string, fallback: SuccessTrace[]): { component: AdmireReward; source: string } {
  const o = AdmireOptions.parse({});
  const store = new MemoryMilestoneStore();
  const versions = storedMilestoneVersions(db, templateId);
  for (const v of versions) store.putVersion(v);
  const stored = versions.length ? [] : storedSuccesses(db, templateId, o.keepExemplars);
  const from = stored.length ? stored : fallback;
  const source = versions.length ? `the store's milestones (version ${versions.at(-1)!.version})`
    : stored.length ? `distilled now from ${stored.length} stored success${stored.length > 1 ? 'es' : ''}` : `distilled now from the reference's path`;
  const { epoch, distiller, keepExemplars, embedder, ...config } = o;
  const memory = new MilestoneMemory(store, createDistiller(distiller), { keepExemplars });
  return { component: new AdmireReward({ memory, config, epoch, embedder: createEmbedder(embedder), bootstrap: () => from }), source };
}

function judgeComponent(dataDir: string | undefined): RewardComponent {
  const path = dataDir ? join(dataDir, DEFAULT_JUDGE_CHECKPOINT) : null;
  if (!path || !existsSync(path)) {
    throw new ShepherdJudgeNotFittedError(path ?? DEFAULT_JUDGE_CHECKPOINT);
  }
  return new ShepherdReward(new BuiltinJudge(loadJudge(path).model));
}

/** No builtin GUI-Shepherd judge where the analysis looks: say how to fit one. */
export class ShepherdJudgeNotFittedError extends WorkbenchError {
  override name = 'ShepherdJudgeNotFittedError';
  constructor(readonly checkpoint: string) {
    super(`No GUI-Shepherd judge at ${checkpoint}: fit one with \`awb rewards fit shepherd\``);
  }
}

async function progrmComponent(dataDir: string | undefined): Promise<RewardComponent> {
  if (!dataDir) throw new ProgRmModelMissingError(DEFAULT_PROGRM_CHECKPOINT);
  return progrmModule.create(ProgRmOptions.parse({}), { dataDir });
}

/** Computes the three components' details for the failed path and its aligned reference; never throws for a missing model. */
export async function rewardsBeside(
  db: ReadableDB, task: { templateId: string; instruction: string; params: unknown }, failed: EpisodePath, refs: readonly Reference[],
  alignment: Alignment | null, o: PathRewardOptions = {},
): Promise<RewardsBeside> {
  const ref = alignedReference(refs, alignment);
  const sides = [{ path: failed, success: false }, ...(ref ? [{ path: ref.path, success: true }] : [])];
  const episodes = sides.map((s) => rewardEpisodeOfPath(s.path, task, s.success));
  // The reference distils milestones only when the store has neither milestones nor successes (an oracle-only instance).
  const fallback: SuccessTrace[] = ref ? [{ instruction: task.instruction, params: episodes[1]!.params, descriptions: ref.path.steps.flatMap((s) => (s.description ? [s.description] : [])) }] : [];
  const details: Array<Partial<Record<PathRewardKind, RewardDetail>>> = sides.map(() => ({}));
  const missing: Record<PathRewardKind, string | null> = { admire: null, progrm: null, shepherd: null };
  let milestoneSource: string | null = null;
  const build: Record<PathRewardKind, () => Promise<RewardComponent>> = {
    admire: async () => {
      const a = admireComponent(db, task.templateId, fallback);
      milestoneSource = a.source;
      return a.component;
    },
    progrm: () => progrmComponent(o.dataDir),
    shepherd: async () => judgeComponent(o.dataDir),
  };
  for (const kind of PATH_REWARD_KINDS) {
    try {
      const c = await build[kind]();
      for (const [i, ep] of episodes.entries()) details[i]![kind] = (await c.computeDetailed!(ep)).detail;
    } catch (e) {
      missing[kind] = line(e);
      details.forEach((d) => delete d[kind]);
    }
  }
  const side = (i: number): PathRewards => ({
    label: sides[i]!.path.label, episodeId: sides[i]!.path.episodeId, success: sides[i]!.success,
    admire: (details[i]!.admire as AdmireDetail | undefined) ?? null,
    progrm: (details[i]!.progrm as ProgRmDetail | undefined) ?? null,
    shepherd: (details[i]!.shepherd as ShepherdDetail | undefined) ?? null,
  });
  return { failed: side(0), reference: ref ? side(1) : null, missing, milestoneSource };
}
