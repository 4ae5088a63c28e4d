import type { StateCreator } from 'zustand';
import type { WorkbenchApi } from '../../../../core/api/api.js';
import type {
  IterationMetricsRow, PublicTrainerProfile, RemoteJobEvent, RemoteJobInfo, RemoteJobSubmit, TrainerSave,
} from '../../../../core/api/types.js';
import type { OnlineGrpoRunInfo, OnlineGrpoStart } from '../../../../core/api/job-types.js';
import type { AppState } from '../index.js';
import { sharedWatch } from '../shared-watch.js';

/**
 * The Jobs view's state: trainer profiles (no tokens), the store's remote-job records (kept current
 * by onRemoteJob), and per job its log tail and metric rows as the workbench streams them. Events
 * carry the service's seq, so a replay (a second follow, a reconnect) never duplicates a line.
 */
export interface JobLogLine {
  seq: number;
  time: number;
  level: string;
  message: string;
}

export interface JobStream {
  /** The highest seq applied (log and metric events share the sequence). */
  lastSeq: number;
  logs: JobLogLine[];
  /** Metric events as chart rows: `step` as the x value (MetricChart's iteration). */
  metrics: IterationMetricsRow[];
}

export interface JobsSlice {
  trainers: PublicTrainerProfile[];
  remoteJobs: RemoteJobInfo[];
  jobStreams: Record<number, JobStream>;
  shownRemoteJob: number | null;
  jobsBusy: boolean;
  /** This workbench's online GRPO loops, newest first (kept current by onRemoteJob's `online` events). */
  onlineRuns: OnlineGrpoRunInfo[];
  /** The last start's refusals by field path ('' for one without a field). */
  onlineErrors: Record<string, string>;
  onlineBusy: boolean;
  loadJobs(): Promise<void>;
  /** onRemoteJob updates (ref-counted); returns the stop function. */
  watchJobs(): () => void;
  /** Shows a job and asks the workbench to stream its events (its whole log, then live). */
  showRemoteJob(id: number | null): Promise<void>;
  submitRemoteJob(input: RemoteJobSubmit): Promise<RemoteJobInfo | undefined>;
  cancelRemoteJob(id: number): Promise<void>;
  downloadRemoteArtifacts(id: number): Promise<void>;
  registerRemotePolicy(id: number): Promise<void>;
  /** Saves a profile; a trainer that does not answer is refused into `trainerUnreachable` (the panel offers Save anyway), not a banner. */
  saveTrainer(p: TrainerSave): Promise<boolean>;
  /** Why the last save was refused because the trainer did not answer (what was tried, what to do); null when it was not. */
  trainerUnreachable: string | null;
  clearTrainerUnreachable(): void;
  removeTrainer(name: string): Promise<void>;
  /** Starts an online GRPO loop; a refusal lands in onlineErrors at its field. */
  startOnlineGrpo(input: OnlineGrpoStart): Promise<OnlineGrpoRunInfo | undefined>;
  stopOnlineGrpo(runId: number): Promise<void>;
  /** The form's choices: endpoint profiles, and the registered checkpoints among the policies (the Agent view's list). */
  loadOnlineChoices(): Promise<void>;
  /** Shows the loop's training run in the Training view. */
  openOnlineRun(runId: number): Promise<void>;
}

/** Lines kept per job: the tail the view shows (the full log stays on the service). */
export const LOG_TAIL = 500;

const emptyStream = (): JobStream => ({ lastSeq: 0, logs: [], metrics: [] });

/** The list with `job` replacing its older record, or added first (newest first, as the store lists them). */
export function upsertRemoteJob(jobs: readonly RemoteJobInfo[], job: RemoteJobInfo): RemoteJobInfo[] {
  return jobs.some((j) => j.id === job.id) ? jobs.map((j) => (j.id === job.id ? job : j)) : [job, ...jobs];
}

/** The list with `run` replacing its older state, or added first (newest first). */
export function upsertOnlineRun(runs: readonly OnlineGrpoRunInfo[], run: OnlineGrpoRunInfo): OnlineGrpoRunInfo[] {
  return runs.some((r) => r.runId === run.runId) ? runs.map((r) => (r.runId === run.runId ? run : r)) : [run, ...runs];
}

/** Applies one event to the jobs and streams (pure: the slice and its tests share it); `online` events are upsertOnlineRun's. */
export function applyRemoteJobEvent(s: Pick<JobsSlice, 'remoteJobs' | 'jobStreams'>, e: RemoteJobEvent): Pick<JobsSlice, 'remoteJobs' | 'jobStreams'> {
  switch (e.type) {
    case 'online':
      return s;
    case 'job':
      return { remoteJobs: upsertRemoteJob(s.remoteJobs, e.job), jobStreams: s.jobStreams };
    case 'log':
    case 'metric': {
      const cur = s.jobStreams[e.jobId] ?? emptyStream();
      if (e.seq <= cur.lastSeq) return s; // already applied (a replay)
      const next: JobStream = e.type === 'log'
        ? { ...cur, lastSeq: e.seq, logs: [...cur.logs, { seq: e.seq, time: e.time, level: e.level, message: e.message }].slice(-LOG_TAIL) }
        : { ...cur, lastSeq: e.seq, metrics: [...cur.metrics, { iteration: e.step, metrics: e.metrics }] };
      return { remoteJobs: s.remoteJobs, jobStreams: { ...s.jobStreams, [e.jobId]: next } };
    }
  }
}

