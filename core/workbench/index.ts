import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseUiTree, serializeUiTree } from '../a11y/ui-tree.js';
import { TASKS, getTemplate } from '../tasks/registry.js';
import { instantiate } from '../tasks/instance.js';
import {
  episodeFilterValues, exportEpisodes, getScreenshot, getTree, listEpisodes, listRuns, loadTrajectory, successfulEpisodes, openStore, rolloutIterations,
  type EpisodeId, type WritableDB,
} from '../store/index.js';
import { pngSize } from '../store/content.js';
import { DEFAULT_FAILURES_LIMIT, type SessionStart, type WorkbenchApi } from '../api/api.js';
import { type Settings, SettingsSchema, settingsFields } from '../api/settings.js';
import type { Activity } from '../api/types.js';
import { DeviceRegistry } from './devices.js';
import { SessionManager } from './sessions.js';
import { showOutsideSessions } from './outside-sessions.js';
import { EnvService, SimDroidPool } from '../env/service.js';
import { SettingsFile } from './settings-file.js';
import { describeTrainConfig } from './training/describe.js';
import { listCheckpoints } from './checkpoints.js';
import { TrainingManager } from './training/jobs.js';
import { EvaluationManager } from './evaluation/jobs.js';
import { describeAdaptation } from './adaptation/describe.js';
import { baseTraining } from './adaptation/base-training.js';
import { listAdapters } from './adaptation/adapters.js';
import { EpisodeRewards } from './rewards.js';
import { explainEpisode } from '../analysis/index.js';
import { RunFailureAnalyses } from './failures/analyses.js';
import { RemoteJobsHost, type RemoteJobsHostDeps } from './remote-jobs.js';
import type { SecretStore } from '../util/secret-store.js';
import { EndpointsHost, vlmPresetInfos } from './endpoints.js';
import { listPolicyChoices, resolvePolicyChoice, type PolicyChoiceContext } from './policy-choices.js';
import { OnlineGrpoHost, type OnlineGrpoHostDeps } from './online-grpo.js';
import { withPromptTemplate } from './prompt-templates.js';

/** SimDroids outside agents' sessions may run at once unless told (`awb env serve --devices N`). */
export const DEFAULT_ENV_DEVICES = 8;

export interface WorkbenchOptions {
  /** The workbench's home: settings.json, and the default data folder. */
  dataDir: string;
  /** A fixed trajectory store path (--db, $AWB_DB); default <settings' data folder>/trajectories.db. */
  dbPath?: string;
  /** false: no adb (embedded SimDroids only); a number: the adb server's port; default from settings. */
  adb?: number | false;
  /** Start one embedded SimDroid at once (the default device). Default true. */
  embeddedDevice?: boolean;
  /** How many SimDroids outside agents' sessions may run at once (`awb env serve --devices N`). Default 8. */
  envDevices?: number;
  log?: (message: string) => void;
  /** The job client per trainer profile (tests: short timeouts); default TrainerClient with its defaults. */
  trainerClient?: RemoteJobsHostDeps['clientFor'];
  /** Tests: online GRPO's endpoint calls and waits (a fake vLLM server on loopback is reached with the real fetch). */
  onlineGrpo?: Pick<OnlineGrpoHostDeps, 'fetch' | 'sleep'>;
  /**
   * Where endpoint profiles' API keys and trainer profiles' tokens are kept. The app gives one backed
   * by Electron's safeStorage (electron/secret-store.ts, through its main process); default (the
   * CLI, `awb serve`): `<data folder>/secrets.json`, mode 0600.
   */
  secrets?: SecretStore;
}

export interface Workbench extends WorkbenchApi {
  close(): Promise<void>;
  readonly db: WritableDB;
  /** The environment server's sessions (docs/env-protocol.md), served at /env by `awb serve` and `awb env serve`. */
  readonly env: EnvService;
}

/** What `hello` names as the server. */
const SERVER_NAME = 'awb 0.1.0';

export class DataDirBusyError extends Error {
  override name = 'DataDirBusyError';
  /** `holder`: what writes to the store there, e.g. "session s1 is recording". */
  constructor(readonly dataDir: string, readonly holder: string) {
    super(`Cannot move the data folder to ${dataDir} while ${holder}: stop it first`);
  }
}

const storePath = (dataDir: string) => join(dataDir, 'trajectories.db');

