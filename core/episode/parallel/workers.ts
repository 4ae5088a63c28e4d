import { Worker } from 'node:worker_threads';
import type { PolicyStepRecord } from '../../policy/builtin.js';
import { WorkbenchError } from '../../util/errors.js';
import type { EpisodeRecorder, EpisodeResult, EpisodeStart, StepError, StepRecord } from '../record.js';
import type { FromWorker, RolloutJob, ToWorker, WorkerConfig, WorkerModel } from './protocol.js';

/**
 * A persistent pool of rollout workers (one SimDroid each) for callers that run many batches,
 * such as a training run: the workers start once, receive model parameters between batches, and
 * take each batch's jobs first come first served. `runPool` (pool.ts) is the one-shot variant for
 * a suite or an eval; both speak the protocol of protocol.ts to the same worker.ts.
 *
 * Failures: a worker that dies mid-episode (an uncaught error, `process.exit`, out of memory)
 * fails only that job (`crashed: true`) and a fresh worker takes its place. A worker that dies
 * before it is ready, or a recorder that throws, fails the batch with a named error; the pool is
 * then unusable and only `close()` remains.
 */
export interface WorkerPoolOptions {
  workers: number;
  /** Config of the i-th worker started (0-based; replacements continue the count). */
  config: (index: number) => WorkerConfig;
  /** The worker script; default worker-entry.mjs (tests substitute one that crashes on purpose). */
  entry?: URL;
}

export interface WorkerRunOptions {
  /** 'records' posts every step to the main thread (needed by a recorder); 'results' only each episode's end. */
  forward: WorkerConfig['forward'];
  /** A recorder for each job, on the main thread (e.g. a trajectory-store recorder). */
  recorder?: (job: RolloutJob) => EpisodeRecorder | undefined;
  onEpisode?: (job: RolloutJob, outcome: WorkerOutcome) => void;
}

export type WorkerOutcome =
  | { ok: true; result: EpisodeResult; records: PolicyStepRecord[]; device: string }
  /**
   * The job threw in the worker (`crashed: false`) or its worker died (`crashed: true`); `start`
   * and `steps` are what reached the main thread before that (with `forward: 'records'`).
   */
  | { ok: false; error: StepError; crashed: boolean; device: string; start?: EpisodeStart; steps: StepRecord[] };

export class WorkerStartError extends WorkbenchError {
  override name = 'WorkerStartError';
  constructor(readonly serial: string, readonly reason: string) {
    super(`Rollout worker ${serial} died before it was ready: ${reason}`);
  }
}

export class WorkerPoolStateError extends WorkbenchError {
  override name = 'WorkerPoolStateError';
  constructor(readonly state: 'closed' | 'busy' | 'duplicate-key', detail = '') {
    super(`Worker pool: ${state === 'closed' ? 'the pool is closed' : state === 'busy' ? 'a batch is already running' : `duplicate job key ${detail}`}`);
  }
}

const ENTRY = new URL('./worker-entry.mjs', import.meta.url);

interface Slot {
  serial: string;
  worker: Worker;
  /** Reported ready at least once. */
  ready: boolean;
  started: { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void };
  /** Model version this worker last received. */
  modelVersion: number;
  job: RolloutJob | null;
  recorder: EpisodeRecorder | undefined;
  start: EpisodeStart | undefined;
  steps: StepRecord[];
  /** Messages of one worker are handled in order, even when a recorder is async. */
  chain: Promise<unknown>;
  /** The message of its 'error' event, if it had one. */
  crash: string | undefined;
}

interface Batch {
  queue: RolloutJob[];
  opts: WorkerRunOptions;
  outcomes: Map<string, WorkerOutcome>;
  resolve: (o: Map<string, WorkerOutcome>) => void;
  reject: (e: unknown) => void;
}

