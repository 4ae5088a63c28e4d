import type { EvalDeltas, EvalReport } from '../rl/eval.js';
import type { SplitName, SplitPart } from '../tasks/splits.js';

export type { EvalDeltas, EvalReport, GroupStats, SeedRate } from '../rl/eval.js';

/**
 * Evaluate in the workbench: what `awb eval` does (the same store runs, kind 'suite' with config
 * `eval: true`, one per seed), run in a worker thread with progress, for one policy or two (before/after).
 */
export interface EvaluationStart {
  /** A policy choice as listPolicies names it (an evaluable one: not manual, not vlm-replay). */
  policy: string;
  /** A second choice, the "before": evaluated first on the same instances; the results carry after − before. */
  before?: string;
  /** Regimes (default ['unseen-instance']). */
  splits?: SplitName[];
  /** Default 'test'. */
  part?: SplitPart;
  /** Evaluation seeds, each one instance of every template (default the split's test seeds, 30, 7, 1234). */
  seeds?: number[];
  /** Only the first N templates. */
  limit?: number;
}

export const EVALUATION_STATES = ['running', 'stopping', 'finished', 'stopped', 'failed'] as const;
export type EvaluationState = (typeof EVALUATION_STATES)[number];

/** One policy's evaluation: its store runs (one per seed: filter Trajectories by them) and its report. */
export interface EvaluationPolicyResult {
  policy: string;
  runs: Array<{ seed: number; runId: number }>;
  report: EvalReport;
  /** Stopped before every instance ran: the report covers the episodes that did. */
  stopped: boolean;
}

export interface EvaluationInfo {
  id: string;
  state: EvaluationState;
  /** In the order evaluated: the "before" first when there is one. */
  policies: string[];
  splits: SplitName[];
  part: SplitPart;
  seeds: number[];
  templates: number;
  /** Episodes done and planned, over every policy. */
  done: number;
  total: number;
  /** The episode last finished ("policy: seed/template"), or null. */
  current: string | null;
  /** Seconds left at the pace so far (null before the first episode). */
  etaSeconds: number | null;
  startedAt: number;
  endedAt: number | null;
  error: { name: string; message: string } | null;
  results: EvaluationPolicyResult[];
  /** After − before (the second policy minus the first), once both are evaluated; null for one policy. */
  deltas: EvalDeltas | null;
}

/** Streamed by onEvaluation: every change of an evaluation (state, an episode done, a policy's result). */
export type EvaluationEvent = { kind: 'state' | 'progress' | 'result'; evaluation: EvaluationInfo };
