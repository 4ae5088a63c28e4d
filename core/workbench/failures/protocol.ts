import type { RunFailuresView } from '../../api/api.js';

/** The failure-analysis worker's side of the wire: the store once as workerData, then requests; answers carry the request's id. */
export interface FailuresWorkerData {
  dbPath: string;
}

export interface FailuresRequest {
  runId: number;
  vsRunId: number | null;
  oracle: 'when-needed' | 'always' | 'never';
  limit: number;
}

export type ToFailuresWorker = FailuresRequest & { id: number };

export type FromFailuresWorker =
  | { type: 'progress'; id: number; done: number; total: number }
  | { type: 'result'; id: number; view: RunFailuresView }
  | { type: 'failed'; id: number; error: { name: string; message: string } };
