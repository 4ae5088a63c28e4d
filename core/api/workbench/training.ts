import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { demonstrationInstances, parseTrainSftConfig, TrainSftConfigError } from '../../cli/train-sft.js';
import { parseTrainConfig, TrainConfigError, type TrainConfig } from '../../rl/config.js';
import { listIterationMetrics } from '../../store/training.js';
import { listRuns, type ReadableDB, type RunId } from '../../store/index.js';
import { assertNever, WorkbenchError } from '../../util/errors.js';
import { CONTROL, type FromTrainingWorker, type WorkerData, type WorkerJob } from '../training/protocol.js';
import {
  ENDED_JOB_STATES, type JobInfo, type JobState, type TrainerKind, type TrainingEvent, type TrainingResume, type TrainingRunInfo, type TrainingStart,
} from '../training/types.js';
import { CHECKPOINT_NAME, checkpointsDir, listCheckpoints, readJobFile, readTrainerSummary } from './checkpoints.js';

/**
 * Training jobs: one at a time, each in a worker thread (core/api/training/worker.ts) so the API
 * host stays responsive while it trains. The worker writes the run's metrics through its own store
 * connection (SQLite WAL: readers run beside it, writers take turns within the busy timeout; a
 * training run writes one small transaction per iteration), and posts each iteration here to be
 * streamed as onTraining events. Pause and stop go through a shared control word, read by the
 * worker between iterations.
 */
export class TrainingConfigError extends WorkbenchError {
  override name = 'TrainingConfigError';
  /** The problems by field path (as ApiInputError's, so the form can mark each field). */
  readonly issues: Array<{ path: string; message: string }>;
  constructor(readonly kind: TrainerKind, readonly problems: string[]) {
    super(`Invalid ${kind} config (${problems.length} problem${problems.length === 1 ? '' : 's'}): ${problems.join('; ')}`);
    this.issues = problems.map((p) => {
      const at = p.indexOf(': ');
      return at > 0 ? { path: p.slice(0, at), message: p.slice(at + 2) } : { path: '', message: p };
    });
  }
}

export class TrainingBusyError extends WorkbenchError {
  override name = 'TrainingBusyError';
  constructor(readonly jobId: string, readonly state: JobState) {
    super(`Training job ${jobId} is ${state}: one training job runs at a time; stop it first`);
  }
}

export class TrainingJobNotFoundError extends WorkbenchError {
  override name = 'TrainingJobNotFoundError';
  constructor(readonly jobId: string) {
    super(`No training job ${JSON.stringify(jobId)} in this workbench`);
  }
}

export class TrainingStateError extends WorkbenchError {
  override name = 'TrainingStateError';
  constructor(readonly jobId: string, readonly state: JobState, readonly wanted: string, hint = '') {
    super(`Cannot ${wanted} training job ${jobId}: it is ${state}${hint ? `; ${hint}` : ''}`);
  }
}

export class TrainingStoreError extends WorkbenchError {
  override name = 'TrainingStoreError';
  constructor(readonly dbPath: string) {
    super(`Training needs a trajectory store file its worker can open too, got ${JSON.stringify(dbPath)}`);
  }
}

interface JobRecord {
  info: JobInfo;
  control: Int32Array;
  worker: Worker;
  exited: Promise<void>;
}

export interface TrainingManagerOptions {
  /** The current data folder (checkpoints go under it) and store (the worker opens the same file). */
  dataDir(): string;
  db(): ReadableDB;
  log(message: string): void;
}

const ENTRY = new URL('../training/worker-entry.mjs', import.meta.url);
const ended = (s: JobState) => ENDED_JOB_STATES.includes(s);

export class TrainingManager {
  private readonly jobs = new Map<string, JobRecord>();
  private readonly listeners = new Set<(e: TrainingEvent) => void>();
  private seq = 0;

  constructor(private readonly opts: TrainingManagerOptions) {}

  /** The job that is not over yet, if any. */
  active(): JobInfo | null {
    for (const r of this.jobs.values()) if (!ended(r.info.state)) return r.info;
    return null;
  }

  list(): JobInfo[] {
    return [...this.jobs.values()].map((r) => ({ ...r.info }));
  }

  start(input: TrainingStart): JobInfo {
    this.assertIdle();
    switch (input.kind) {
      case 'grpo': {
        const config = parseOr('grpo', () => parseTrainConfig(input.config ?? {}), TrainConfigError);
        // Checked here so a typo is a config problem, not a job that fails after its worker started.
        if (config.init !== null && !existsSync(config.init)) throw new TrainingConfigError('grpo', [`init: no such checkpoint file ${config.init}`]);
        return this.spawn('grpo', config, this.newCheckpointDir('grpo'), (outDir, dbPath) => ({ kind: 'grpo', config, outDir, dbPath, resume: null }));
      }
      case 'sft': {
        const config = parseOr('sft', () => parseTrainSftConfig(input.config ?? {}), TrainSftConfigError);
        if (demonstrationInstances(config).length === 0) {
          throw new TrainingConfigError('sft', ['(config): no demonstration instances (every one is a test instance, or the part is empty)']);
        }
        return this.spawn('sft', config, this.newCheckpointDir('sft'), (outDir, dbPath) => ({ kind: 'sft', config, outDir, dbPath }));
      }
      default:
        return assertNever(input.kind, 'trainer kind');
    }
  }

