import type { StateCreator } from 'zustand';
import type { WorkbenchApi } from '../../../../core/api/api.js';
import type {
  CheckpointInfo, IterationMetricsRow, JobInfo, SessionPolicy, TrainConfigDescription, TrainerKind, TrainingEvent, TrainingResume, TrainingRunInfo,
} from '../../../../core/api/types.js';
import type { AppState } from '../index.js';
import { sharedWatch } from '../shared-watch.js';
import type { ChartXAxis } from '../../views/training/chart-data.js';

/**
 * The Training view's state: the trainers' form descriptions, this workbench's jobs of every kind
 * (kept current by onTraining; adaptation jobs are here for the one-job rule), the stored runs and checkpoints, and per-run metric histories (loaded from the
 * store, then extended by live iteration events, so a reload or a finished run draws the same
 * charts). Jobs are generic records keyed by id, so another kind of background job fits beside.
 */
export interface TrainingSlice {
  trainingKind: TrainerKind;
  trainDescriptions: Partial<Record<TrainerKind, TrainConfigDescription>>;
  trainingJobs: JobInfo[];
  trainingRuns: TrainingRunInfo[];
  /** Whether trainingRuns has been listed once (before that, a run not in it may just not be loaded yet). */
  trainingRunsLoaded: boolean;
  checkpoints: CheckpointInfo[];
  /** The New run form per trainer, as typed (kept across views and trainer switches), and the preset last applied. */
  trainForms: Partial<Record<TrainerKind, { values: Record<string, string>; preset: string }>>;
  setTrainForm(kind: TrainerKind, form: { values: Record<string, string>; preset: string }): void;
  /** The run whose charts are shown (follows a newly started job). */
  chartRunId: number | null;
  /** Metrics per run id, in iteration order. */
  runMetrics: Record<number, IterationMetricsRow[]>;
  /** The server's problems with the last config started, by field path ('' = the whole config). */
  trainingErrors: Record<string, string>;
  trainingBusy: boolean;
  setTrainingKind(kind: TrainerKind): void;
  /** Both trainers' descriptions, the jobs, runs and checkpoints. */
  loadTraining(): Promise<void>;
  /** onTraining updates (ref-counted); returns the stop function. */
  watchTraining(): () => void;
  startTraining(config: Record<string, unknown>): Promise<JobInfo | undefined>;
  pauseTraining(jobId: string): Promise<void>;
  resumeTraining(input: TrainingResume): Promise<JobInfo | undefined>;
  stopTraining(jobId: string): Promise<void>;
  /** Shows a run's charts, loading its stored history. */
  showRun(runId: number): Promise<void>;
  refreshTrainingRuns(): Promise<void>;
  clearTrainingError(path: string): void;
  /** A GRPO init the New run form should take (set by a checkpoint row's "Use as init"; the form clears it). */
  pendingInit: string | null;
  /** "Use as init": the New run form switches to GRPO (the transformer's, for its model folder) with init = the checkpoint. */
  useAsInit(checkpoint: string, kind: 'grpo' | 'transformer-grpo'): void;
  takePendingInit(): string | null;
  /** "Run in Agent": the Agent view with its policy set to this choice. */
  runInAgent(policy: SessionPolicy): void;
  /** The iteration the charts mark (a link back from a rollout in Trajectories), or null. */
  chartMarker: number | null;
  /** Trajectories → Training: shows the run's charts marked at the iteration. */
  openRunChart(runId: number, iteration: number): void;
  /** Training → Trajectories: the run's recorded episodes (at an iteration, if given). */
  openRunEpisodes(runId: number, iteration?: number): void;
  /** EMA weight of the charts' smoothed line, 0 (none) to 0.99 (TensorBoard's slider). */
  chartSmoothing: number;
  setChartSmoothing(weight: number): void;
  /** Other runs drawn over the shown run's charts. */
  overlayRunIds: number[];
  toggleOverlayRun(runId: number): void;
  /** What the charts' x axis counts: iterations (epochs), environment steps, or training time. */
  chartXAxis: ChartXAxis;
  setChartXAxis(axis: ChartXAxis): void;
  /** Metrics whose charts draw a log-scale y axis (a loss or KL spanning decades), kept across runs. */
  chartLogMetrics: string[];
  toggleChartLog(metric: string): void;
}

const ENDED = new Set<JobInfo['state']>(['stopped', 'finished', 'failed']);

/** Every trainer, in the form's order (core's TRAINER_KINDS is a value the renderer does not import; the check below keeps them equal). */
export const TRAINERS = ['grpo', 'sft', 'transformer-sft', 'transformer-grpo'] as const satisfies readonly TrainerKind[];
const everyTrainer: Exclude<TrainerKind, (typeof TRAINERS)[number]> extends never ? true : never = true;
void everyTrainer;

/** A training job (the job list also holds adaptation jobs: they share the one-job-at-a-time rule). */
export function isTrainingJob(j: JobInfo): j is JobInfo & { kind: TrainerKind } {
  return (TRAINERS as readonly string[]).includes(j.kind);
}

