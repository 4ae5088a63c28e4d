import { assertNever } from '../util/errors.js';
import type { RewardKind, StepRewardValue } from './component.js';

/**
 * What a component can show beyond its per-step values (issue 7: "the milestone list with hits, the
 * ProgRM key-step alignment against the matched recipe and the progress curve, and the judge's
 * verdict"). Plain JSON, so the API carries it to the replay viewer as is. One closed union: the
 * viewer switches over `kind` exhaustively. outcome, format and shortest-path have nothing beyond
 * their explanations, so they give no detail.
 */

/** One ADMIRE milestone as matched against one episode. */
export interface AdmireMilestoneDetail {
  /** The milestone with this instance's values filled in (what was compared). */
  text: string;
  /** The first step (0-based) that hit it, or null. */
  hitStep: number | null;
  /** Every step that hit it (more than one only with `afterLast: 'rehit'` on the last milestone). */
  hitSteps: number[];
  /** Cosine at the first hit; without a hit, the best cosine of the steps compared with it (null: none was). */
  similarity: number | null;
}

export interface AdmireDetail {
  kind: 'admire';
  templateId: string;
  /** The milestone memory's version for the template; null when it has no milestones yet. */
  version: number | null;
  /** The embedder ψ, e.g. `hashed-ngram/256/3`. */
  embedderId: string;
  delta: number;
  milestones: AdmireMilestoneDetail[];
  /** Per step: the milestone (0-based) the pointer compared it with, the cosine, and whether it hit. */
  steps: Array<{ compared: number | null; similarity: number | null; hit: boolean }>;
  /** λ0·γ^E (1 when the weighting is off). */
  weight: number;
  /** Why there is no match to show (no milestones, distillation failed), else absent. */
  note?: string;
}

/** A ProgRM recipe step or an episode step as its (type, element, text) triple, written out. */
export type ProgTriple = string;

export interface ProgRmDetail {
  kind: 'progrm';
  /** k in Prog(s_t) − Prog(s_{t−k}). */
  k: number;
  /** The model's progress: the initial state first, then after each step (length = steps + 1). */
  progress: number[];
  /** The episode's steps as triples, one per step. */
  actions: ProgTriple[];
  /** The best recipe of the task's library and the alignment to it; null without a library or a recipe. */
  recipe: {
    /** 0-based index in the task's library. */
    index: number;
    /** Successful trajectories it was distilled from. */
    support: number;
    keySteps: ProgTriple[];
    /** CR(T; L) = |LCS(T, L)| / |L| (ProgRM Eq. 4). */
    completion: number;
  } | null;
  /** Step ↔ recipe position for every key step (both 0-based), in step order. */
  alignment: Array<{ step: number; keyStep: number }>;
}

export const SHEPHERD_VERDICTS = ['correct', 'incorrect', 'unjudged', 'no-action'] as const;
export type ShepherdVerdict = (typeof SHEPHERD_VERDICTS)[number];

export interface ShepherdDetail {
  kind: 'shepherd';
  /** The judge's name (builtin checkpoint, VLM model). */
  judge: string;
  mapping: string;
  /**
   * Per step: P(correct) (null when unjudged; 0 for a step whose action did not parse, as its reward
   * counts it), the verdict at p ≥ 0.5, and the judge's explanation or why it could not judge.
   */
  steps: Array<{ step: number; pCorrect: number | null; verdict: ShepherdVerdict; reason: string }>;
}

export type RewardDetail = AdmireDetail | ProgRmDetail | ShepherdDetail;
export type DetailedKind = RewardDetail['kind'];

/** A component's values together with its detail. */
export interface DetailedRewardValues {
  values: StepRewardValue[];
  detail: RewardDetail;
}

/** Kinds that can give a detail (the others explain themselves in their per-step explanations). */
export function hasDetail(kind: RewardKind): kind is DetailedKind {
  switch (kind) {
    case 'admire':
    case 'progrm':
    case 'shepherd':
      return true;
    case 'outcome':
    case 'format':
    case 'shortest-path':
      return false;
    default:
      return assertNever(kind, 'reward kind');
  }
}

/** The verdict of a judged probability: GUI-Shepherd accepts a step at p ≥ 0.5 (App. C). */
export function verdictOf(p: number): ShepherdVerdict {
  return p >= 0.5 ? 'correct' : 'incorrect';
}
