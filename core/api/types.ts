import type { Breakpoint } from '../episode/breakpoints.js';
import type { ControllerState } from '../episode/controller.js';
import type { EpisodeStatus, StepError, StepRecord, Termination } from '../episode/record.js';
import type { ForegroundApp, InputEvent, ScreenInfo } from '../device/device.js';
import type { FramePath } from '../device/frames.js';
import type { Bounds, UiTree } from '../a11y/ui-tree.js';
import type { Difficulty } from '../tasks/task.js';
import type { RunKind } from '../store/index.js';

/**
 * The plain data the workbench API carries: JSON-able but for `Uint8Array` (PNG bytes), which both
 * transports move as binary. The renderer imports these types only.
 */
export type { Breakpoint, BreakpointSpec } from '../episode/breakpoints.js';
export type { ControllerState } from '../episode/controller.js';
export type { InputEvent, KeyName, Rotation, ScreenInfo, ForegroundApp, TouchAction } from '../device/device.js';
export type { FramePath } from '../device/frames.js';
export type { Bounds, UiNode, UiTree } from '../a11y/ui-tree.js';
export type {
  Alignment, CheckVerdictView, Classification, DiffNode, Divergence, EpisodeExplanation, FailureCell, FailureClass, Flip, NodeChange, PathRewards,
  RewardsBeside, RunComparison, RunFailures, ScreenRefView, TreeDiff,
} from './analysis-types.js';
export type { CheckCondition, CheckVerdict } from '../tasks/verdict.js';
export type {
  EpisodeFilter, EpisodePage, EpisodeSortKey, EpisodeSummary, RolloutPlace, StatusCounts, StoredEpisodeStatus, Trajectory, StoredStep, Reward, RunKind, RunSummary,
} from '../store/index.js';

export type {
  CheckpointInfo, ChartSpec, ConfigField, ConfigPreset, IterationMetricsRow, JobCheckpoint, JobInfo, JobKind, JobPhase, JobState, TrainConfigDescription, TrainerKind,
  TrainingEvent, TrainingResume, TrainingRunInfo, TrainingStart,
} from './training-types.js';
export type {
  AdaptableApp, AdaptationDefaults, AdaptationDescription, AdaptationEvent, AdaptationReport, AdaptationStart, AdapterInfo, AdapterKind, BaseTraining, BaseTrainingStep,
  AdaptMethod, AdaptProgress, AdaptRegime, AppEvalResult, HomeMode, TemplateDelta, TemplateRate,
} from './adaptation-types.js';

export type {
  EvalDeltas, EvalReport, EvaluationEvent, EvaluationInfo, EvaluationPolicyResult, EvaluationStart, EvaluationState, GroupStats, SeedRate,
} from './evaluation-types.js';
export type { CoordinateSpace, EndpointInfo, EndpointSave, EndpointSettings, EndpointTestResult, VlmFormatId, VlmPresetId, VlmPresetInfo, VlmServer } from './endpoint-types.js';
export type { PublicTrainerProfile, RemoteJobEvent, RemoteJobInfo, RemoteJobStatus, RemoteJobSubmit, RemoteSubmitKind, TrainerSave } from './job-types.js';
export { REMOTE_SUBMIT_KINDS } from './job-types.js';
export type DeviceKind = 'simdroid' | 'emulator' | 'device';
export type DeviceTransport = 'embedded' | 'adb';

export interface DeviceSummary {
  serial: string;
  kind: DeviceKind;
  /** 'embedded': SimDroid in the workbench's own process; 'adb': through the adb server. */
  transport: DeviceTransport;
  /** adb's state ('device', 'offline', 'unauthorized', …); 'device' for embedded ones. */
  state: string;
  online: boolean;
  screen: ScreenInfo | null;
  /** The adb port an embedded SimDroid also serves, if it was started with one. */
  adbAddress: string | null;
  /** The step-through session driving it, if any. */
  sessionId: string | null;
  /** A drag can be streamed to it as it moves (sendTouch), not only sent as a swipe when it ends. */
  touch: boolean;
  /** Its display can be turned (rotateDevice): an emulator or a phone, not SimDroid. */
  rotate: boolean;
}