/** The job of any kind still running (or starting, paused, stopping), if any: one runs at a time. */
export function activeJob(s: Pick<TrainingSlice, 'trainingJobs'>): JobInfo | null {
  return s.trainingJobs.find((j) => !ENDED.has(j.state)) ?? null;
}

/** The most recent training job (the one the Training view's controls act on). */
export function currentJob(s: Pick<TrainingSlice, 'trainingJobs'>): (JobInfo & { kind: TrainerKind }) | null {
  const active = activeJob(s);
  if (active && isTrainingJob(active)) return active;
  return s.trainingJobs.filter(isTrainingJob).at(-1) ?? null;
}

/** Rows by iteration, later ones replacing earlier ones (a resumed run may repeat iterations past its checkpoint). */
export function mergeMetrics(a: readonly IterationMetricsRow[], b: readonly IterationMetricsRow[]): IterationMetricsRow[] {
  const byIteration = new Map<number, IterationMetricsRow>();
  for (const r of [...a, ...b]) byIteration.set(r.iteration, r);
  return [...byIteration.values()].sort((x, y) => x.iteration - y.iteration);
}

/** The list with `job` replacing its older record, or added. */
export function upsertJob(jobs: readonly JobInfo[], job: JobInfo): JobInfo[] {
  return jobs.some((j) => j.id === job.id) ? jobs.map((j) => (j.id === job.id ? job : j)) : [...jobs, job];
}

/**
 * A call's reply adds a job not seen yet; a known one keeps its state from the events, which the
 * server sends before the reply and which may already be newer (a 'paused' after 'pausing').
 */
function adoptJob(jobs: readonly JobInfo[], job: JobInfo): JobInfo[] {
  return jobs.some((j) => j.id === job.id) ? [...jobs] : [...jobs, job];
}

