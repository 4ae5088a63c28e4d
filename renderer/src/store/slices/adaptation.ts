import type { StateCreator } from 'zustand';
import type { WorkbenchApi } from '../../../../core/api/api.js';
import type { AdaptationDescription, AdaptationEvent, AdaptationReport, AdapterInfo, BaseTraining, EpisodeSummary, JobInfo } from '../../../../core/api/types.js';
import type { AppState } from '../index.js';
import { applyProgress, baseChoices, defaultForm, emptyForm, emptyRun, requestFromForm, type AdaptForm, type AdaptRun } from './adaptation-model.js';
import { upsertJob } from './training.js';
import { sharedWatch } from '../shared-watch.js';

/**
 * The Adaptation view's state: the description (apps, defaults, config fields), the form, each
 * adaptation's progress (folded from onAdaptation) and report, the stored adapters, and the recorded
 * successful episodes of the chosen app (demonstration candidates, from the trajectories API).
 * Adaptation jobs live in the training slice's job list (`trainingJobs`), which both views keep
 * current, because one background job of any kind runs at a time; the base choices are the shared
 * policy list's trainable ones (`agentPolicies`, as GRPO init and Agent list them).
 */
export interface AdaptationSlice {
  adaptDescription: AdaptationDescription | null;
  adaptForm: AdaptForm;
  /** The server's problems with the last request, by field path ('' = the whole request). */
  adaptErrors: Record<string, string>;
  adaptBusy: boolean;
  /** Progress per job id. */
  adaptRuns: Record<string, AdaptRun>;
  adaptReports: Record<string, AdaptationReport>;
  /** The job whose progress and result are shown (the latest one by default). */
  adaptJobId: string | null;
  adapters: AdapterInfo[];
  /** Successful recorded episodes of the form's app. */
  demoEpisodes: EpisodeSummary[];
  loadAdaptation(): Promise<void>;
  /** onAdaptation updates (ref-counted); returns the stop function. */
  watchAdaptation(): () => void;
  setAdaptApp(app: string): Promise<void>;
  setAdaptPolicy(policy: string): void;
  /** What the chosen base was trained on (through its inits): whether the chosen app is really held out from it. */
  adaptBase: BaseTraining | null;
  /** Why the base's training could not be read, or null. */
  adaptBaseProblem: string | null;
  loadAdaptBase(policy: string): Promise<void>;
  setAdaptValue(path: string, value: string): void;
  setAdaptEvalSeeds(text: string): void;
  toggleDemoEpisode(episodeId: number): void;
  resetAdaptForm(): void;
  startAdaptation(): Promise<JobInfo | undefined>;
  stopAdaptation(jobId: string): Promise<void>;
  /** Shows a job's progress and report (fetching the report when it ended before this page heard it). */
  showAdaptation(jobId: string): Promise<void>;
  refreshAdapters(): Promise<void>;
}

const ENDED = new Set<JobInfo['state']>(['stopped', 'finished', 'failed']);

/** Adaptation jobs, oldest first. */
export function adaptJobs(s: Pick<AppState, 'trainingJobs'>): JobInfo[] {
  return s.trainingJobs.filter((j) => j.kind === 'adapt');
}

export function shownAdaptJob(s: Pick<AppState, 'trainingJobs' | 'adaptJobId'>): JobInfo | null {
  const jobs = adaptJobs(s);
  return jobs.find((j) => j.id === s.adaptJobId) ?? jobs.at(-1) ?? null;
}