/** Every metric name a job has reported, in first-seen order (one chart each). */
export function metricNames(stream: JobStream | undefined): string[] {
  const names = new Set<string>();
  for (const r of stream?.metrics ?? []) for (const k of Object.keys(r.metrics)) names.add(k);
  return [...names];
}

export const isRemoteJobActive = (j: Pick<RemoteJobInfo, 'status'>): boolean => j.status === 'submitting' || j.status === 'queued' || j.status === 'running';

export const createJobsSlice = (api: WorkbenchApi): StateCreator<AppState, [], [], JobsSlice> => (set, get) => {
  const onEvent = (e: RemoteJobEvent) => {
    set((s) => (e.type === 'online' ? { onlineRuns: upsertOnlineRun(s.onlineRuns, e.run) } : applyRemoteJobEvent(s, e)));
    // A finished builtin loop registered its last checkpoint: offer it as the next loop's start.
    if (e.type === 'online' && e.run.state === 'finished' && e.run.policyKind === 'builtin') void get().loadOnlineChoices();
  };
  const replace = (job: RemoteJobInfo | undefined) => {
    if (job) set((s) => ({ remoteJobs: upsertRemoteJob(s.remoteJobs, job) }));
  };
  return {
    trainers: [],
    trainerUnreachable: null,
    clearTrainerUnreachable: () => set({ trainerUnreachable: null }),
    remoteJobs: [],
    jobStreams: {},
    shownRemoteJob: null,
    jobsBusy: false,
    onlineRuns: [],
    onlineErrors: {},
    onlineBusy: false,

    loadJobs: async () => {
      const r = await get().attempt('Load remote jobs', async () => ({
        trainers: await api.listTrainers({}), jobs: await api.listRemoteJobs({}), online: await api.listOnlineGrpo({}),
      }));
      // An event may have arrived meanwhile: it is newer than the listing.
      if (r) set((s) => ({ trainers: r.trainers, remoteJobs: r.jobs, onlineRuns: r.online.map((x) => s.onlineRuns.find((y) => y.runId === x.runId) ?? x) }));
    },

    watchJobs: sharedWatch(() => api.onRemoteJob({}, onEvent)),

    showRemoteJob: async (id) => {
      set({ shownRemoteJob: id });
      const job = get().remoteJobs.find((j) => j.id === id);
      // A job never accepted has nothing to stream.
      if (id !== null && job?.remoteId) await get().attempt('Follow remote job', () => api.followRemoteJob({ id }));
    },

    submitRemoteJob: async (input) => {
      set({ jobsBusy: true });
      const job = await get().attempt(`Submit ${input.kind} job`, () => api.submitRemoteJob(input));
      set({ jobsBusy: false });
      if (job) {
        replace(job);
        set({ shownRemoteJob: job.id });
      }
      return job;
    },

    cancelRemoteJob: async (id) => replace(await get().attempt('Cancel remote job', () => api.cancelRemoteJob({ id }))),
    downloadRemoteArtifacts: async (id) => replace(await get().attempt('Download artifacts', () => api.downloadArtifacts({ id }))),
    registerRemotePolicy: async (id) => replace(await get().attempt('Register policy', () => api.registerPolicy({ id }))),

    saveTrainer: async (p) => {
      set({ trainerUnreachable: null });
      const list = await get().attempt(`Save trainer ${p.name}`, async () => {
        try {
          return await api.saveTrainer(p);
        } catch (e) {
          // Shown once, at the form, with its Save anyway: the error is its whole cause.
          if ((e as Error).name !== 'TrainerCheckError') throw e;
          set({ trainerUnreachable: (e as Error).message });
          return undefined;
        }
      });
      if (list) set({ trainers: list });
      return list !== undefined;
    },
    startOnlineGrpo: async (input) => {
      set({ onlineBusy: true, onlineErrors: {} });
      const run = await get().attemptForm('Start online GRPO', () => api.startOnlineGrpo(input), (onlineErrors) => set({ onlineErrors }));
      set((s) => ({ onlineBusy: false, ...(run ? { onlineRuns: upsertOnlineRun(s.onlineRuns, s.onlineRuns.find((r) => r.runId === run.runId) ?? run) } : {}) }));
      return run;
    },
    stopOnlineGrpo: async (runId) => {
      const run = await get().attempt('Stop online GRPO', () => api.stopOnlineGrpo({ runId }));
      if (run) set((s) => ({ onlineRuns: upsertOnlineRun(s.onlineRuns, run) }));
    },
    loadOnlineChoices: async () => {
      const [, policies] = await Promise.all([get().loadEndpoints(), get().attempt('List policies', () => api.listPolicies({}))]);
      if (policies) set({ agentPolicies: policies });
    },
    openOnlineRun: async (runId) => {
      get().setView('training');
      await get().refreshTrainingRuns();
      await get().showRun(runId);
    },

    removeTrainer: async (name) => {
      const list = await get().attempt(`Remove trainer ${name}`, () => api.removeTrainer({ name }));
      if (list) set({ trainers: list });
    },
  };
};