export class WorkerPool {
  private readonly slots = new Set<Slot>();
  private spawned = 0;
  private model: WorkerModel | null = null;
  private modelVersion = 0;
  private batch: Batch | null = null;
  private failure: unknown = null;
  private closing: Promise<void> | null = null;

  private constructor(private readonly opts: WorkerPoolOptions) {}

  /** Starts `workers` workers and waits until each has booted its device; on any failure, stops them all. */
  static async start(opts: WorkerPoolOptions): Promise<WorkerPool> {
    if (!Number.isInteger(opts.workers) || opts.workers < 1 || opts.workers > 64) {
      throw new RangeError(`Worker pool size must be an integer from 1 to 64, got ${opts.workers}`);
    }
    const pool = new WorkerPool(opts);
    const slots = Array.from({ length: opts.workers }, () => pool.spawn());
    try {
      await Promise.all(slots.map((s) => s.started.promise));
    } catch (e) {
      await pool.close();
      throw e;
    }
    return pool;
  }

  /** Live workers. */
  get size(): number {
    return this.slots.size;
  }

  /** The parameters for 'builtin-sample' jobs from the next batch on; each worker receives them once, before its first job. */
  setModel(model: WorkerModel): void {
    if (this.batch) throw new WorkerPoolStateError('busy');
    this.model = { encoder: model.encoder, dims: { ...model.dims }, params: model.params.slice() };
    this.modelVersion++;
  }

  /** Runs a batch of jobs, first come first served; resolves with every job's outcome, keyed by job key. */
  run(jobs: readonly RolloutJob[], opts: WorkerRunOptions): Promise<Map<string, WorkerOutcome>> {
    if (this.closing) return Promise.reject(new WorkerPoolStateError('closed'));
    if (this.failure) return Promise.reject(this.failure);
    if (this.batch) return Promise.reject(new WorkerPoolStateError('busy'));
    const keys = new Set<string>();
    for (const j of jobs) {
      if (keys.has(j.key)) return Promise.reject(new WorkerPoolStateError('duplicate-key', JSON.stringify(j.key)));
      keys.add(j.key);
    }
    return new Promise((resolve, reject) => {
      this.batch = { queue: [...jobs], opts, outcomes: new Map(), resolve, reject };
      for (const s of this.slots) if (s.ready && !s.job) this.apply(s, () => this.dispatch(s));
      this.maybeFinish();
    });
  }

  /** Stops every worker (a running episode is abandoned); resolves once all threads have exited. */
  close(): Promise<void> {
    if (!this.closing) {
      const batch = this.batch;
      this.batch = null;
      batch?.reject(new WorkerPoolStateError('closed'));
      // terminate() rather than an 'exit' message: a SimDroid holds nothing outside its thread, and
      // a worker in the middle of an episode stops at once instead of finishing it.
      this.closing = Promise.all([...this.slots].map((s) => s.worker.terminate())).then(() => {
        this.slots.clear();
      });
    }
    return this.closing;
  }

  private spawn(): Slot {
    const config = this.opts.config(this.spawned++);
    let resolve!: () => void;
    let reject!: (e: Error) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // A replacement's start failure reaches the batch through fail(); only start() awaits this promise.
    promise.catch(() => {});
    const started = { promise, resolve, reject };
    const slot: Slot = {
      serial: config.serial, worker: new Worker(this.opts.entry ?? ENTRY, { workerData: config }), ready: false, started,
      modelVersion: 0, job: null, recorder: undefined, start: undefined, steps: [], chain: Promise.resolve(), crash: undefined,
    };
    this.slots.add(slot);
    slot.worker.on('message', (m: FromWorker) => this.onMessage(slot, m));
    slot.worker.on('error', (e) => {
      slot.crash = `${e.name}: ${e.message}`;
    });
    slot.worker.on('exit', (code) => this.apply(slot, () => this.onExit(slot, code)));
    return slot;
  }

  private apply(slot: Slot, fn: () => unknown): void {
    slot.chain = slot.chain.then(fn).catch((e: unknown) => this.fail(e));
  }