export const createAdaptationSlice = (api: WorkbenchApi): StateCreator<AppState, [], [], AdaptationSlice> => (set, get) => {

  /** An ended job's report, when this page has not heard it (opened after it ended). */
  const fetchReport = async (jobId: string) => {
    const job = get().trainingJobs.find((j) => j.id === jobId);
    if (!job || !ENDED.has(job.state) || get().adaptReports[jobId]) return;
    const report = await get().attempt(`Load the report of ${jobId}`, () => api.getAdaptationReport({ jobId }));
    if (report) set((s) => ({ adaptReports: { ...s.adaptReports, [jobId]: report } }));
  };

  // Jobs whose end this slice has handled (the training slice may have stored the ended state first: both hear it).
  const endings = new Set<string>();

  const onEvent = (e: AdaptationEvent) => {
    set((s) => ({ trainingJobs: upsertJob(s.trainingJobs, e.job) }));
    switch (e.kind) {
      case 'state':
        if (ENDED.has(e.job.state) && !endings.has(e.job.id)) {
          endings.add(e.job.id);
          void get().refreshAdapters(); // it saved (or overwrote) an adapter
          void fetchReport(e.job.id); // normally heard already: the report comes before the state
        }
        return;
      case 'progress':
        set((s) => ({ adaptRuns: { ...s.adaptRuns, [e.job.id]: applyProgress(s.adaptRuns[e.job.id] ?? emptyRun(), e.progress) } }));
        return;
      case 'report':
        set((s) => ({ adaptReports: { ...s.adaptReports, [e.job.id]: e.report } }));
        return;
    }
  };

  return {
    adaptDescription: null,
    adaptForm: emptyForm(),
    adaptErrors: {},
    adaptBusy: false,
    adaptRuns: {},
    adaptReports: {},
    adaptJobId: null,
    adapters: [],
    demoEpisodes: [],

    loadAdaptation: async () => {
      const { attempt, adaptDescription: known } = get();
      // The description does not change while the app runs: fetched once, so a typed form survives a view switch.
      const [description, jobs, policies] = await Promise.all([
        known ?? attempt('Describe adaptation', () => api.describeAdaptation({})),
        attempt('List jobs', () => api.listTrainingJobs({})),
        attempt('List policies', () => api.listPolicies({})),
        get().refreshAdapters(),
      ]);
      set((s) => ({
        adaptDescription: description ?? s.adaptDescription,
        agentPolicies: policies ?? s.agentPolicies,
        // Events may have arrived meanwhile: they are newer than the listing.
        trainingJobs: (jobs ?? []).reduce((acc, j) => (acc.some((x) => x.id === j.id) ? acc : [...acc, j]), s.trainingJobs)
          .sort((a, b) => a.startedAt - b.startedAt),
      }));
      const s = get();
      const base = baseChoices(s.agentPolicies)[0];
      if (s.adaptDescription && s.adaptForm.app === '') set({ adaptForm: defaultForm(s.adaptDescription, s.agentPolicies) });
      else if (s.adaptForm.policy === '' && base) set({ adaptForm: { ...s.adaptForm, policy: base.name } });
      const app = get().adaptForm.app;
      const shown = shownAdaptJob(get());
      await Promise.all([app ? get().setAdaptApp(app) : undefined, shown ? get().showAdaptation(shown.id) : undefined]);
    },

    watchAdaptation: sharedWatch(() => api.onAdaptation({}, onEvent)),

    setAdaptApp: async (app) => {
      const changed = app !== get().adaptForm.app;
      set((s) => ({ adaptForm: { ...s.adaptForm, app, episodes: changed ? [] : s.adaptForm.episodes }, ...(changed ? { demoEpisodes: [] } : {}) }));
      const page = await get().attempt(`List recorded episodes of ${app}`, () => api.listEpisodes({ app, status: 'success', limit: 200 }));
      if (page && get().adaptForm.app === app) set({ demoEpisodes: page.rows });
    },

    setAdaptPolicy: (policy) => set((s) => ({ adaptForm: { ...s.adaptForm, policy } })),
    adaptBase: null,
    adaptBaseProblem: null,
    loadAdaptBase: async (policy) => {
      if (get().adaptBase?.policy === policy) return;
      set({ adaptBase: null, adaptBaseProblem: null });
      try {
        const base = await api.describeAdaptationBase({ policy });
        if (get().adaptForm.policy === policy) set({ adaptBase: base });
      } catch (e) {
        // Shown beside the base, not as a banner: the start request names a base that cannot be loaded anyway.
        if (get().adaptForm.policy === policy) set({ adaptBaseProblem: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
      }
    },

    setAdaptValue: (path, value) => set((s) => {
      const errors = { ...s.adaptErrors };
      delete errors[path];
      return { adaptForm: { ...s.adaptForm, values: { ...s.adaptForm.values, [path]: value } }, adaptErrors: errors };
    }),

    setAdaptEvalSeeds: (text) => set((s) => {
      const errors = { ...s.adaptErrors };
      delete errors.evalSeeds;
      return { adaptForm: { ...s.adaptForm, evalSeeds: text }, adaptErrors: errors };
    }),

    toggleDemoEpisode: (episodeId) => set((s) => {
      const on = s.adaptForm.episodes.includes(episodeId);
      return { adaptForm: { ...s.adaptForm, episodes: on ? s.adaptForm.episodes.filter((x) => x !== episodeId) : [...s.adaptForm.episodes, episodeId] } };
    }),

    resetAdaptForm: () => {
      const s = get();
      if (s.adaptDescription) set({ adaptForm: { ...defaultForm(s.adaptDescription, s.agentPolicies), app: s.adaptForm.app, policy: s.adaptForm.policy }, adaptErrors: {} });
    },

    startAdaptation: async () => {
      const d = get().adaptDescription;
      if (!d) return undefined;
      const built = requestFromForm(get().adaptForm, d);
      if ('errors' in built) {
        set({ adaptErrors: built.errors });
        return undefined;
      }
      set({ adaptBusy: true, adaptErrors: {} });
      const job = await get().attemptForm(`Adapt to ${built.request.app}`, () => api.startAdaptation(built.request), (adaptErrors) => set({ adaptErrors }));
      set((s) => ({
        adaptBusy: false,
        ...(job ? {
          trainingJobs: s.trainingJobs.some((j) => j.id === job.id) ? s.trainingJobs : [...s.trainingJobs, job],
          adaptJobId: job.id, adaptRuns: { ...s.adaptRuns, [job.id]: s.adaptRuns[job.id] ?? emptyRun() },
        } : {}),
      }));
      return job;
    },

    stopAdaptation: async (jobId) => {
      const job = await get().attempt('Stop adaptation', () => api.stopAdaptation({ jobId }));
      if (job) set((s) => ({ trainingJobs: s.trainingJobs.some((j) => j.id === job.id) ? s.trainingJobs : [...s.trainingJobs, job] }));
    },

    showAdaptation: async (jobId) => {
      set({ adaptJobId: jobId });
      await fetchReport(jobId);
    },

    refreshAdapters: async () => {
      const adapters = await get().attempt('List adapters', () => api.listAdapters({}));
      if (adapters) set({ adapters });
    },
  };
};
