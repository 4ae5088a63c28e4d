import type { EpisodeFilter, EpisodePage, EpisodeSummary, RunSummary, Trajectory } from '../store/index.js';
import type {
  Activity, AvdList, Breakpoint, DeviceList, DeviceSummary, EpisodeFacets, ExportResult, FrameView, InputEvent, PolicyInfo, Rotation,
  ScreenImage, ScreenState, StoredTree, SessionEvent, SessionInfo, SessionPolicy, TaskInstanceView, TaskSummary, TouchAction,
} from './types.js';
import type { SettingField, Settings } from './settings.js';
import type {
  CheckpointInfo, IterationMetricsRow, JobInfo, TrainConfigDescription, TrainerKind, TrainingEvent, TrainingResume, TrainingRunInfo, TrainingStart,
} from './training-types.js';
import type { EvaluationEvent, EvaluationInfo, EvaluationStart } from './evaluation-types.js';
import type { AdapterInfo, AdaptationDescription, AdaptationEvent, AdaptationReport, AdaptationStart, BaseTraining } from './adaptation-types.js';
import type { RewardBreakdown } from '../rewards/compose.js';
import type { EpisodeExplanation, RunComparison, RunFailures } from '../analysis/index.js';
import type { OnlineGrpoRunInfo, OnlineGrpoStart, PublicTrainerProfile, RemoteJobEvent, RemoteJobInfo, RemoteJobSubmit, TrainerSave } from './job-types.js';
import type { CoordinateSpace, EndpointInfo, EndpointSave, EndpointTestResult, VlmFormatId, VlmPresetInfo } from './endpoint-types.js';

/**
 * The workbench's one API: declared here, implemented once (core/workbench), served by two
 * transports (Electron IPC and `awb serve`'s WebSocket) through one generic bridge
 * (core/api/bridge.ts). Every method takes one input object, validated at the boundary by its zod
 * schema in API_INPUTS, and returns a promise. Members named `onX` are events: they take an input
 * (what to watch) and a listener, and return an unsubscribe function.
 */
export type Listener<T> = (event: T) => void;

/** Whether failure analysis runs the oracle on the episode's instance (core/analysis/references.ts). */
export type OracleReference = 'when-needed' | 'always' | 'never';

/** A run's failures, and with a second run, both runs' and the flips between them. */
/** Failed episodes runFailures classifies per run when the caller names no bound (the newest ones): minutes at most on 2 cores. */
export const DEFAULT_FAILURES_LIMIT = 500;

export interface RunFailuresView {
  runs: RunFailures[];
  comparison: Omit<RunComparison, 'runs'> | null;
}
export type Unsubscribe = () => void;
export type NoInput = Record<string, never>;

export interface SessionStart {
  serial: string;
  /** A task template and seed, or a free-form `instruction` (no checker: success is the agent's `status: complete`). */
  templateId?: string;
  seed?: number;
  instruction?: string;
  policy: SessionPolicy;
  maxSteps?: number;
  breakpoints?: Breakpoint[];
  /** Start running instead of holding at the first proposal. */
  run?: boolean;
  /** Replay on device from a step: re-execute a recorded episode's first `steps` steps, then hand over to `policy`. */
  from?: { episodeId: number; steps: number };
  screenshots?: 'none' | 'half' | 'full';
  /** With policy `vlm-replay`: the replies (a file's text: one per line, or a JSON array of strings), reply k answering step k. */
  replies?: SessionReplies;
}

/** A VLM's recorded replies for a `vlm-replay` session, and how to read them (core/policy/vlm/replay.ts). */
export interface SessionReplies {
  format: VlmFormatId;
  /** Default: the format's own. */
  coordinates?: CoordinateSpace;
  text: string;
}

/** `takeover` and `handback` are for an outside agent's session: a person acts in the agent's place, then returns it. */
export type SessionCommand = 'step' | 'run' | 'pause' | 'stop' | 'takeover' | 'handback';

