import type { EpisodeResult, EpisodeStart, ObservationRecord, StepRecord } from '../record.js';
import type { ScreenshotMode } from '../runner.js';

/**
 * Messages between the rollout pool (main thread) and its workers (one SimDroid each). Everything
 * is structured-clone data; screenshots travel as bytes.
 */
export type PolicySpec =
  | { name: 'oracle' }
  | { name: 'random' }
  | { name: 'replay'; actions: unknown[] }
  /** The builtin policy, greedy, loaded from a checkpoint file by each worker (once per path). */
  | { name: 'builtin'; checkpoint: string };

export interface RolloutJob {
  /** Unique within a pool run; results and records are keyed by it. */
  key: string;
  templateId: string;
  seed: number;
  policy: PolicySpec;
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

export type ToWorker = { type: 'job'; job: RolloutJob } | { type: 'exit' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'begin'; key: string; start: EpisodeStart }
  | { type: 'step'; key: string; step: StepRecord; before: ObservationRecord }
  | { type: 'end'; key: string; result: EpisodeResult; final: ObservationRecord }
  | { type: 'failed'; key: string; error: { name: string; message: string } };