  private fail(e: unknown): void {
    this.failure ??= e;
    const batch = this.batch;
    this.batch = null;
    batch?.reject(e);
  }

  private onMessage(slot: Slot, m: FromWorker): void {
    switch (m.type) {
      case 'ready':
        if (!slot.ready) {
          slot.ready = true;
          slot.started.resolve();
        }
        this.apply(slot, () => {
          // The worker always ends or fails a job before it is ready again; guard the contract anyway.
          if (slot.job && !this.batch?.outcomes.has(slot.job.key)) {
            this.complete(slot, { ok: false, error: { name: 'WorkerProtocolError', message: `worker ${slot.serial} was ready again without ending job ${slot.job.key}` }, crashed: false, ...this.partial(slot) });
          }
          slot.job = null;
          slot.recorder = undefined;
          this.dispatch(slot);
          this.maybeFinish();
        });
        return;
      case 'begin':
        this.apply(slot, () => {
          slot.start = m.start;
          return slot.recorder?.begin(m.start);
        });
        return;
      case 'step':
        if (m.before.screenshot) m.before.screenshot = Buffer.from(m.before.screenshot);
        this.apply(slot, () => {
          slot.steps.push(m.step);
          return slot.recorder?.step(m.step, m.before);
        });
        return;
      case 'end':
        if (m.final.screenshot) m.final.screenshot = Buffer.from(m.final.screenshot);
        this.apply(slot, async () => {
          await slot.recorder?.end(m.result, m.final);
          this.complete(slot, { ok: true, result: m.result, records: m.records ?? [], device: slot.serial });
        });
        return;
      case 'failed':
        this.apply(slot, () => this.complete(slot, { ok: false, error: m.error, crashed: false, ...this.partial(slot) }));
        return;
    }
  }

  private onExit(slot: Slot, code: number): void {
    this.slots.delete(slot);
    if (this.closing) return;
    const reason = slot.crash ?? `exited with code ${code}`;
    if (!slot.ready) {
      const e = new WorkerStartError(slot.serial, reason);
      slot.started.reject(e);
      this.fail(e);
      return;
    }
    const job = slot.job;
    if (job && !this.batch?.outcomes.has(job.key)) {
      this.complete(slot, { ok: false, error: { name: 'WorkerCrash', message: `worker ${slot.serial} died mid-episode: ${reason}` }, crashed: true, ...this.partial(slot) });
    }
    slot.job = null;
    if (!this.failure) this.spawn();
    this.maybeFinish();
  }

  private partial(slot: Slot): { device: string; steps: StepRecord[]; start?: EpisodeStart } {
    return { device: slot.serial, steps: slot.steps, ...(slot.start ? { start: slot.start } : {}) };
  }

  private complete(slot: Slot, outcome: WorkerOutcome): void {
    const batch = this.batch;
    if (!batch || !slot.job) return;
    batch.outcomes.set(slot.job.key, outcome);
    batch.opts.onEpisode?.(slot.job, outcome);
  }

  private dispatch(slot: Slot): void {
    const batch = this.batch;
    if (!batch || slot.job || this.closing) return;
    const job = batch.queue.shift();
    if (!job) return;
    if (this.model && slot.modelVersion !== this.modelVersion) {
      this.post(slot, { type: 'model', model: this.model });
      slot.modelVersion = this.modelVersion;
    }
    slot.job = job;
    slot.start = undefined;
    slot.steps = [];
    slot.recorder = batch.opts.recorder?.(job);
    this.post(slot, { type: 'job', job, forward: batch.opts.forward });
  }

  private post(slot: Slot, m: ToWorker): void {
    slot.worker.postMessage(m);
  }

  private maybeFinish(): void {
    const batch = this.batch;
    if (!batch || batch.queue.length > 0) return;
    for (const s of this.slots) if (s.job) return;
    this.batch = null;
    batch.resolve(batch.outcomes);
  }
}