export const createTrainingSlice = (api: WorkbenchApi): StateCreator<AppState, [], [], TrainingSlice> => (set, get) => {

  const onEvent = (e: TrainingEvent) => {
    const job = e.job;
    const before = get().trainingJobs.find((j) => j.id === job.id);
    set((s) => ({ trainingJobs: upsertJob(s.trainingJobs, job) }));
    if (job.runId !== null && (before?.runId ?? null) === null) {
      // A job's run is known: show it, with what the store already holds for it (a resumed run's past).
      void get().showRun(job.runId);
    }
    if (e.kind === 'iteration' && job.runId !== null) {
      const runId = job.runId;
      set((s) => ({ runMetrics: { ...s.runMetrics, [runId]: mergeMetrics(s.runMetrics[runId] ?? [], [{ iteration: e.iteration, metrics: e.metrics }]) } }));
    }
    if (!isTrainingJob(job)) return; // an adaptation's state is kept only for the one-job rule
    const newCheckpoint = job.checkpoint !== null && job.checkpoint.iteration !== before?.checkpoint?.iteration;
    if (newCheckpoint || (e.kind === 'state' && before?.state !== job.state && (ENDED.has(job.state) || job.state === 'running'))) {
      void get().refreshTrainingRuns();
    }
  };

  return {
    trainingKind: 'grpo',
    trainDescriptions: {},
    trainingJobs: [],
    trainingRuns: [],
    trainingRunsLoaded: false,
    checkpoints: [],
    trainForms: {},
    setTrainForm: (kind, form) => set((s) => ({ trainForms: { ...s.trainForms, [kind]: form } })),
    chartRunId: null,
    runMetrics: {},
    trainingErrors: {},
    trainingBusy: false,
    pendingInit: null,

    useAsInit: (checkpoint, kind) => set({ trainingKind: kind, trainingErrors: {}, pendingInit: `checkpoint:${checkpoint}` }),
    takePendingInit: () => {
      const init = get().pendingInit;
      if (init !== null) set({ pendingInit: null });
      return init;
    },
    runInAgent: (policy) => {
      get().setAgentForm({ policy });
      get().setView('agent');
    },
    chartMarker: null,
    openRunChart: (runId, iteration) => {
      set({ chartRunId: runId, chartMarker: iteration });
      get().setView('training');
      void get().showRun(runId);
    },
    openRunEpisodes: (runId, iteration) => {
      // The run's list, not whichever episode was open in the replay viewer before.
      if (get().replay) get().closeEpisode();
      get().setView('trajectories');
      void get().setEpisodeQuery({ runId, iteration: iteration ?? null });
      void get().loadFacets();
    },
    chartSmoothing: 0,
    setChartSmoothing: (weight) => set({ chartSmoothing: Math.min(0.99, Math.max(0, weight)) }),
    overlayRunIds: [],
    toggleOverlayRun: (runId) => {
      const on = get().overlayRunIds.includes(runId);
      set((s) => ({ overlayRunIds: on ? s.overlayRunIds.filter((x) => x !== runId) : [...s.overlayRunIds, runId] }));
      if (!on && !get().runMetrics[runId]) {
        void get().attempt(`Load the metrics of run ${runId}`, () => api.getTrainingMetrics({ runId })).then((rows) => {
          if (rows) set((s) => ({ runMetrics: { ...s.runMetrics, [runId]: mergeMetrics(rows, s.runMetrics[runId] ?? []) } }));
        });
      }
    },

    chartXAxis: 'iteration',
    setChartXAxis: (axis) => set({ chartXAxis: axis }),
    chartLogMetrics: [],
    toggleChartLog: (metric) => set((s) => ({
      chartLogMetrics: s.chartLogMetrics.includes(metric) ? s.chartLogMetrics.filter((m) => m !== metric) : [...s.chartLogMetrics, metric],
    })),

    setTrainingKind: (kind) => set({ trainingKind: kind, trainingErrors: {} }),

    loadTraining: async () => {
      const { attempt, trainDescriptions: known } = get();
      // The schemas do not change while the app runs: described once, so a typed form survives a view switch.
      const describe = (kind: TrainerKind) => known[kind] ?? attempt(`Describe the ${kind.toUpperCase()} config`, () => api.describeTrainConfig({ kind }));
      const [described, jobs] = await Promise.all([
        Promise.all(TRAINERS.map(async (kind) => [kind, await describe(kind)] as const)),
        attempt('List training jobs', () => api.listTrainingJobs({})),
        get().refreshTrainingRuns(),
      ]);
      set((s) => ({
        trainDescriptions: {
          ...s.trainDescriptions, ...Object.fromEntries(described.filter(([kind, d]) => d && d !== s.trainDescriptions[kind])),
        },
        // Events may have arrived meanwhile: they are newer than the listing.
        trainingJobs: (jobs ?? []).reduce((acc, j) => (acc.some((x) => x.id === j.id) ? acc : [...acc, j]), s.trainingJobs)
          .sort((a, b) => a.startedAt - b.startedAt),
      }));
      const s = get();
      const show = s.chartRunId ?? currentJob(s)?.runId ?? s.trainingRuns[0]?.runId ?? null;
      if (show !== null) await s.showRun(show);
    },

    watchTraining: sharedWatch(() => api.onTraining({}, onEvent)),

    startTraining: async (config) => {
      set({ trainingBusy: true, trainingErrors: {} });
      const kind = get().trainingKind;
      const job = await get().attemptForm(`Start ${kind.toUpperCase()} training`, () => api.startTraining({ kind, config }), (trainingErrors) => set({ trainingErrors }));
      set((s) => ({ trainingBusy: false, ...(job ? { trainingJobs: adoptJob(s.trainingJobs, job) } : {}) }));
      return job;
    },

    pauseTraining: async (jobId) => {
      const job = await get().attempt('Pause training', () => api.pauseTraining({ jobId }));
      if (job) set((s) => ({ trainingJobs: adoptJob(s.trainingJobs, job) }));
    },

    resumeTraining: async (input) => {
      const job = await get().attempt('Resume training', () => api.resumeTraining(input));
      if (job) set((s) => ({ trainingJobs: adoptJob(s.trainingJobs, job) }));
      return job;
    },

    stopTraining: async (jobId) => {
      const job = await get().attempt('Stop training', () => api.stopTraining({ jobId }));
      if (job) set((s) => ({ trainingJobs: adoptJob(s.trainingJobs, job) }));
    },

    showRun: async (runId) => {
      // A marker belongs to the run it was set for.
      set((s) => ({ chartRunId: runId, chartMarker: s.chartRunId === runId || s.chartRunId === null ? s.chartMarker : null }));
      const [rows] = await Promise.all([
        get().attempt(`Load the metrics of run ${runId}`, () => api.getTrainingMetrics({ runId })),
        // A run made since the list was read (by \`awb train\` in another process) is listed before it is called missing.
        get().trainingRuns.some((r) => r.runId === runId) ? undefined : get().refreshTrainingRuns(),
      ]);
      if (rows) set((s) => ({ runMetrics: { ...s.runMetrics, [runId]: mergeMetrics(rows, s.runMetrics[runId] ?? []) } }));
    },

    refreshTrainingRuns: async () => {
      // The policy choices follow the checkpoints (GRPO init, Evaluate and Agent list them).
      const [runs, checkpoints, policies] = await Promise.all([
        get().attempt('List training runs', () => api.listTrainingRuns({})),
        get().attempt('List checkpoints', () => api.listCheckpoints({})),
        get().attempt('List policies', () => api.listPolicies({})),
      ]);
      set((s) => ({
        trainingRuns: runs ?? s.trainingRuns, trainingRunsLoaded: s.trainingRunsLoaded || runs !== undefined,
        checkpoints: checkpoints ?? s.checkpoints, agentPolicies: policies ?? s.agentPolicies,
      }));
    },

    clearTrainingError: (path) => set((s) => {
      if (!(path in s.trainingErrors)) return s;
      const next = { ...s.trainingErrors };
      delete next[path];
      return { trainingErrors: next };
    }),
  };
};