export interface EpisodeRewardsQuery {
  episodeId: number;
  /**
   * Components to recompute, a reward config (`{ components: [{ kind, weight, options? }] }`,
   * docs/rewards.md), validated by the rewards: RewardConfigError lists every problem. A checkpoint
   * named in the options is a path under the data folder.
   */
  config?: unknown;
  /** Store the recomputed values under their kinds, as `awb rewards compute --write` does (needs `config`). */
  write?: boolean;
}

/** One stored reward: a value, or null with the reason it is unscored (never a 0). */
export interface StoredRewardValue {
  value: number | null;
  explanation: string;
}

export interface EpisodeRewardsView {
  episodeId: number;
  /** The kinds stored for the episode, sorted. */
  storedKinds: string[];
  /** Per step, the stored kinds by name; a kind absent from a step has nothing stored there (outcome is on the last step). */
  stored: Array<Record<string, StoredRewardValue>>;
  /** With `config`: every component's values and the weighted total per step, and each component's detail. */
  computed: RewardBreakdown | null;
  /** The episodes scored as this one's group (same run and task instance, as GRPO's group): shortest-path compares within it. */
  group: number[];
  /** Whether the computed values were stored. */
  written: boolean;
}

export interface WorkbenchApi {
  // Devices
  listDevices(input?: NoInput): Promise<DeviceList>;
  /** A new SimDroid in the workbench's process; `adbPort` (odd) also serves ADB and the console on it and the port below. */
  startSimDroid(input?: { adbPort?: number }): Promise<DeviceSummary>;
  stopSimDroid(input: { serial: string }): Promise<void>;
  /** `adb connect HOST:PORT` (remote emulators are common in RL labs). */
  connectDevice(input: { address: string }): Promise<DeviceSummary>;
  disconnectDevice(input: { address: string }): Promise<void>;
  listAvds(input?: NoInput): Promise<AvdList>;
  launchAvd(input: { name: string; port?: number }): Promise<DeviceSummary>;
  onDevices(input: NoInput, listener: Listener<DeviceList>): Unsubscribe;

  // The live screen
  screenshot(input: { serial: string; scale?: 1 | 0.5 }): Promise<ScreenImage>;
  screenState(input: { serial: string }): Promise<ScreenState>;
  sendInput(input: { serial: string; event: InputEvent }): Promise<void>;
  /**
   * One event of a finger streamed as it moves (down, moves, up; the Live view's drag): the screen follows the finger.
   * TouchUnsupportedError for a device without it (DeviceSummary.touch), DeviceInSessionError as sendInput.
   */
  sendTouch(input: { serial: string; action: TouchAction; x: number; y: number }): Promise<void>;
  /** Turns the display to a quarter-turn rotation (DeviceSummary.rotate); RotationUnsupportedError for SimDroid, which draws portrait only. */
  rotateDevice(input: { serial: string; rotation: Rotation }): Promise<void>;
  /** Mirrored frames: pushed on change by SimDroid, polled from adb devices. */
  onFrame(input: { serial: string; scale?: 1 | 0.5; maxFps?: number }, listener: Listener<FrameView>): Unsubscribe;

  // Tasks and policies
  listTasks(input?: NoInput): Promise<TaskSummary[]>;
  describeTask(input: { templateId: string; seed: number }): Promise<TaskInstanceView>;
  /**
   * Every policy the workbench can run, one list for every place that chooses one (Agent, Evaluate, GRPO init,
   * Adaptation base, online GRPO): the built-in policies, VLM endpoint profiles (`vlm:<name>`), checkpoints under
   * <data folder>/checkpoints (`checkpoint:<name>`), files registered in <data folder>/policies (`checkpoint:<file>`,
   * .json or an ONNX export) and adapters (`adapter:<checkpoint>/<app>`); each says whether it can be trained from or evaluated.
   */
  listPolicies(input?: NoInput): Promise<PolicyInfo[]>;