  pause(jobId: string): JobInfo {
    const r = this.get(jobId);
    switch (r.info.state) {
      case 'pausing':
      case 'paused':
        return { ...r.info };
      case 'starting':
      case 'running':
        this.setControl(r, CONTROL.pause);
        return this.update(r, { state: 'pausing' });
      case 'stopping':
      case 'stopped':
      case 'finished':
      case 'failed':
        throw new TrainingStateError(jobId, r.info.state, 'pause');
      default:
        return assertNever(r.info.state, 'job state');
    }
  }

  stop(jobId: string): JobInfo {
    const r = this.get(jobId);
    if (r.info.state === 'stopping') return { ...r.info };
    if (ended(r.info.state)) throw new TrainingStateError(jobId, r.info.state, 'stop');
    this.setControl(r, CONTROL.stop);
    return this.update(r, { state: 'stopping' });
  }

  /** A paused job continues in its worker; an ended GRPO job or a checkpoint by name resumes from its checkpoint in a new job. */
  resume(input: TrainingResume): JobInfo {
    if ('jobId' in input) {
      const r = this.get(input.jobId);
      const state = r.info.state;
      if (state === 'paused' || state === 'pausing') {
        if (input.iterations !== undefined) {
          throw new TrainingStateError(input.jobId, state, 'extend', 'a running job keeps its plan: stop it, then resume its checkpoint with more iterations');
        }
        this.setControl(r, CONTROL.run);
        return this.update(r, { state: 'running' });
      }
      if (!ended(state)) throw new TrainingStateError(input.jobId, state, 'resume', 'it is not paused');
      if (r.info.kind !== 'grpo' || !r.info.checkpoint) {
        throw new TrainingStateError(input.jobId, state, 'resume', r.info.kind === 'sft'
          ? 'an SFT run keeps no optimizer state: start a new one, or a GRPO run with init = its policy.json'
          : 'it wrote no checkpoint');
      }
      return this.resumeFrom(r.info.checkpoint.name, input.iterations);
    }
    return this.resumeFrom(input.checkpoint, input.iterations);
  }