export interface DeviceList {
  devices: DeviceSummary[];
  /** Why the adb server could not be asked (adb missing, server refused); embedded devices are still listed. */
  adbError: string | null;
}

export interface AvdList {
  /** The SDK found (ANDROID_HOME / ANDROID_SDK_ROOT), or null. */
  sdk: string | null;
  avds: string[];
  error: string | null;
}

export interface ScreenImage {
  png: Uint8Array;
  width: number;
  height: number;
}

export interface FrameView extends ScreenImage {
  serial: string;
  /** How the frame came: SimDroid's push, the emulator's gRPC stream, or adb screencap polling. */
  path: FramePath;
  seq: number;
  /** Capture time (epoch ms). */
  at: number;
  /** When the change it shows happened, if known: latency = at - changedAt. */
  changedAt: number | null;
}

/** A stored accessibility tree: parsed here in core, so the renderer never parses uiautomator XML. */
export interface StoredTree {
  xml: string;
  tree: UiTree;
}

export interface ScreenState {
  serial: string;
  screen: ScreenInfo;
  tree: UiTree;
  /** uiautomator XML, as a device would dump it. */
  xml: string;
  foreground: ForegroundApp;
}

export interface TaskSummary {
  id: string;
  app: string;
  apps: string[];
  difficulty: Difficulty;
  /** The instruction template, with {placeholders}. */
  template: string;
  informationRetrieval: boolean;
}

export interface TaskInstanceView {
  templateId: string;
  seed: number;
  instruction: string;
  params: unknown;
  subgoals: string[];
}

/**
 * Where a policy choice comes from: a built-in policy, a VLM endpoint profile, a checkpoint folder under
 * `<data folder>/checkpoints` (Training's; 'transformer' when the folder is a transformer policy's model folder), a file registered in `<data folder>/policies` (a checkpoint
 * .json or an ONNX export .onnx), or a checkpoint with one app's adapter (Adaptation's).
 */
export const POLICY_CHOICE_KINDS = ['builtin', 'vlm', 'checkpoint', 'transformer', 'policy-file', 'onnx', 'adapter'] as const;
export type PolicyChoiceKind = (typeof POLICY_CHOICE_KINDS)[number];

/** One policy the workbench can run, as every place that chooses a policy lists it (listPolicies). */
export interface PolicyInfo {
  name: SessionPolicy;
  description: string;
  kind: PolicyChoiceKind;
  /** A checkpoint JSON that training can start from (GRPO init, Adaptation base, online GRPO). */
  trainable: boolean;
  /** Runs without a person or recorded replies, so Evaluate can run it. */
  evaluable: boolean;
  /** The checkpoint folder it comes from (kinds 'checkpoint', 'transformer' and 'adapter'), else null. */
  checkpoint: string | null;
  /** The app an adapter is for (kind 'adapter'): it scores that app's screens and the home screen of that app's tasks. */
  app: string | null;
}

/**
 * Policies a step-through session can run: the built-in ones, a person choosing each action, or a VLM's recorded
 * replies (`vlm-replay`, with SessionStart.replies) re-executed through its format's parser.
 */