  // VLM endpoint profiles (docs/policy-vlm.md "Endpoint profiles"): a key goes in, never out
  /** The profiles in <data folder>/endpoints.json, by name, with whether a key is stored (`hasKey`), never the key. */
  listEndpoints(input?: NoInput): Promise<EndpointInfo[]>;
  /** Adds or replaces a profile (settings validated: EndpointSettingsError lists each field); `apiKey` omitted keeps the stored key, null forgets it. */
  saveEndpoint(input: EndpointSave): Promise<EndpointInfo[]>;
  /** Removes a profile and its stored key. */
  removeEndpoint(input: { name: string }): Promise<EndpointInfo[]>;
  /**
   * The model presets a profile can name (docs/policy-vlm.md "Presets"): each public checkpoint or official agent asked
   * as its authors ask it, with the model it defaults to, whose code it follows, the file it reads its prompt from
   * (when no installed package ships it) and the settings it fills.
   */
  listVlmPresets(input?: NoInput): Promise<VlmPresetInfo[]>;
  /** One real request (as `awb endpoints test`) on a task's first screen: latency and the model's answer, or the error with any key redacted. */
  testEndpoint(input: { name: string; templateId?: string; seed?: number }): Promise<EndpointTestResult>;

  // Step-through sessions
  startSession(input: SessionStart): Promise<SessionInfo>;
  getSession(input: { sessionId: string }): Promise<SessionInfo>;
  listSessions(input?: NoInput): Promise<SessionInfo[]>;
  controlSession(input: { sessionId: string; command: SessionCommand }): Promise<SessionInfo>;
  /** Replaces the held proposal (or the next one) with this action; a malformed one is refused. */
  overrideAction(input: { sessionId: string; action: unknown }): Promise<SessionInfo>;
  setBreakpoints(input: { sessionId: string; breakpoints: Breakpoint[] }): Promise<SessionInfo>;
  onSession(input: { sessionId: string }, listener: Listener<SessionEvent>): Unsubscribe;
  /**
   * The session list whenever a session starts or ends (outside agents' sessions come and go on their own), and within
   * 100 ms of a change of one's state (running, paused, finished; an agent's next episode, a takeover): not per step.
   */
  onSessions(input: NoInput, listener: Listener<SessionInfo[]>): Unsubscribe;

  // Trajectories
  listEpisodes(input: EpisodeFilter): Promise<EpisodePage>;
  listRuns(input?: NoInput): Promise<RunSummary[]>;
  episodeFacets(input?: NoInput): Promise<EpisodeFacets>;
  getTrajectory(input: { episodeId: number }): Promise<Trajectory>;
  /** A stored screenshot by its SHA-256. */
  getScreenshot(input: { hash: string }): Promise<Uint8Array>;
  /** A stored accessibility tree by its SHA-256: its uiautomator XML and the tree core parsed from it. */
  getTree(input: { hash: string }): Promise<StoredTree>;
  successfulEpisodes(input: { templateId: string; excludeEpisode?: number }): Promise<EpisodeSummary[]>;
  /** Writes the episodes (AWB's JSONL export format) under the data folder's exports/. */
  exportEpisodes(input: { filter?: EpisodeFilter; episodeIds?: number[] }): Promise<ExportResult>;
  /**
   * An episode's stored rewards by kind, unscored steps with their reason; with `config`, the
   * components recomputed with their details (ADMIRE's milestones, ProgRM's alignment and curve,
   * the judge's verdicts), stored when `write` (docs/ui.md "Rewards").
   */
  getEpisodeRewards(input: EpisodeRewardsQuery): Promise<EpisodeRewardsView>;
  /**
   * Why an episode failed: the checker's reasons, the failure class and the first divergence from the
   * successful paths (stored, or the oracle's run on SimDroid; docs/failure-analysis.md).
   */
  explainEpisode(input: { episodeId: number; oracle?: OracleReference }): Promise<EpisodeExplanation>;
  /**
   * A run's failure taxonomy (class × app × template × difficulty); with `vsRunId`, the instances that
   * flipped between the runs. Computed in a worker thread on the newest `limit` failed episodes
   * (default 500) with progress as an activity, and cached until the store's episodes change.
   */
  runFailures(input: { runId: number; vsRunId?: number; oracle?: OracleReference; limit?: number }): Promise<RunFailuresView>;

