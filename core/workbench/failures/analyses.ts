import { Worker } from 'node:worker_threads';
import type { RunFailuresView } from '../../api/api.js';
import { prepare, type ReadableDB } from '../../store/db.js';
import { assertNever, WorkbenchError } from '../../util/errors.js';
import type { FailuresRequest, FailuresWorkerData, FromFailuresWorker, ToFailuresWorker } from './protocol.js';

/**
 * A run's failure taxonomy for the Trajectories view, computed on demand in a worker thread
 * (worker.ts) so `awb serve` keeps answering while it classifies, bounded to the newest `limit`
 * failed episodes, with progress, and cached until the store's episodes change.
 */

/** Results kept (a handful of runs and pairs a session looks at). */
const CACHE_SIZE = 8;

/** The worker's error, under the name it was thrown with (RunNotFoundError …), so the UI shows what went wrong. */
export type { FailuresRequest } from './protocol.js';

export class FailureAnalysisError extends WorkbenchError {
  constructor(readonly errorName: string, message: string) {
    super(message);
    this.name = errorName;
  }
}

const ENTRY = new URL('./worker-entry.mjs', import.meta.url);

interface Pending {
  resolve(v: RunFailuresView): void;
  reject(e: Error): void;
  progress(done: number, total: number): void;
}

export class RunFailureAnalyses {
  private readonly cache = new Map<string, { fingerprint: string; view: RunFailuresView }>();
  private readonly inFlight = new Map<string, Promise<RunFailuresView>>();
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private seq = 0;

  constructor(private readonly db: () => ReadableDB) {}

  /** Episodes added or ended anywhere change the references and the runs: the cached table is then stale. */
  private fingerprint(): string {
    const r = prepare<[], { n: number; last: number | null; running: number | null }>(this.db(),
      "SELECT COUNT(*) AS n, MAX(id) AS last, SUM(status = 'running') AS running FROM episodes").get()!;
    return `${r.n}:${r.last ?? 0}:${r.running ?? 0}`;
  }

  /** The cached view when the store has not changed since, else the worker's; `progress` hears each classified episode. */
  async get(q: FailuresRequest, progress: (done: number, total: number) => void = () => {}): Promise<RunFailuresView> {
    const key = JSON.stringify([q.runId, q.vsRunId, q.oracle, q.limit]);
    const fingerprint = this.fingerprint();
    const hit = this.cache.get(key);
    if (hit && hit.fingerprint === fingerprint) return hit.view;
    let run = this.inFlight.get(key);
    if (!run) {
      run = this.ask(q, progress).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, run);
    }
    const view = await run;
    this.cache.delete(key);
    this.cache.set(key, { fingerprint, view });
    while (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    return view;
  }

  private ask(q: FailuresRequest, progress: Pending['progress']): Promise<RunFailuresView> {
    const id = ++this.seq;
    const w = this.worker ?? this.start();
    return new Promise<RunFailuresView>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, progress });
      w.postMessage({ id, ...q } satisfies ToFailuresWorker);
    });
  }

  /** One worker for the workbench's life (its start, loading the task registry, is the slow part), not holding the process open. */
  private start(): Worker {
    const worker = new Worker(ENTRY, { workerData: { dbPath: this.db().name } satisfies FailuresWorkerData });
    worker.unref();
    this.worker = worker;
    const failAll = (e: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
    worker.on('message', (m: FromFailuresWorker) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      switch (m.type) {
        case 'progress': p.progress(m.done, m.total); return;
        case 'result': this.pending.delete(m.id); p.resolve(m.view); return;
        case 'failed': this.pending.delete(m.id); p.reject(new FailureAnalysisError(m.error.name, m.error.message)); return;
        default: assertNever(m, 'failure-analysis worker message');
      }
    });
    worker.on('error', (e) => failAll(new FailureAnalysisError(e.name, e.message)));
    worker.on('exit', (code) => failAll(new FailureAnalysisError('FailureAnalysisWorkerExit', `the failure-analysis worker exited (code ${code}) before it answered`)));
    return worker;
  }

  /** Ends the worker (the workbench is closing). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}