export const SESSION_POLICIES = ['oracle', 'random', 'manual', 'vlm-replay'] as const;
/** A VLM endpoint profile (`awb endpoints add`, docs/policy-vlm.md) as a session policy: `vlm:<profile name>`. */
export type VlmSessionPolicy = `vlm:${string}`;
export const VLM_SESSION_POLICY = /^vlm:[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/**
 * A stored builtin policy, run greedily: `checkpoint:<name>`, a checkpoint folder under `<data folder>/checkpoints`
 * (as Training lists it), or `checkpoint:<file name>.json|.onnx`, a file registered in `<data folder>/policies/`
 * (`awb jobs register`, or copied there: a checkpoint or its ONNX export). A name ending in .json or .onnx is a
 * registered file; any other name a checkpoint folder. Only names, never paths.
 */
export type CheckpointSessionPolicy = `checkpoint:${string}`;
export const CHECKPOINT_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\.(json|onnx)$/;
export const CHECKPOINT_SESSION_POLICY = /^checkpoint:[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
/**
 * A checkpoint folder's policy with the adapter Adaptation made for one app on it: `adapter:<checkpoint name>/<app slug>`.
 * The adapter scores its app's screens (and the home screen in that app's tasks); the checkpoint scores every other screen.
 */
export type AdapterSessionPolicy = `adapter:${string}`;
export const ADAPTER_SESSION_POLICY = /^adapter:[A-Za-z0-9][A-Za-z0-9._-]{0,199}\/[a-z0-9][a-z0-9-]{0,99}$/;
export type SessionPolicy = (typeof SESSION_POLICIES)[number] | VlmSessionPolicy | CheckpointSessionPolicy | AdapterSessionPolicy;

/** An action's element on screen, for drawing it. */
export interface ActionTarget {
  bounds: Bounds;
  label: string;
}

export interface ProposalInfo {
  index: number;
  action: unknown;
  /** One line, e.g. `Tap "Save" in Contacts`, when the action parses and fits the screen. */
  description: string | null;
  target: ActionTarget | null;
  thought: string | null;
  candidates: Array<{ action: unknown; score: number; probability: number; description: string | null; target: ActionTarget | null }>;
  error: StepError | null;
  foreground: ForegroundApp;
  /** Set when the policy hands the choice to the person (why, in plain words); the session holds here even while running. */
  handover: string | null;
}

export interface SessionStepInfo {
  index: number;
  action: unknown;
  description: string | null;
  thought: string | null;
  target: ActionTarget | null;
  overridden: boolean;
  error: StepError | null;
  foreground: ForegroundApp;
  /** Rewards by kind, filled in as they are computed (the outcome when the episode ends). */
  rewards: Record<string, number>;
}

export interface SessionResult {
  status: EpisodeStatus;
  success: boolean;
  terminatedBy: Termination;
  error: StepError | null;
  answer: string | null;
}

export interface SessionInfo {
  id: string;
  serial: string;
  templateId: string;
  seed: number;
  instruction: string;
  policy: string;
  state: ControllerState;
  breakpoints: Breakpoint[];
  proposal: ProposalInfo | null;
  steps: SessionStepInfo[];
  /** The recorded episode (set once recording began). */
  episodeId: number | null;
  result: SessionResult | null;
  /** Breakpoints that stopped it at the current proposal. */
  hitBreakpoints: string[];
  /** The action the next step will carry out instead of the proposal (set by overrideAction), sketched on the latest screen. */
  pendingOverride: { action: unknown; description: string | null; target: ActionTarget | null } | null;
  /** Set for an outside agent's session (docs/outside-agents.md), null for the workbench's own step-through sessions. */
  agent: OutsideAgentInfo | null;
}

/** An outside agent's session as the Agent view shows it: one session, many episodes (the current one above). */
export interface OutsideAgentInfo {
  /** The agent's name, recorded as each episode's policy. */
  name: string;
  run: { id: number; name: string };
  /** Episodes the session has started so far. */
  episodes: number;
  /** A person has the session (takeover): the agent's step waits until it is handed back. */
  takenOver: boolean;
  /** The agent's connection is still open (false once it closed the session or went away). */
  connected: boolean;
}

export type SessionEvent =
  | { kind: 'state'; session: SessionInfo }
  /** An outside agent's session began its next episode (the steps start over). */
  | { kind: 'episode'; session: SessionInfo }
  | { kind: 'proposal'; session: SessionInfo }
  | { kind: 'break'; session: SessionInfo; breakpoints: string[] }
  | { kind: 'step'; session: SessionInfo; step: SessionStepInfo }
  | { kind: 'finished'; session: SessionInfo };

export interface EpisodeFacets {
  templates: string[];
  apps: string[];
  policies: string[];
  /**
   * `kind`: how the run was made (a suite, a step-through session, training, an import, an outside agent's `env` run);
   * `iterations`: a training run's iterations with recorded rollouts (the iteration filter's values).
   */
  runs: Array<{ id: number; name: string; kind: RunKind; iterations: number[] }>;
}

export interface ExportResult {
  path: string;
  episodes: number;
  steps: number;
}

/** Long work the UI shows progress for (launching an AVD, exporting). */
export interface Activity {
  id: string;
  label: string;
  state: 'running' | 'done' | 'failed';
  done: number;
  total: number | null;
  error: string | null;
}

export type { StepRecord };
export type { InputEvent as DeviceInput };