  // Settings and long work
  getSettings(input?: NoInput): Promise<Settings>;
  updateSettings(input: Partial<Settings>): Promise<Settings>;
  /** The settings form: each field's label (its description) and input kind, in schema order. */
  describeSettings(input?: NoInput): Promise<SettingField[]>;
  onActivity(input: NoInput, listener: Listener<Activity>): Unsubscribe;

  // Training: one background job at a time, in a worker thread (docs/ui.md "Training")
  /** A trainer's config as a form: every field (path, label, kind, default), presets, and the metrics to chart. */
  describeTrainConfig(input: { kind: TrainerKind }): Promise<TrainConfigDescription>;
  /** Validates the config (TrainingConfigError lists every problem) and starts the job; a second job is refused (TrainingBusyError). */
  startTraining(input: TrainingStart): Promise<JobInfo>;
  /** Pauses after the current iteration ('pausing', then 'paused'). */
  pauseTraining(input: { jobId: string }): Promise<JobInfo>;
  /** Continues a paused job; resumes an ended GRPO job, or a checkpoint by name, from its checkpoint (optionally for more iterations). */
  resumeTraining(input: TrainingResume): Promise<JobInfo>;
  /** Stops after the current iteration, writing a checkpoint ('stopping', then 'stopped'). */
  stopTraining(input: { jobId: string }): Promise<JobInfo>;
  /** This workbench's jobs of every kind (training and adaptation; running and ended), oldest first. */
  listTrainingJobs(input?: NoInput): Promise<JobInfo[]>;
  /** Training runs in the trajectory store, newest first. */
  listTrainingRuns(input?: NoInput): Promise<TrainingRunInfo[]>;
  /** A run's stored metrics, one row per iteration (a reload or a finished run draws its charts from these). */
  getTrainingMetrics(input: { runId: number }): Promise<IterationMetricsRow[]>;
  /** Checkpoint folders under <data folder>/checkpoints, newest first. */
  listCheckpoints(input?: NoInput): Promise<CheckpointInfo[]>;
  /** Every job's state changes (adaptation jobs' too) and training jobs' finished iterations (with metrics). */
  onTraining(input: NoInput, listener: Listener<TrainingEvent>): Unsubscribe;

  // Per-app adaptation: a background job of kind 'adapt' under the same one-job rule (docs/ui.md "Adaptation")
  /** The apps that can be adapted (held-out apps first), methods, adapter kinds, defaults, and the config's fields. */
  describeAdaptation(input?: NoInput): Promise<AdaptationDescription>;
  /** What a base checkpoint (a trainable policy choice) was trained on, through its inits, and the apps that training saw. */
  describeAdaptationBase(input: { policy: string }): Promise<BaseTraining>;
  /** Checks the request (AdaptationInputError lists every problem) and runs before → adapt → after in a worker; TrainingBusyError while any job runs. */
  startAdaptation(input: AdaptationStart): Promise<JobInfo>;
  /** Stops at the next episode, epoch or iteration ('stopping', then 'stopped'); an adapter whose training started is saved. */
  stopAdaptation(input: { jobId: string }): Promise<JobInfo>;
  /** The job's report (before, after, delta, per template): null until it arrives, and for a failed job. */
  getAdaptationReport(input: { jobId: string }): Promise<AdaptationReport | null>;
  /** Adapters under <data folder>/adapters, newest first: app, base checkpoint, path, size, and the last report that saved each. */
  listAdapters(input?: NoInput): Promise<AdapterInfo[]>;
  /** Adaptation jobs' state changes, progress (runAdaptation's events: evaluation episodes, demonstrations, SFT epochs, GRPO iterations) and reports. */
  onAdaptation(input: NoInput, listener: Listener<AdaptationEvent>): Unsubscribe;