  subscribe(listener: (e: TrainingEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Training runs in the store, newest first, with their checkpoint and this process's job. */
  runs(): TrainingRunInfo[] {
    const db = this.opts.db();
    const checkpointOf = new Map(listCheckpoints(this.opts.dataDir()).filter((c) => c.runId !== null).map((c) => [c.runId, c.name]));
    const jobOf = new Map([...this.jobs.values()].filter((r) => r.info.runId !== null).map((r) => [r.info.runId, r.info]));
    return listRuns(db).filter((run) => run.kind === 'training').map((run) => {
      const history = listIterationMetrics(db, run.id);
      const job = jobOf.get(run.id);
      const trainer = run.config.trainer ?? run.name.split(' ')[0];
      return {
        runId: run.id, name: run.name, trainer: trainer === 'grpo' || trainer === 'sft' ? trainer : null, status: run.status,
        createdAt: run.createdAt, finishedAt: run.finishedAt, iterations: history.length, last: history.at(-1)?.metrics ?? null,
        checkpoint: checkpointOf.get(run.id) ?? null, job: job ? { id: job.id, state: job.state } : null,
      };
    });
  }

  metrics(runId: number) {
    return listIterationMetrics(this.opts.db(), runId as RunId);
  }

  /** Stops the running job (it writes its checkpoint); a worker that does not end in time is terminated. */
  async close(timeoutMs = 5000): Promise<void> {
    const waits: Array<Promise<unknown>> = [];
    for (const r of this.jobs.values()) {
      if (ended(r.info.state)) continue;
      this.setControl(r, CONTROL.stop);
      waits.push(Promise.race([r.exited, new Promise((res) => setTimeout(res, timeoutMs).unref())]).then(() => r.worker.terminate()));
    }
    await Promise.all(waits);
    this.listeners.clear();
  }

  // ------------------------------------------------------------------------------------------

  private assertIdle(): void {
    const a = this.active();
    if (a) throw new TrainingBusyError(a.id, a.state);
  }

  private get(jobId: string): JobRecord {
    const r = this.jobs.get(jobId);
    if (!r) throw new TrainingJobNotFoundError(jobId);
    return r;
  }

  private resumeFrom(name: string, iterations: number | undefined): JobInfo {
    this.assertIdle();
    if (!CHECKPOINT_NAME.test(name)) throw new TrainingConfigError('grpo', [`checkpoint: not a checkpoint name, got ${JSON.stringify(name)}`]);
    const dir = join(checkpointsDir(this.opts.dataDir()), name);
    const saved = readTrainerSummary(name, dir);
    const total = Math.max(saved.config.iterations, iterations ?? 0);
    if (saved.iteration >= total) {
      throw new TrainingConfigError('grpo', [`iterations: ${name} has completed all ${saved.iteration} iterations; give iterations > ${saved.iteration} to continue it`]);
    }
    const config: TrainConfig = { ...saved.config, iterations: total };
    const own = readJobFile(dir);
    const previousRun = own && own.dbPath === this.opts.db().name ? own.runId : saved.runId;
    return this.spawn('grpo', config, dir, (outDir, dbPath) => ({
      kind: 'grpo', config, outDir, dbPath, resume: { completed: saved.iteration, previousRun },
    }), saved.iteration);
  }

  private newCheckpointDir(kind: TrainerKind): string {
    const base = join(checkpointsDir(this.opts.dataDir()), `${kind}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    let dir = base;
    for (let n = 2; existsSync(dir); n++) dir = `${base}-${n}`;
    return dir;
  }

  private spawn(kind: TrainerKind, config: object, outDir: string, job: (outDir: string, dbPath: string) => WorkerJob, completed = 0): JobInfo {
    const dbPath = this.opts.db().name;
    if (!dbPath || dbPath === ':memory:') throw new TrainingStoreError(dbPath);
    mkdirSync(outDir, { recursive: true });
    const control = new SharedArrayBuffer(4);
    const data: WorkerData = { job: job(outDir, dbPath), control };
    const worker = new Worker(ENTRY, { workerData: data });
    const info: JobInfo = {
      id: `job-${++this.seq}`, kind, state: 'starting', runId: null, iteration: completed, total: null, detail: 'starting the worker',
      checkpoint: null, error: null, config: { ...config }, startedAt: Date.now(), endedAt: null,
    };
    let exited!: () => void;
    const r: JobRecord = { info, control: new Int32Array(control), worker, exited: new Promise<void>((res) => (exited = res)) };
    this.jobs.set(info.id, r);
    const name = outDir.split(/[\\/]/).at(-1)!;
    worker.on('message', (m: FromTrainingWorker) => this.onWorker(r, m, name, outDir));
    worker.on('error', (e) => this.end(r, 'failed', { error: { name: e.name, message: e.message } }));
    worker.on('exit', (code) => {
      if (!ended(r.info.state)) this.end(r, 'failed', { error: { name: 'TrainingWorkerExit', message: `the training worker exited (code ${code}) before the job ended` } });
      exited();
    });
    this.opts.log(`training ${info.id}: ${kind} → ${outDir}`);
    this.emit({ kind: 'state', job: { ...info } });
    return { ...info };
  }

  private onWorker(r: JobRecord, m: FromTrainingWorker, name: string, dir: string): void {
    const control = Atomics.load(r.control, 0);
    switch (m.type) {
      case 'started':
        this.update(r, { runId: m.runId, iteration: m.completed, total: m.total, detail: null, state: r.info.state === 'starting' ? 'running' : r.info.state });
        return;
      case 'progress':
        this.update(r, { detail: m.detail });
        return;
      case 'iteration': {
        const patch: Partial<JobInfo> = { iteration: m.iteration, detail: null };
        if (m.checkpoint) patch.checkpoint = { name, dir, iteration: m.iteration };
        Object.assign(r.info, patch);
        this.emit({ kind: 'iteration', job: { ...r.info }, iteration: m.iteration, metrics: m.metrics });
        return;
      }
      case 'paused':
        if (control === CONTROL.pause) this.update(r, { state: 'paused' });
        return;
      case 'resumed':
        if (control === CONTROL.run && r.info.state !== 'running') this.update(r, { state: 'running' });
        return;
      case 'done':
        this.end(r, m.stoppedBy === 'done' ? 'finished' : 'stopped', {
          iteration: m.iterations, ...(m.checkpoint !== null ? { checkpoint: { name, dir, iteration: m.checkpoint } } : {}),
        });
        return;
      case 'failed':
        this.end(r, 'failed', { error: m.error, ...(m.checkpoint !== null ? { checkpoint: { name, dir, iteration: m.checkpoint } } : {}) });
        return;
      default:
        assertNever(m, 'training worker message');
    }
  }

  private end(r: JobRecord, state: 'stopped' | 'finished' | 'failed', patch: Partial<JobInfo>): void {
    if (ended(r.info.state)) return;
    if (state === 'failed') this.opts.log(`training ${r.info.id} failed: ${patch.error?.name}: ${patch.error?.message}`);
    this.update(r, { ...patch, state, detail: null, endedAt: Date.now() });
  }

  private setControl(r: JobRecord, value: number): void {
    Atomics.store(r.control, 0, value);
    Atomics.notify(r.control, 0);
  }

  private update(r: JobRecord, patch: Partial<JobInfo>): JobInfo {
    Object.assign(r.info, patch);
    const job = { ...r.info };
    this.emit({ kind: 'state', job });
    return job;
  }

  private emit(e: TrainingEvent): void {
    for (const l of this.listeners) l(e);
  }
}

/** Runs a trainer's config parser, turning its problems into one TrainingConfigError. */
function parseOr<T>(kind: TrainerKind, parse: () => T, errorClass: typeof TrainConfigError | typeof TrainSftConfigError): T {
  try {
    return parse();
  } catch (e) {
    if (e instanceof errorClass) throw new TrainingConfigError(kind, e.problems);
    throw e;
  }
}
