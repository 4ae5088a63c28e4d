import type { PolicySpec } from '../../policy/registry.js';
import type { SplitName, SplitPart } from '../../tasks/splits.js';
import type { EvalReport } from '../../rl/eval.js';

/** The evaluation worker's side of the wire: the plan once as workerData, stop through one shared Int32 (1 = stop). */
export interface EvaluationWorkerData {
  dbPath: string;
  /** The evaluation's id, recorded in every run's config. */
  evaluation: string;
  /** In order: each policy's choice name, resolved spec, and what its runs' config records about it. */
  policies: Array<{ name: string; spec: PolicySpec; config: Record<string, unknown> }>;
  splits: SplitName[];
  part: SplitPart;
  seeds: number[];
  limit?: number;
  control: SharedArrayBuffer;
}

export type FromEvaluationWorker =
  | { type: 'episode'; policy: number; key: string }
  | { type: 'result'; policy: number; runs: Array<{ seed: number; runId: number }>; report: EvalReport; stopped: boolean }
  | { type: 'done'; stopped: boolean }
  | { type: 'failed'; error: { name: string; message: string } };
