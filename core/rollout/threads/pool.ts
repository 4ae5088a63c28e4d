import { Worker } from 'node:worker_threads';
import { WorkbenchError } from '../../util/errors.js';
import type { EpisodeResult, EpisodeStart, StepError, StepRecord } from '../../episode/record.js';
import type { EpisodeExtras, FromWorker, PoolRecorder, RolloutJob, ToWorker, WorkerConfig, WorkerModel, WorkerStepRecord } from './protocol.js';

/**
 * The worker-thread rollout scheduler: N SimDroids, each in a worker thread of its own, so
 * CPU-bound rollouts use N cores (devices this thread can drive, such as adb devices, go through
 * in-process.ts instead). Jobs go out first come first served (the AndroidWorld-Generalization
 * rollout design, digest 004 §5.3): each worker takes the next job the moment it is free, so a
 * slow episode never holds the others back. Records arrive on this thread, where a single writer
 * (the trajectory store) keeps them.
 *
 * One pool serves both kinds of caller: a training run keeps it for many batches (start once,
 * model parameters between batches), a suite or an eval opens it for one batch (run-pool.ts).
 * Both speak the protocol of protocol.ts to the same worker.ts.
 *
 * Failures: a job that throws in its worker, or whose worker dies mid-episode (an uncaught error,
 * `process.exit`, out of memory, a remote worker's lost connection), fails only that job
 * (`crashed: true` for a death); if its recorder saw the episode begin, the recording is ended there
 * as an environment error, so the store never keeps it 'running'. With `rerunCrashed`, a job whose
 * worker died runs once more, as a new episode (its recorder is asked for again), on the next free
 * worker; the failed attempt goes to `onRerun` instead of the outcomes. A fresh worker takes a dead
 * one's place. A first worker that dies before it is ready, or a recorder that throws, fails the
 * batch with a named error; a replacement that cannot start (its remote server went with the worker)
 * leaves the pool one smaller, and the batch fails only when no worker is left. A failed pool is
 * unusable and only `close()` remains.
 *
 * Workers are worker threads of this process by default; `startWorker` puts them elsewhere (remote
 * workers over a WebSocket, core/rollout/remote) behind the same small interface.
 */
/** What the pool needs of a worker: a worker thread satisfies it, and so does a remote worker (core/rollout/remote). */
export interface RolloutWorker {
  on(event: 'message', listener: (m: FromWorker) => void): unknown;
  /** An uncaught error in the worker (or a lost connection); 'exit' follows. */
  on(event: 'error', listener: (e: Error) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
  postMessage(m: ToWorker): void;
  /** Stops the worker; resolves once it is gone. */
  terminate(): Promise<unknown>;
}

export interface WorkerPoolOptions {
  workers: number;
  /** Config of the i-th worker started (0-based; replacements continue the count). */
  config: (index: number) => WorkerConfig;
  /** The worker script; default worker-entry.mjs (tests substitute one that crashes on purpose). */
  entry?: URL;
  /**
   * Starts a worker with a config; default a worker thread running `entry`. Null: no room for another
   * (every remote server is full or gone), so a dead worker is not replaced.
   */
  startWorker?: (config: WorkerConfig) => RolloutWorker | null;
}

export interface WorkerRunOptions {
  /** 'records' posts every step to the main thread (needed by a recorder); 'results' only each episode's end. */
  forward: WorkerConfig['forward'];
  /** A recorder for each job, on the main thread (e.g. a trajectory-store recorder). */
  recorder?: (job: RolloutJob) => PoolRecorder | undefined;
  onEpisode?: (job: RolloutJob, outcome: WorkerOutcome) => void;
  /** Run a job whose worker died once more (remote workers: the worker's machine may be gone, the job is fine). */
  rerunCrashed?: boolean;
  /** The failed attempt of a job that runs again (`rerunCrashed`): its recording, if it began, is ended as an environment error. */
  onRerun?: (job: RolloutJob, failed: Extract<WorkerOutcome, { ok: false }>) => void;
}

export type WorkerOutcome =
  | { ok: true; result: EpisodeResult; records: WorkerStepRecord[]; device: string }
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

/** Every worker died and none could take its place: the jobs left cannot run. */
export class NoWorkersLeftError extends WorkbenchError {
  override name = 'NoWorkersLeftError';
  constructor(readonly waiting: number, readonly lastReason: string) {
    super(`Worker pool: no worker is left to run the ${waiting} job(s) still waiting (the last one: ${lastReason})`);
  }
}

/** The rollout worker script (worker.ts behind tsx's loader). */
export const WORKER_ENTRY = new URL('./worker-entry.mjs', import.meta.url);

/** A worker thread running the rollout worker: the pool's default worker, and what a remote server runs for each connection. */
export function startWorkerThread(config: WorkerConfig, entry: URL = WORKER_ENTRY): Worker {
  return new Worker(entry, { workerData: config });
}

interface Slot {
  serial: string;
  worker: RolloutWorker;
  /** Reported ready at least once. */
  ready: boolean;
  /** Started in place of a worker that died. */
  replacement: boolean;
  started: { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void };
  /** Model version this worker last received. */
  modelVersion: number;
  job: RolloutJob | null;
  recorder: PoolRecorder | undefined;
  /** What reached this thread of the current episode: to end its recording if it fails. */
  start: EpisodeStart | undefined;
  steps: StepRecord[];
  ended: boolean;
  subgoals: EpisodeExtras['subgoals'];
  /** Messages of one worker are handled in order, even when a recorder is async. */
  chain: Promise<unknown>;
  /** The message of its 'error' event, if it had one. */
  crash: string | undefined;
}

interface Batch {
  queue: RolloutJob[];
  opts: WorkerRunOptions;
  outcomes: Map<string, WorkerOutcome>;
  /** Keys of the jobs already run again (`rerunCrashed`: once each). */
  rerun: Set<string>;
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
  /** Resolves once every first worker has booted its device; rejects with WorkerStartError if one could not. */
  readonly started: Promise<void>;

