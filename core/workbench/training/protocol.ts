import type { TrainConfig } from '../../rl/config.js';
import type { TrainSftConfig } from '../../rl/train-sft.js';
import type { AdaptationReport, AdaptProgress, RunAdaptationOptions } from '../../rl/adapt.js';
import type { TransformerSftConfig } from '../../rl/transformer-config.js';
import type { TrainerKind } from '../../api/training-types.js';
import type { PreparedTransformerAdaptation } from '../adaptation/prepare-transformer.js';

/**
 * The training worker's side of the wire. The job is given once as workerData; control goes the
 * other way through one shared Int32 (RUN / PAUSE / STOP), because an SFT epoch loop is synchronous
 * and a paused worker blocks in Atomics.wait: neither could read a message. The worker reads the
 * control word only between iterations (epochs), so pause and stop take effect there.
 */
export const CONTROL = { run: 0, pause: 1, stop: 2 } as const;

export type WorkerJob =
  /** `resume`: continue the checkpoint in outDir (its iterations done, and the store run it wrote to, if known). */
  | { kind: 'grpo'; config: TrainConfig; outDir: string; dbPath: string; resume: { completed: number; previousRun: number | null } | null }
  | { kind: 'sft'; config: TrainSftConfig; outDir: string; dbPath: string }
  /**
   * The transformer policy's runs (worker-transformer.ts): outDir is the model folder, which appears whole (written in a
   * staging folder beside it, then renamed) or not at all; config.init of a GRPO run is a model folder's path.
   */
  | { kind: 'transformer-sft'; config: TransformerSftConfig; outDir: string; dbPath: string }
  | { kind: 'transformer-grpo'; config: TrainConfig; outDir: string; dbPath: string }
  /**
   * Per-app adaptation: runAdaptation's plain options, checked by the host (the store is read for recorded
   * demonstrations, and the adaptation's episodes are recorded into a run of its own); `total` SFT epochs + GRPO
   * iterations planned; `summary` the request as validated (the run's config).
   */
  | { kind: 'adapt'; options: RunAdaptationOptions; dbPath: string; total: number; summary: Record<string, unknown> }
  /** Per-app adaptation of a transformer model folder (the job's kind is 'adapt' too): GRPO on a LoRA, as checked by the host. */
  | { kind: 'adapt-transformer'; prepared: PreparedTransformerAdaptation; dbPath: string };

export interface WorkerData {
  job: WorkerJob;
  /** SharedArrayBuffer of one Int32: the CONTROL value. */
  control: SharedArrayBuffer;
}

export type FromTrainingWorker =
  /** The run is open in the store; `completed` > 0 when resuming. */
  | { type: 'started'; runId: number; completed: number; total: number }
  /** `phase`: a phase counted in its own units (SFT's demonstrations), `done` of `total` so far. */
  | { type: 'progress'; detail: string; phase?: { name: string; done: number; total: number | null } }
  /** `checkpoint`: this iteration wrote one. */
  | { type: 'iteration'; iteration: number; metrics: Record<string, number>; checkpoint: boolean }
  | { type: 'paused'; completed: number }
  | { type: 'resumed' }
  | { type: 'done'; stoppedBy: 'done' | 'aborted'; iterations: number; checkpoint: number | null }
  | { type: 'failed'; error: { name: string; message: string }; checkpoint: number | null }
  /** An adaptation's progress event, as runAdaptation emitted it. */
  | { type: 'adapt-progress'; progress: AdaptProgress }
  /** An adaptation's report, posted before its 'done'. */
  | { type: 'adapt-report'; report: AdaptationReport };

/** The file a job leaves beside its checkpoint: which store run holds its metrics (a resume continues it). */
export const JOB_FILE = 'awb-job.json';

export interface JobFile {
  trainer: TrainerKind;
  runId: number;
  /** The store the run is in: a resume against another store starts a new run there. */
  dbPath: string;
  createdAt: number;
}