  // Evaluate: `awb eval` in a worker (docs/ui.md "Evaluate")
  /** Evaluates a policy (or a before and an after) on a split part's templates × seeds; the same store runs as `awb eval`. One at a time. */
  startEvaluation(input: EvaluationStart): Promise<EvaluationInfo>;
  /** Stops after the current episode ('stopping', then 'stopped'); the report covers the episodes that ran. */
  stopEvaluation(input: { id: string }): Promise<EvaluationInfo>;
  /** This workbench's evaluations, newest first. */
  listEvaluations(input?: NoInput): Promise<EvaluationInfo[]>;
  /** Every change of an evaluation: state, each episode (progress, ETA), each policy's report. */
  onEvaluation(input: NoInput, listener: Listener<EvaluationEvent>): Unsubscribe;

  // Remote jobs on trainer services (core/remote-jobs, docs/jobs.md)
  /** Trainer profiles (name, URL, whether a token is set; a token never leaves the secret store, docs/jobs.md "Trainer profiles"). */
  listTrainers(input?: NoInput): Promise<PublicTrainerProfile[]>;
  /** Adds or replaces a profile: name and URL in trainers.json, the token in the workbench's secret store only. */
  saveTrainer(input: TrainerSave): Promise<PublicTrainerProfile[]>;
  removeTrainer(input: { name: string }): Promise<PublicTrainerProfile[]>;
  /** The store's remote-job records, newest first. */
  listRemoteJobs(input?: NoInput): Promise<RemoteJobInfo[]>;
  /** Builds the dataset bundle, uploads it (resumable), submits (idempotent) and follows the job; events on onRemoteJob. */
  submitRemoteJob(input: RemoteJobSubmit): Promise<RemoteJobInfo>;
  cancelRemoteJob(input: { id: number }): Promise<RemoteJobInfo>;
  /** Streams a job's events from its first (its log and metrics so far, then live) to onRemoteJob; no-op if already followed. */
  followRemoteJob(input: { id: number }): Promise<void>;
  /** Downloads a succeeded job's artifacts (all, or `names`), sha256-verified, under <data folder>/jobs/. */
  downloadArtifacts(input: { id: number; names?: string[] }): Promise<RemoteJobInfo>;
  /** Registers a downloaded result: builtin kinds' policy.json → <data folder>/policies/<trainer>-<remote id>.json (awb eval --policy, the
   *  Agent view's checkpoint:<file>); progrm / prm's model.json → <data folder>/progrm|shepherd/<trainer>-<remote id>.json (a reward config's checkpoint). */
  registerPolicy(input: { id: number }): Promise<RemoteJobInfo>;
  /**
   * Online GRPO (docs/online-grpo.md "In the workbench"): checks the request, asks the trainer, creates the training run
   * and returns it at once; the iterations run in the background of the API host (an activity; `online` events on
   * onRemoteJob; each iteration's job a normal record). One loop at a time. A VLM policy names an endpoint profile:
   * its key is read in the workbench, never sent through the API.
   */
  startOnlineGrpo(input: OnlineGrpoStart): Promise<OnlineGrpoRunInfo>;
  /** Aborts the loop: the job in flight is cancelled, the run ends interrupted ('stopping', then 'stopped'). */
  stopOnlineGrpo(input: { runId: number }): Promise<OnlineGrpoRunInfo>;
  /** This workbench's online GRPO loops (running and ended), newest first. */
  listOnlineGrpo(input?: NoInput): Promise<OnlineGrpoRunInfo[]>;
  /** Record changes, the log lines and metrics of followed jobs, and online GRPO loops' state. */
  onRemoteJob(input: NoInput, listener: Listener<RemoteJobEvent>): Unsubscribe;
}

export type ApiMethod = { [K in keyof WorkbenchApi]: K extends `on${string}` ? never : K }[keyof WorkbenchApi];
export type ApiEvent = Exclude<keyof WorkbenchApi, ApiMethod>;
export type InputOf<K extends keyof WorkbenchApi> = Parameters<WorkbenchApi[K]>[0];
export type ResultOf<K extends ApiMethod> = Awaited<ReturnType<WorkbenchApi[K]>>;
export type PayloadOf<K extends ApiEvent> = Parameters<Parameters<WorkbenchApi[K]>[1]>[0];

/** Events follow the `onX` rule, so the bridge tells them from methods by name alone. */
export function isEventName(name: string): boolean {
  return /^on[A-Z]/.test(name);
}