  private constructor(private readonly opts: WorkerPoolOptions) {
    const slots = Array.from({ length: opts.workers }, () => this.spawn(false)).filter((s) => s !== null);
    if (slots.length < opts.workers) {
      void Promise.all(slots.map((s) => s.worker.terminate()));
      throw new RangeError(`Worker pool: room for ${slots.length} of ${opts.workers} workers`);
    }
    this.started = Promise.all(slots.map((s) => s.started.promise)).then(() => {});
    // A caller that runs at once (open) learns of a start failure through its batch.
    this.started.catch(() => {});
  }

  /**
   * Starts `workers` workers without waiting for them: a batch run now goes out to each worker as
   * soon as it is ready (a one-shot run). A worker that cannot start fails that batch.
   */
  static open(opts: WorkerPoolOptions): WorkerPool {
    if (!Number.isInteger(opts.workers) || opts.workers < 1 || opts.workers > 64) {
      throw new RangeError(`Worker pool size must be an integer from 1 to 64, got ${opts.workers}`);
    }
    return new WorkerPool(opts);
  }

  /** Starts `workers` workers and waits until each has booted its device; on any failure, stops them all. */
  static async start(opts: WorkerPoolOptions): Promise<WorkerPool> {
    const pool = WorkerPool.open(opts);
    try {
      await pool.started;
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

  /** The parameters for 'builtin-sample' (and 'builtin-adapted-sample') jobs from the next batch on; each worker receives them once, before its first job. */
  setModel(model: WorkerModel): void {
    if (this.batch) throw new WorkerPoolStateError('busy');
    this.model = {
      encoder: model.encoder, dims: { ...model.dims }, params: model.params.slice(),
      ...(model.adapters ? { adapters: model.adapters.map((a) => ({ ...a, params: a.params.slice() })) } : {}),
    };
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
      this.batch = { queue: [...jobs], opts, outcomes: new Map(), rerun: new Set(), resolve, reject };
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
      // terminate() rather than asking each worker to exit: a SimDroid holds nothing outside its
      // thread, and a worker in the middle of an episode stops at once instead of finishing it.
      this.closing = Promise.all([...this.slots].map((s) => s.worker.terminate())).then(() => {
        this.slots.clear();
      });
    }
    return this.closing;
  }

  private spawn(replacement: boolean): Slot | null {
    const config = this.opts.config(this.spawned++);
    const worker = this.opts.startWorker ? this.opts.startWorker(config) : startWorkerThread(config, this.opts.entry);
    if (!worker) return null;
    let resolve!: () => void;
    let reject!: (e: Error) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // A replacement's start failure reaches the batch through fail(); only `started` awaits this promise.
    promise.catch(() => {});
    const started = { promise, resolve, reject };
    const slot: Slot = {
      serial: config.serial, worker, ready: false, replacement, started,
      modelVersion: 0, job: null, recorder: undefined, start: undefined, steps: [], ended: false, subgoals: undefined,
      chain: Promise.resolve(), crash: undefined,
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
        this.apply(slot, async () => {
          // The worker always ends or fails a job before it is ready again; guard the contract anyway.
          if (slot.job) await this.failJob(slot, { name: 'WorkerProtocolError', message: `worker ${slot.serial} was ready again without ending job ${slot.job.key}` }, false);
          slot.job = null;
          slot.recorder = undefined;
          this.dispatch(slot);
          this.maybeFinish();
        });
        return;
      case 'begin':
        this.apply(slot, () => {
          slot.start = m.start;
          if (m.subgoalNames) slot.subgoals = { names: m.subgoalNames, done: [] };
          return slot.recorder?.begin(m.start);
        });
        return;
      case 'step':
        if (m.before.screenshot) m.before.screenshot = Buffer.from(m.before.screenshot);
        this.apply(slot, () => {
          slot.steps.push(m.step);
          if (slot.subgoals && m.subgoalsDone !== undefined) slot.subgoals.done.push(m.subgoalsDone);
          return slot.recorder?.step(m.step, m.before);
        });
        return;
      case 'end':
        if (m.final.screenshot) m.final.screenshot = Buffer.from(m.final.screenshot);
        this.apply(slot, async () => {
          slot.ended = true;
          await slot.recorder?.end(m.result, m.final, this.extras(slot));
          this.complete(slot, { ok: true, result: m.result, records: m.records ?? [], device: slot.serial });
        });
        return;
      case 'failed':
        this.apply(slot, () => this.failJob(slot, m.error, false));
        return;
    }
  }

  private async onExit(slot: Slot, code: number): Promise<void> {
    if (this.closing) {
      this.slots.delete(slot);
      return;
    }
    const reason = slot.crash ?? `exited with code ${code}`;
    if (!slot.ready) {
      this.slots.delete(slot);
      const e = new WorkerStartError(slot.serial, reason);
      slot.started.reject(e);
      if (slot.replacement) this.starving(reason);
      else this.fail(e);
      return;
    }
    // The slot stays in the pool until its job is failed, so the batch cannot finish without it.
    await this.failJob(slot, { name: 'WorkerCrash', message: `worker ${slot.serial} died mid-episode: ${reason}` }, true);
    this.slots.delete(slot);
    slot.job = null;
    if (this.closing) return;
    if (!this.failure) this.spawn(true);
    this.starving(reason);
    this.maybeFinish();
  }

  /** With no worker left (none could take a dead one's place), nothing can run: fail the pool. */
  private starving(reason: string): void {
    if (this.slots.size > 0 || this.failure || this.closing) return;
    this.fail(new NoWorkersLeftError(this.batch?.queue.length ?? 0, reason));
  }

  /**
   * Fails the slot's job unless it already has an outcome. A recording that began is ended first,
   * as an environment error with what reached this thread (as the runner ends one whose device failed).
   */
  private async failJob(slot: Slot, error: StepError, crashed: boolean): Promise<void> {
    const job = slot.job;
    if (!job || !this.batch || this.batch.outcomes.has(job.key)) return;
    if (slot.recorder && slot.start && !slot.ended) {
      slot.ended = true;
      await slot.recorder.end(unfinishedResult(slot.start, slot.steps, error), { xml: '' }, this.extras(slot));
    }
    this.complete(slot, { ok: false, error, crashed, device: slot.serial, steps: slot.steps, ...(slot.start ? { start: slot.start } : {}) });
  }

  private extras(slot: Slot): EpisodeExtras {
    return slot.subgoals ? { subgoals: slot.subgoals } : {};
  }

  private complete(slot: Slot, outcome: WorkerOutcome): void {
    const batch = this.batch;
    const job = slot.job;
    if (!batch || !job) return;
    if (!outcome.ok && outcome.crashed && batch.opts.rerunCrashed && !batch.rerun.has(job.key)) {
      // First in line, so the re-run does not wait behind the rest of the batch; a worker idling for
      // want of jobs takes it at once.
      batch.rerun.add(job.key);
      batch.queue.unshift(job);
      batch.opts.onRerun?.(job, outcome);
      for (const s of this.slots) if (s !== slot && s.ready && !s.job) this.apply(s, () => this.dispatch(s));
      return;
    }
    batch.outcomes.set(job.key, outcome);
    batch.opts.onEpisode?.(job, outcome);
  }

  private dispatch(slot: Slot): void {
    const batch = this.batch;
    // A worker that exited while a dispatch was queued behind its exit takes no job.
    if (!batch || slot.job || this.closing || !this.slots.has(slot)) return;
    const job = batch.queue.shift();
    if (!job) return;
    if (this.model && slot.modelVersion !== this.modelVersion) {
      this.post(slot, { type: 'model', model: this.model });
      slot.modelVersion = this.modelVersion;
    }
    slot.job = job;
    slot.start = undefined;
    slot.steps = [];
    slot.ended = false;
    slot.subgoals = undefined;
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

/** What an unfinished episode's result is built from: its start as the worker reported it, or the caller's stand-in. */
export type UnfinishedStart = Pick<EpisodeStart, 'templateId' | 'seed' | 'instruction' | 'policy' | 'startedAt'>;

/** The result of an episode its worker did not finish: an environment error, with the steps that reached this thread. */
export function unfinishedResult(start: UnfinishedStart, steps: StepRecord[], error: StepError, now = Date.now()): EpisodeResult {
  return {
    templateId: start.templateId, seed: start.seed, instruction: start.instruction, policy: start.policy,
    steps, success: false, status: 'error', outcome: { actions: steps.flatMap((s) => (s.action ? [s.action] : [])) },
    terminatedBy: 'environment_error', error,
    timings: { resetMs: 0, checkMs: 0, totalMs: now - start.startedAt }, startedAt: start.startedAt, finishedAt: now,
  };
}
