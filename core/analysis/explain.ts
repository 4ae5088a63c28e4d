import { getTree } from '../store/content.js';
import type { ReadableDB } from '../store/db.js';
import type { EpisodeId } from '../store/ids.js';
import type { StoredEpisodeStatus } from '../store/statuses.js';
import { loadTrajectory, type Trajectory } from '../store/trajectory.js';
import type { Termination } from '../episode/record.js';
import type { Difficulty } from '../tasks/task.js';
import type { CheckVerdict } from '../tasks/verdict.js';
import { align, type Alignment, type Reference } from './align.js';
import type { PathRewardOptions, RewardsBeside } from './rewards.js';
import { findReferences, pathFromTrajectory, type ReferenceOptions } from './references.js';
import { classifyFailure, type Classification } from './taxonomy.js';

/** Why one episode failed: the checker's reasons, the failure class and the first divergence from the successful paths. */
export interface EpisodeExplanation {
  episodeId: number;
  templateId: string;
  seed: number;
  app: string | null;
  difficulty: Difficulty | null;
  instruction: string;
  status: StoredEpisodeStatus;
  terminatedBy: Termination | null;
  answer: string | null;
  steps: number;
  /** The checker's conditions, when they were stored with the episode (or given). */
  verdict: CheckVerdict | null;
  /** Null for an episode that did not fail (success, running, interrupted). */
  classification: Classification | null;
  /** Null when the episode did not fail. */
  alignment: Alignment | null;
  /** With `rewards` asked for: ADMIRE, ProgRM and the judge on the failed path beside the aligned reference's. */
  rewards: RewardsBeside | null;
  /** What could not be done and why (no oracle on a real device, an oracle that failed). */
  notes: string[];
}

const isVerdict = (v: unknown): v is CheckVerdict =>
  v !== null && typeof v === 'object' && typeof (v as CheckVerdict).ok === 'boolean' && Array.isArray((v as CheckVerdict).conditions);

/** The verdict stored with the episode, where the store has one (the checkers' reasons land there; older episodes lack it). */
export function storedVerdict(t: Trajectory): CheckVerdict | null {
  const v = (t.episode as { verdict?: unknown }).verdict;
  return isVerdict(v) ? v : null;
}

export interface ExplainOptions extends ReferenceOptions {
  /** The checker's verdict, overriding a stored one. */
  verdict?: CheckVerdict;
  /** Reuse references across episodes of one instance (a run's table); keyed `${templateId}:${seed}`. */
  referenceCache?: Map<string, Promise<{ references: Reference[]; notes: string[] }>>;
  /** Also compute the rewards on the failed path and the aligned reference's (one episode's view; a run's table leaves it off). */
  rewards?: PathRewardOptions;
}

/** Explains a stored episode; throws EpisodeNotFoundError for an unknown id. */
export async function explainEpisode(db: ReadableDB, id: EpisodeId, o: ExplainOptions = {}): Promise<EpisodeExplanation> {
  const t = loadTrajectory(db, id);
  const e = t.episode;
  const verdict = o.verdict ?? storedVerdict(t);
  const base: EpisodeExplanation = {
    episodeId: e.id, templateId: t.instance.templateId, seed: t.instance.seed, app: t.instance.template.app,
    difficulty: t.instance.template.difficulty, instruction: t.instance.instruction, status: e.status, terminatedBy: e.terminatedBy,
    answer: e.answer, steps: t.steps.length, verdict, classification: null, alignment: null, rewards: null, notes: [],
  };
  if (e.status !== 'failure' && e.status !== 'error') return base;
  const key = `${t.instance.templateId}:${t.instance.seed}`;
  let found = o.referenceCache?.get(key);
  if (!found) {
    found = findReferences(db, t, o);
    o.referenceCache?.set(key, found);
  }
  const { references, notes } = await found;
  const path = pathFromTrajectory(t, (sha) => getTree(db, sha));
  const alignment = align(path, references);
  if (!references.length) notes.push('no successful path to align with: no stored success of this template and no oracle run');
  // A step-through session's person may have chosen steps: the failure is then not the policy's alone.
  const byPerson = path.steps.filter((s) => s.overridden).map((s) => s.index + 1);
  const dv = alignment.divergence;
  const own: string[] = []; // this episode's notes (`notes` is shared by the episodes of an instance through referenceCache)
  if (dv?.byPerson) own.push(`step ${dv.failedStep! + 1}, where it left the successful paths, was a person's override, not the policy's choice`);
  if (byPerson.length) own.push(`a person chose ${byPerson.length === 1 ? 'step' : 'steps'} ${byPerson.join(', ')} (overrides); the policy chose the rest`);
  const classification = classifyFailure({
    status: e.status, terminatedBy: e.terminatedBy, answer: e.answer, error: e.error, instruction: t.instance.instruction,
    template: { id: t.instance.templateId, apps: t.instance.template.apps, kind: t.instance.template.kind, difficulty: t.instance.template.difficulty },
    params: t.instance.params, path, references, alignment, ...(verdict ? { verdict } : {}),
  });
  const task = { templateId: t.instance.templateId, instruction: t.instance.instruction, params: t.instance.params };
  // Loaded only when asked: the reward modules are not needed for a run's table (the workbench's worker).
  const rewards = o.rewards ? await (await import('./rewards.js')).rewardsBeside(db, task, path, references, alignment, o.rewards) : null;
  return { ...base, classification, alignment, rewards, notes: [...notes, ...own] };
}
