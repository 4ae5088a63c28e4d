import type {
  AdaptationDescription, AdaptationStart, AdaptProgress, IterationMetricsRow, PolicyInfo,
} from '../../../../core/api/types.js';
import { configFromForm, defaultFormValues, type ConfigFormValues } from '../../views/training/config-form.js';

/**
 * The Adaptation view's plain data, kept apart from the slice so it is tested without a store: the
 * form (config values by path, as the Training form keeps them), the request it sends, and one
 * adaptation's progress folded from the job's events.
 */
export interface AdaptForm {
  app: string;
  /** The base: a trainable policy choice by name (listPolicies', e.g. checkpoint:<name>; '' = none chosen). */
  policy: string;
  /** Adaptation config values by dotted path (shots, method, sft.epochs, grpo.iterations, …). */
  values: ConfigFormValues;
  /** Evaluation seeds as typed ("30, 7, 1234"). */
  evalSeeds: string;
  /** Recorded episodes of the app chosen as demonstrations. */
  episodes: number[];
}

/** The config paths the form shows up front; the rest sit in collapsed groups. */
export const MAIN_FIELDS = ['shots', 'method', 'kind', 'rank', 'sft.epochs', 'grpo.iterations', 'seed', 'home'] as const;

export const emptyForm = (): AdaptForm => ({ app: '', policy: '', values: {}, evalSeeds: '', episodes: [] });

/**
 * The base choices, from the one shared list (listPolicies): the builtin checkpoints training can start from, and
 * transformer model folders (adapted by GRPO with a LoRA on the screen transformer, docs/policy-transformer.md).
 */
export const baseChoices = (policies: readonly PolicyInfo[]): PolicyInfo[] => policies.filter((p) => p.trainable || p.kind === 'transformer');

/** The form's defaults: the first app (a held-out one), the first trainable policy (the newest checkpoint), the config's defaults. */
export function defaultForm(d: AdaptationDescription, policies: readonly PolicyInfo[]): AdaptForm {
  return { app: d.apps[0]?.app ?? '', policy: baseChoices(policies)[0]?.name ?? '', values: defaultFormValues(d.fields), evalSeeds: d.defaults.evalSeeds.join(', '), episodes: [] };
}

/** Seeds typed as "30, 7 1234": the numbers, or what is wrong with the text. */
export function parseSeeds(text: string): { seeds: number[] } | { error: string } {
  const tokens = text.split(/[\s,]+/).filter(Boolean);
  if (tokens.length === 0) return { error: 'give at least one evaluation seed' };
  const bad = tokens.filter((t) => !/^\d+$/.test(t));
  if (bad.length) return { error: `not a seed: ${bad.join(', ')} (non-negative integers, separated by commas or spaces)` };
  return { seeds: tokens.map(Number) };
}

/**
 * The startAdaptation request: only config fields that differ from their defaults, the seeds when
 * they differ from the default ones, the chosen episodes. Nothing else is checked here: the server
 * lists every problem by field.
 */
export function requestFromForm(form: AdaptForm, d: AdaptationDescription): { request: AdaptationStart } | { errors: Record<string, string> } {
  const seeds = parseSeeds(form.evalSeeds);
  if ('error' in seeds) return { errors: { evalSeeds: seeds.error } };
  const request: AdaptationStart = { app: form.app, policy: form.policy, config: configFromForm(form.values, d.fields) };
  if (seeds.seeds.join(',') !== d.defaults.evalSeeds.join(',')) request.evalSeeds = seeds.seeds;
  if (form.episodes.length) request.episodes = [...form.episodes];
  return { request };
}

export interface PhaseTally {
  done: number;
  total: number;
  successes: number;
}

/** One adaptation as its progress events tell it (a page that opens mid-run sees only what follows). */
export interface AdaptRun {
  /** The latest phase heard. */
  phase: AdaptProgress['phase'] | null;
  before: PhaseTally | null;
  after: PhaseTally | null;
  demonstrations: { source: 'oracle' | 'episodes'; episodes: number; steps: number; appSteps: number } | null;
  /** The oracle demonstrations collected so far, while they are collected. */
  demonstrating: { done: number; total: number } | null;
  /** SFT epochs and GRPO iterations as metric rows (charted as the Training view charts a run). */
  sft: IterationMetricsRow[];
  sftEpochs: number | null;
  grpo: IterationMetricsRow[];
  grpoIterations: number | null;
  saved: string | null;
}

export const emptyRun = (): AdaptRun => ({ phase: null, before: null, after: null, demonstrations: null, demonstrating: null, sft: [], sftEpochs: null, grpo: [], grpoIterations: null, saved: null });

export function applyProgress(run: AdaptRun, p: AdaptProgress): AdaptRun {
  switch (p.phase) {
    case 'before':
    case 'after': {
      // Episodes arrive one by one in order: the first of a phase starts its tally.
      const prev = p.done === 1 ? null : run[p.phase];
      return { ...run, phase: p.phase, [p.phase]: { done: p.done, total: p.total, successes: (prev?.successes ?? 0) + (p.success ? 1 : 0) } };
    }
    case 'demonstrating':
      return { ...run, phase: 'demonstrations', demonstrating: { done: p.done, total: p.total } };
    case 'demonstrations':
      return { ...run, phase: p.phase, demonstrating: null, demonstrations: { source: p.source, episodes: p.episodes, steps: p.steps, appSteps: p.appSteps } };
    case 'sft': {
      const { epoch, ...metrics } = p.metrics;
      return { ...run, phase: p.phase, sftEpochs: p.epochs, sft: [...run.sft.filter((r) => r.iteration !== epoch), { iteration: epoch, metrics }] };
    }
    case 'grpo':
      return { ...run, phase: p.phase, grpoIterations: p.iterations, grpo: [...run.grpo.filter((r) => r.iteration !== p.iteration), { iteration: p.iteration, metrics: p.metrics }] };
    case 'saved':
      return { ...run, phase: p.phase, saved: p.path };
  }
}
