import type { AdapterSpec } from '../../policy/adapter.js';
import type { PolicyStepRecord } from '../../policy/builtin.js';
import type { EncoderConfig } from '../../policy/encoder.js';
import type { NetworkDims } from '../../policy/network.js';
import type { PolicySpec } from '../../policy/registry.js';
import type { TransformerStepRecord } from '../../policy/transformer/policy.js';
import type { SubgoalProgress } from '../../store/reward-annotations.js';
import type { EpisodeRecorder, EpisodeResult, EpisodeStart, ObservationRecord, StepRecord } from '../../episode/record.js';
import type { ScreenshotMode } from '../../episode/runner.js';

/**
 * Messages between the rollout pool (main thread) and its workers (one SimDroid each). Everything
 * is structured-clone data; screenshots travel as bytes. A job's policy is a registry spec
 * (core/policy/registry.ts). The pool ends a worker by terminating its thread (pool.ts close), so
 * there is no exit message.
 */

export interface RolloutJob {
  /** Unique within a pool run; results and records are keyed by it. */
  key: string;
  templateId: string;
  seed: number;
  policy: PolicySpec;
  /** Step budget of this job; default the worker's config, else the template's own. */
  maxSteps?: number;
  /**
   * Capture the worker SimDroid's ground-truth subgoal progress after every step (SubgoalTracker).
   * It travels with the records ('begin' names the subgoals, each 'step' carries its count), so it
   * needs forward 'records'; the pool hands it to the recorder's `end`, also when the worker died.
   */
  subgoals?: boolean;
}

/** What the pool hands a recorder's `end` besides the result. */
export interface EpisodeExtras {
  /** With `RolloutJob.subgoals`: one count per step that reached the main thread. */
  subgoals?: SubgoalProgress;
}

/**
 * A recorder on the main thread. `end` also gets the episode's extras, so a store can write them in
 * the transaction that ends the episode (a StoreRecorder, which ignores them, fits as it is).
 */
export interface PoolRecorder {
  begin: EpisodeRecorder['begin'];
  step: EpisodeRecorder['step'];
  end(result: EpisodeResult, final: ObservationRecord, extras: EpisodeExtras): void | Promise<void>;
}

export interface WorkerConfig {
  serial: string;
  deviceSeed: number;
  screenshots: ScreenshotMode;
  maxSteps?: number;
  onMalformed?: 'end' | 'continue';
  /** Post every record (begin, steps with observations, end) or only each episode's result. */
  forward: 'records' | 'results';
}

/** Policy parameters for 'builtin-sample' jobs: the network's flat buffer and what rebuilds the model around it. */
export interface WorkerModel {
  encoder: EncoderConfig;
  dims: NetworkDims;
  params: Float32Array;
  /**
   * The per-app adapters of 'builtin-adapted-sample' jobs (adaptation's GRPO rollouts), over the network above as
   * their frozen base.
   */
  adapters?: WorkerAdapter[];
}

/** An adapter as a worker rebuilds it (core/policy/adapter.ts ScorerAdapter over the model's dims): what selects it and its parameters. */
export interface WorkerAdapter {
  app: string;
  package: string;
  spec: AdapterSpec;
  params: Float32Array;
}

/** A sampling job's step record, as its policy kind makes it. */
export type WorkerStepRecord = PolicyStepRecord | TransformerStepRecord;

export type ToWorker =
  /** `forward` overrides the worker config's for this job (a persistent pool runs with and without a recorder). */
  | { type: 'job'; job: RolloutJob; forward?: WorkerConfig['forward'] }
  /** Replaces the model 'builtin-sample' and 'builtin-adapted-sample' jobs use; episodes already running keep theirs. */
  | { type: 'model'; model: WorkerModel };

export type FromWorker =
  | { type: 'ready' }
  /** `subgoalNames`/`subgoalsDone`: with `RolloutJob.subgoals`, the template's subgoals and the count after this step. */
  | { type: 'begin'; key: string; start: EpisodeStart; subgoalNames?: string[] }
  | { type: 'step'; key: string; step: StepRecord; before: ObservationRecord; subgoalsDone?: number }
  /**
   * `records` for 'builtin-sample' jobs, and for 'builtin-adapted-sample' ones with each record's `adapter`
   * (AdaptedStepRecords); their feature buffers are transferred, not copied. For 'transformer-sample' jobs,
   * TransformerStepRecords (the inputs the network saw, copied). With forward 'results', such a job's result steps
   * come without `candidates` (a trainer reads the records).
   */
  | { type: 'end'; key: string; result: EpisodeResult; final: ObservationRecord; records?: WorkerStepRecord[] }
  | { type: 'failed'; key: string; error: { name: string; message: string } };