/** The one implementation of WorkbenchApi; both transports and the tests talk to this object. */
export async function createWorkbench(opts: WorkbenchOptions): Promise<Workbench> {
  const log = opts.log ?? (() => {});
  mkdirSync(opts.dataDir, { recursive: true });
  const settingsFile = new SettingsFile(opts.dataDir);
  let settings: Settings = settingsFile.read(opts.dataDir);
  let db = openStore(opts.dbPath ?? storePath(settings.dataDir));
  const activityListeners = new Set<(a: Activity) => void>();
  let activitySeq = 0;
  /** Runs long work with progress events (start, then done or failed). */
  async function activity<T>(label: string, work: (progress: (done: number, total: number) => void) => Promise<T>): Promise<T> {
    const a: Activity = { id: `a${++activitySeq}`, label, state: 'running', done: 0, total: null, error: null };
    const emit = () => activityListeners.forEach((l) => l({ ...a }));
    emit();
    try {
      const r = await work((done, total) => {
        Object.assign(a, { done, total });
        emit();
      });
      Object.assign(a, { state: 'done', done: 1, total: 1 });
      emit();
      return r;
    } catch (e) {
      Object.assign(a, { state: 'failed', error: `${(e as Error).name}: ${(e as Error).message}` });
      emit();
      throw e;
    }
  }

  // The registry asks the session manager which session holds a device; the manager drives devices.
  const holder: { sessions?: SessionManager } = {};
  const devices = new DeviceRegistry({
    adbPort: opts.adb === false ? false : opts.adb ?? settings.adbPort,
    sessionOf: (serial) => holder.sessions?.sessionOf(serial) ?? null,
  });
  const endpoints = new EndpointsHost({ dataDir: () => settings.dataDir, ...(opts.secrets ? { secrets: opts.secrets } : {}) });
  /** What the one policy resolver reads: the current data folder and endpoint profiles. */
  const choices = (): PolicyChoiceContext => ({
    dataDir: settings.dataDir,
    vlmProfiles: () => endpoints.list().map((p) => ({ name: p.name, description: `VLM endpoint ${p.name}: ${p.model} at ${p.baseUrl}, ${p.format} format` })),
    vlmSpec: (profile) => ({ name: 'vlm', settings: { ...withPromptTemplate(endpoints.profiles().resolve(profile)), name: `vlm:${profile}` } }),
  });
  const sessions = holder.sessions = new SessionManager({
    db: () => db, devices, onDeviceUse: () => void devices.changed(), log,
    storedPolicy: (name) => resolvePolicyChoice(choices(), name),
  });
  if (opts.embeddedDevice ?? true) await devices.startSimDroid();
  const env = new EnvService({
    db: () => db, dataDir: () => settings.dataDir, server: SERVER_NAME, log,
    devices: new SimDroidPool({
      limit: opts.envDevices ?? DEFAULT_ENV_DEVICES,
      start: async () => devices.get((await devices.startSimDroid()).serial),
      ...(opts.adb === false ? {} : {
        open: (serial: string) => devices.require(serial),
        adbSerials: async () => (await devices.list()).devices.filter((d) => d.transport === 'adb' && d.online).map((d) => d.serial),
      }),
      holder: (serial) => {
        const id = sessions.sessionOf(serial);
        return id ? `step-through session ${id}` : null;
      },
    }),
  });
  showOutsideSessions(env, sessions, () => db);
  const training = new TrainingManager({ dataDir: () => settings.dataDir, db: () => db, log });
  const failureAnalyses = new RunFailureAnalyses(() => db);
  const evaluations = new EvaluationManager({ db: () => db, resolve: (name) => resolvePolicyChoice(choices(), name), log });
  const rewards = new EpisodeRewards({ db: () => db, dataDir: () => settings.dataDir });
  const trainerSecrets = opts.secrets ? { secrets: opts.secrets } : {};
  const remoteJobs = new RemoteJobsHost({ db: () => db, dataDir: () => settings.dataDir, log, ...(opts.trainerClient ? { clientFor: opts.trainerClient } : {}), ...trainerSecrets });
  const onlineGrpo = new OnlineGrpoHost({
    db: () => db, dataDir: () => settings.dataDir, log, ...(opts.trainerClient ? { clientFor: opts.trainerClient } : {}), ...trainerSecrets, ...opts.onlineGrpo,
    endpoints: () => endpoints.profiles(),
    activity: { id: () => `a${++activitySeq}`, emit: (a) => activityListeners.forEach((l) => l({ ...a })) },
  });

  /**
   * A new data folder: the store there is opened (created and migrated if new) before the old one
   * is closed, so a folder that cannot hold a store leaves everything as it was.
   */
  function moveDataDir(next: string): void {
    if (opts.dbPath) return; // a fixed --db / $AWB_DB store stays; exports follow the folder
    const running = sessions.list().filter((s) => s.state !== 'finished' || s.agent?.connected);
    if (running.length) throw new DataDirBusyError(next, `session ${running[0]!.id} is recording`);
    const job = training.active();
    if (job) throw new DataDirBusyError(next, `${job.kind === 'adapt' ? 'adaptation' : 'training'} job ${job.id} is ${job.state}`);
    const evaluation = evaluations.active();
    if (evaluation) throw new DataDirBusyError(next, `evaluation ${evaluation.id} is ${evaluation.state}`);
    const online = onlineGrpo.active();
    if (online) throw new DataDirBusyError(next, `online GRPO run ${online.runId} is ${online.state}`);
    mkdirSync(next, { recursive: true });
    const opened = openStore(storePath(next));
    db.close();
    db = opened;
  }

  const api: Workbench = {
    get db() {
      return db;
    },
    env,
    listDevices: () => devices.list(),
    startSimDroid: async (input) => devices.startSimDroid(input?.adbPort),
    stopSimDroid: async ({ serial }) => {
      await sessions.stopOn(serial);
      await devices.stopSimDroid(serial);
    },
    connectDevice: ({ address }) => activity(`Connecting ${address}`, () => devices.connect(address)),
    disconnectDevice: ({ address }) => devices.disconnect(address),
    listAvds: () => devices.avds(),
    launchAvd: ({ name, port }) => activity(`Launching AVD ${name}`, () => devices.launchAvd(name, port)),
    onDevices: (_input, listener) => devices.onChange(listener),

    screenshot: async ({ serial, scale }) => {
      const png = await devices.get(serial).screenshot({ scale: scale ?? 1 });
      return { png, ...pngSize(png) };
    },
    screenState: async ({ serial }) => {
      const d = devices.get(serial);
      const [screen, tree, foreground] = await Promise.all([d.screenInfo(), d.uiTree(), d.foreground()]);
      return { serial, screen, tree, xml: serializeUiTree(tree), foreground };
    },
    sendInput: async ({ serial, event }) => {
      sessions.refuseOutsideInput(serial);
      await devices.get(serial).input(event);
    },
    sendTouch: async ({ serial, action, x, y }) => {
      sessions.refuseOutsideInput(serial);
      await devices.touch(serial, action, x, y);
    },
    rotateDevice: async ({ serial, rotation }) => {
      sessions.refuseOutsideInput(serial);
      await devices.rotate(serial, rotation);
    },
    onFrame: ({ serial, scale, maxFps }, listener) =>
      devices.watchFrames(serial, { scale: scale ?? settings.mirrorScale, maxFps: maxFps ?? settings.mirrorFps, emulator: settings.emulatorMirror }, listener),

    listTasks: async () => TASKS.map((t) => ({
      id: t.id, app: t.apps[0], apps: [...t.apps], difficulty: t.difficulty, template: t.template,
      informationRetrieval: t.kind === 'information_retrieval',
    })),
    describeTask: async ({ templateId, seed }) => {
      const t = getTemplate(templateId);
      const inst = instantiate(t, seed);
      return { templateId, seed, instruction: inst.instruction, params: inst.params, subgoals: t.subgoals(inst.params).map((s) => s.name) };
    },
    listPolicies: async () => listPolicyChoices(choices()),

    listEndpoints: async () => endpoints.list(),
    saveEndpoint: (input) => endpoints.save(input),
    listVlmPresets: async () => vlmPresetInfos(),
    removeEndpoint: ({ name }) => endpoints.remove(name),
    testEndpoint: ({ name, templateId, seed }) => activity(`Testing endpoint ${name}`, () => endpoints.test(name, templateId, seed)),

    startSession: (input: SessionStart) => sessions.start(input, { screenshots: settings.screenshots, maxSteps: settings.maxSteps }),
    getSession: async ({ sessionId }) => sessions.get(sessionId),
    listSessions: async () => sessions.list(),
    controlSession: async ({ sessionId, command }) => sessions.control(sessionId, command),
    overrideAction: async ({ sessionId, action }) => sessions.override(sessionId, action),
    setBreakpoints: async ({ sessionId, breakpoints }) => sessions.setBreakpoints(sessionId, breakpoints),
    onSession: ({ sessionId }, listener) => sessions.subscribe(sessionId, listener),
    onSessions: (_input, listener) => sessions.watchList(listener),

    listEpisodes: async (filter) => listEpisodes(db, filter),
    listRuns: async () => listRuns(db),
    episodeFacets: async () => ({
      ...episodeFilterValues(db),
      runs: listRuns(db).map((r) => ({ id: r.id, name: r.name, kind: r.kind, iterations: r.kind === 'training' ? rolloutIterations(db, r.id).map((x) => x.iteration) : [] })),
    }),
    getTrajectory: async ({ episodeId }) => loadTrajectory(db, episodeId as EpisodeId),
    getScreenshot: async ({ hash }) => getScreenshot(db, hash),
    getTree: async ({ hash }) => {
      const xml = getTree(db, hash);
      return { xml, tree: parseUiTree(xml) };
    },
    successfulEpisodes: async ({ templateId, excludeEpisode }) =>
      successfulEpisodes(db, templateId, excludeEpisode !== undefined ? { excludeEpisode: excludeEpisode as EpisodeId } : {}),
    exportEpisodes: (input) => activity('Exporting episodes', async () => {
      const dir = join(settings.dataDir, 'exports', new Date().toISOString().replace(/[:.]/g, '-'));
      const selection = input.episodeIds ? (input.episodeIds as EpisodeId[]) : input.filter ?? {};
      const { manifest } = exportEpisodes(db, selection, dir);
      return { path: dir, episodes: manifest.counts.episodes, steps: manifest.counts.steps };
    }),
    getEpisodeRewards: (input) => (input.config === undefined
      ? rewards.get(input)
      : activity(`Computing rewards for episode ${input.episodeId}`, () => rewards.get(input))),
    explainEpisode: ({ episodeId, oracle }) =>
      activity(`Explaining episode ${episodeId}`, () => explainEpisode(db, episodeId as EpisodeId, { ...(oracle ? { oracle } : {}), rewards: { dataDir: settings.dataDir } })),
    runFailures: ({ runId, vsRunId, oracle, limit }) => activity(`Failure analysis of run ${runId}${vsRunId === undefined ? '' : ` vs run ${vsRunId}`}`, (progress) =>
      failureAnalyses.get({ runId, vsRunId: vsRunId ?? null, oracle: oracle ?? 'never', limit: limit ?? DEFAULT_FAILURES_LIMIT }, progress)),

    getSettings: async () => settings,
    updateSettings: async (patch) => {
      const next = SettingsSchema.parse({ ...settings, ...patch, ...(patch.dataDir ? { dataDir: resolve(patch.dataDir) } : {}) });
      if (next.dataDir !== settings.dataDir) moveDataDir(next.dataDir);
      settingsFile.write(next);
      settings = next;
      return settings;
    },
    describeSettings: async () => settingsFields(),
    onActivity: (_input, listener) => {
      activityListeners.add(listener);
      return () => activityListeners.delete(listener);
    },

    describeTrainConfig: async ({ kind }) => describeTrainConfig(kind),
    startTraining: async (input) => training.start(input),
    pauseTraining: async ({ jobId }) => training.pause(jobId),
    resumeTraining: async (input) => training.resume(input),
    stopTraining: async ({ jobId }) => training.stop(jobId),
    listTrainingJobs: async () => training.list(),
    listTrainingRuns: async () => training.runs(),
    getTrainingMetrics: async ({ runId }) => training.metrics(runId),
    listCheckpoints: async () => listCheckpoints(settings.dataDir),
    onTraining: (_input, listener) => training.subscribe(listener),

    describeAdaptation: async () => describeAdaptation(),
    describeAdaptationBase: async ({ policy }) => baseTraining(settings.dataDir, policy),
    startAdaptation: async (input) => training.startAdaptation(input),
    stopAdaptation: async ({ jobId }) => training.stop(jobId, 'adapt'),
    getAdaptationReport: async ({ jobId }) => training.report(jobId),
    listAdapters: async () => listAdapters(settings.dataDir),
    onAdaptation: (_input, listener) => training.subscribeAdaptation(listener),

    startEvaluation: async (input) => evaluations.start(input),
    stopEvaluation: async ({ id }) => evaluations.stop(id),
    listEvaluations: async () => evaluations.list(),
    onEvaluation: (_input, listener) => evaluations.subscribe(listener),

    listTrainers: async () => remoteJobs.trainers(),
    saveTrainer: async (p) => remoteJobs.saveTrainer(p),
    removeTrainer: async ({ name }) => remoteJobs.removeTrainer(name),
    listRemoteJobs: async () => remoteJobs.list(),
    submitRemoteJob: (input) => activity(`Submitting a ${input.kind} job to ${input.trainer}`, () => remoteJobs.submit(input)),
    cancelRemoteJob: ({ id }) => remoteJobs.cancel(id),
    followRemoteJob: async ({ id }) => remoteJobs.follow(id),
    downloadArtifacts: ({ id, names }) => activity(`Downloading the artifacts of remote job ${id}`, () => remoteJobs.download(id, names)),
    registerPolicy: async ({ id }) => remoteJobs.registerPolicy(id),
    startOnlineGrpo: (input) => onlineGrpo.start(input),
    stopOnlineGrpo: async ({ runId }) => onlineGrpo.stop(runId),
    listOnlineGrpo: async () => onlineGrpo.list(),
    onRemoteJob: (_input, listener) => {
      const offJobs = remoteJobs.subscribe(listener);
      const offOnline = onlineGrpo.subscribe(listener);
      return () => {
        offJobs();
        offOnline();
      };
    },

    close: async () => {
      await onlineGrpo.close();
      remoteJobs.close();
      await training.close();
      await evaluations.close();
      await failureAnalyses.close();
      await env.close();
      await sessions.close();
      await devices.close();
      db.close();
    },
  };
  return api;
}
