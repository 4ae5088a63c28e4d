import type { StateCreator } from 'zustand';
import type { WorkbenchApi } from '../../../../core/api/api.js';
import type { EvaluationEvent, EvaluationInfo, EvaluationStart } from '../../../../core/api/types.js';
import type { AppState } from '../index.js';
import { sharedWatch } from '../shared-watch.js';

/**
 * Evaluate (in the Training view): the form (a policy, an optional "before", split, part, seeds,
 * limit) and this workbench's evaluations, kept current by onEvaluation.
 */
export interface EvaluationForm {
  policy: string;
  /** '' for none. */
  before: string;
  split: NonNullable<EvaluationStart['splits']>[number];
  part: NonNullable<EvaluationStart['part']>;
  /** Comma-separated. */
  seeds: string;
  /** '' for every template. */
  limit: string;
}

export interface EvaluationSlice {
  evaluationForm: EvaluationForm;
  evaluations: EvaluationInfo[];
  setEvaluationForm(patch: Partial<EvaluationForm>): void;
  loadEvaluations(): Promise<void>;
  watchEvaluations(): () => void;
  startEvaluation(): Promise<EvaluationInfo | undefined>;
  stopEvaluation(id: string): Promise<void>;
  /** Trajectories filtered by one of an evaluation's runs. */
  browseRun(runId: number): Promise<void>;
}

/** The form as the API's input; a problem (bad seeds or limit) is thrown as an Error naming the field. */
export function evaluationStartOf(f: EvaluationForm): EvaluationStart {
  const seeds = f.seeds.split(',').map((s) => s.trim()).filter(Boolean);
  if (seeds.some((s) => !/^\d+$/.test(s))) throw new Error(`Seeds "${f.seeds}": a comma-separated list of whole numbers, e.g. 30,7,1234`);
  if (f.limit.trim() && !/^[1-9]\d*$/.test(f.limit.trim())) throw new Error(`Limit "${f.limit}": a whole number of templates, at least 1`);
  return {
    policy: f.policy, splits: [f.split], part: f.part,
    ...(f.before ? { before: f.before } : {}),
    ...(seeds.length ? { seeds: seeds.map(Number) } : {}),
    ...(f.limit.trim() ? { limit: Number(f.limit.trim()) } : {}),
  };
}

const upsert = (list: readonly EvaluationInfo[], e: EvaluationInfo) =>
  (list.some((x) => x.id === e.id) ? list.map((x) => (x.id === e.id ? e : x)) : [e, ...list]);

export const createEvaluationSlice = (api: WorkbenchApi): StateCreator<AppState, [], [], EvaluationSlice> => (set, get) => ({
  evaluationForm: { policy: '', before: '', split: 'unseen-instance', part: 'test', seeds: '30,7,1234', limit: '' },
  evaluations: [],

  setEvaluationForm: (patch) => set((s) => ({ evaluationForm: { ...s.evaluationForm, ...patch } })),

  loadEvaluations: async () => {
    const list = await get().attempt('List evaluations', () => api.listEvaluations({}));
    // Events may have arrived meanwhile: they are newer than the listing.
    if (list) set((s) => ({ evaluations: list.reduce((acc, e) => (acc.some((x) => x.id === e.id) ? acc : [...acc, e]), s.evaluations) }));
  },

  watchEvaluations: sharedWatch(() => api.onEvaluation({}, (e: EvaluationEvent) => set((s) => ({ evaluations: upsert(s.evaluations, e.evaluation) })))),

  startEvaluation: async () => {
    const started = await get().attempt('Start the evaluation', async () => api.startEvaluation(evaluationStartOf(get().evaluationForm)));
    if (started) set((s) => ({ evaluations: s.evaluations.some((x) => x.id === started.id) ? s.evaluations : [started, ...s.evaluations] }));
    return started;
  },

  stopEvaluation: async (id) => {
    const e = await get().attempt('Stop the evaluation', () => api.stopEvaluation({ id }));
    if (e) set((s) => ({ evaluations: upsert(s.evaluations, e) }));
  },

  browseRun: async (runId) => {
    get().setView('trajectories');
    await get().setEpisodeQuery({ runId });
  },
});
