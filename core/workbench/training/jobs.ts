import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { parseTrainConfig, TrainConfigError, type TrainConfig } from '../../rl/config.js';
import { demonstrationInstances, parseTrainSftConfig, TrainSftConfigError } from '../../rl/train-sft.js';
import { listIterationMetrics } from '../../store/training.js';
import { listRuns, type ReadableDB, type RunId } from '../../store/index.js';
import { assertNever } from '../../util/errors.js';
import type { AdaptationReport } from '../../rl/adapt.js';
import { reportName, saveReport } from '../adaptation/adapters.js';
import { prepareAdaptation } from '../adaptation/prepare.js';
import { prepareTransformerAdaptation, transformerBase } from '../adaptation/prepare-transformer.js';
import { progressPatch } from '../adaptation/progress.js';
import type { AdaptationEvent, AdaptationStart } from '../../api/adaptation-types.js';
import { CONTROL, type FromTrainingWorker, type WorkerData, type WorkerJob } from './protocol.js';
import {
  ENDED_JOB_STATES, TRAINER_KINDS, type JobInfo, type JobKind, type JobState, type TrainerKind, type TrainingEvent, type TrainingResume, type TrainingRunInfo, type TrainingStart,
} from '../../api/training-types.js';
import { PolicyChoiceError, trainableCheckpoint } from '../policy-choices.js';
import { prepareTransformerGrpo, prepareTransformerSft } from './transformer-start.js';
import { CHECKPOINT_NAME, checkpointsDir, listCheckpoints, readJobFile, readTrainerSummary } from '../checkpoints.js';
import { JobKindError, TrainingBusyError, TrainingConfigError, TrainingJobNotFoundError, TrainingStateError, TrainingStoreError } from '../job-errors.js';

/**
 * Background jobs: training (GRPO, SFT) and per-app adaptation, one job of any kind at a time, each
 * in a worker thread (core/workbench/training/worker.ts) so the API host stays responsive while it runs.
 * The worker writes a training run's metrics through its own store connection (SQLite WAL: readers
 * run beside it, writers take turns within the busy timeout; a training run writes one small
 * transaction per iteration), and posts each iteration here to be streamed as onTraining events;
 * an adaptation's progress and report are streamed as onAdaptation events. Pause and stop go
 * through a shared control word, read by the worker between iterations.
 */
export { JobKindError, TrainingBusyError, TrainingConfigError, TrainingJobNotFoundError, TrainingStateError, TrainingStoreError } from '../job-errors.js';

interface JobRecord {
  info: JobInfo;
  control: Int32Array;
  worker: Worker;
  exited: Promise<void>;
  /** An adaptation's report, once its worker posted it. */
  report: AdaptationReport | null;
}

export interface TrainingManagerOptions {
  /** The current data folder (checkpoints go under it) and store (the worker opens the same file). */
  dataDir(): string;
  db(): ReadableDB;
  log(message: string): void;
}

const ENTRY = new URL('./worker-entry.mjs', import.meta.url);
const ended = (s: JobState) => ENDED_JOB_STATES.includes(s);

export class TrainingManager {
  private readonly jobs = new Map<string, JobRecord>();
  private readonly listeners = new Set<(e: TrainingEvent) => void>();
  private readonly adaptListeners = new Set<(e: AdaptationEvent) => void>();
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
        // init names a checkpoint as the view lists it (or is a path): resolved here, so a typo is a
        // config problem, not a job that fails after its worker started.
        if (config.init !== null) {
          try {
            config.init = trainableCheckpoint(this.opts.dataDir(), config.init);
          } catch (e) {
            if (e instanceof PolicyChoiceError) throw new TrainingConfigError('grpo', [`init: ${e.message}`]);
            throw e;
          }
        }
        const outDir = this.newCheckpointDir('grpo');
        return this.spawn({ kind: 'grpo', config, outDir, job: (dbPath) => ({ kind: 'grpo', config, outDir, dbPath, resume: null }) });
      }
      case 'sft': {
        const config = parseOr('sft', () => parseTrainSftConfig(input.config ?? {}), TrainSftConfigError);
        if (demonstrationInstances(config).length === 0) {
          throw new TrainingConfigError('sft', ['(config): no demonstration instances (every one is a test instance, or the part is empty)']);
        }
        const outDir = this.newCheckpointDir('sft');
        return this.spawn({ kind: 'sft', config, outDir, job: (dbPath) => ({ kind: 'sft', config, outDir, dbPath }) });
      }
      case 'transformer-sft': {
        const config = prepareTransformerSft(input.config ?? {}, this.opts.dataDir());
        const outDir = this.newCheckpointDir('transformer-sft');
        return this.spawn({ kind: 'transformer-sft', config, outDir, job: (dbPath) => ({ kind: 'transformer-sft', config, outDir, dbPath }) });
      }
      case 'transformer-grpo': {
        const config = prepareTransformerGrpo(input.config ?? {}, this.opts.dataDir());
        const outDir = this.newCheckpointDir('transformer-grpo');
        return this.spawn({ kind: 'transformer-grpo', config, outDir, job: (dbPath) => ({ kind: 'transformer-grpo', config, outDir, dbPath }) });
      }
      default:
        return assertNever(input.kind, 'trainer kind');
    }
  }

  /** Checks the request (AdaptationInputError lists every problem) and starts before → adapt → after in a worker. */
  startAdaptation(input: AdaptationStart): JobInfo {
    this.assertIdle();
    const transformer = transformerBase(this.opts.dataDir(), input.policy);
    if (transformer !== null) {
      const t = prepareTransformerAdaptation(input, transformer, this.opts.dataDir());
      return this.spawn({ kind: 'adapt', config: t.summary, outDir: null, total: t.total, job: (dbPath) => ({ kind: 'adapt-transformer', prepared: t, dbPath }) });
    }
    const p = prepareAdaptation(input, { dataDir: this.opts.dataDir(), db: this.opts.db() });
    return this.spawn({ kind: 'adapt', config: p.summary, outDir: null, total: p.total, job: (dbPath) => ({ kind: 'adapt', options: p.options, dbPath, total: p.total, summary: p.summary }) });
  }

  pause(jobId: string): JobInfo {
    const r = this.get(jobId);
    if (r.info.kind === 'adapt' && !ended(r.info.state)) {
      throw new TrainingStateError(jobId, r.info.state, 'pause', 'an adaptation cannot be paused: stop it (an adapter whose training started is still saved)');
    }
    if (r.info.kind === 'transformer-sft' && !ended(r.info.state)) {
      throw new TrainingStateError(jobId, r.info.state, 'pause', 'a transformer SFT run cannot be paused (its epochs run in the trainer process): stop it, or let it finish');
    }
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

  /** Stops a job of `kind` only (JobKindError for another), or of any kind. */
  stop(jobId: string, kind?: JobKind): JobInfo {
    const r = this.get(jobId, kind);
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
      if (r.info.kind !== 'grpo' || !r.info.checkpoint) throw new TrainingStateError(input.jobId, state, 'resume', notResumable(r.info.kind));
      return this.resumeFrom(r.info.checkpoint.name, input.iterations);
    }
    return this.resumeFrom(input.checkpoint, input.iterations);
  }

  subscribe(listener: (e: TrainingEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  subscribeAdaptation(listener: (e: AdaptationEvent) => void): () => void {
    this.adaptListeners.add(listener);
    return () => this.adaptListeners.delete(listener);
  }

  /** An adaptation job's report: null until its worker posted it (and for a failed job, which has none). */
  report(jobId: string): AdaptationReport | null {
    return this.get(jobId, 'adapt').report;
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
        runId: run.id, name: run.name, trainer: (TRAINER_KINDS as readonly unknown[]).includes(trainer) ? (trainer as TrainerKind) : null, status: run.status,
        createdAt: run.createdAt, finishedAt: run.finishedAt, iterations: history.length, last: history.at(-1)?.metrics ?? null,
        checkpoint: checkpointOf.get(run.id) ?? null, job: job ? { id: job.id, state: job.state } : null, config: { ...run.config },
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
    this.adaptListeners.clear();
  }

  // ------------------------------------------------------------------------------------------

  private assertIdle(): void {
    const a = this.active();
    if (a) throw new TrainingBusyError(a.id, a.state, a.kind);
  }

  private get(jobId: string, kind?: JobKind): JobRecord {
    const r = this.jobs.get(jobId);
    if (!r) throw new TrainingJobNotFoundError(jobId);
    if (kind !== undefined && r.info.kind !== kind) throw new JobKindError(jobId, r.info.kind, kind);
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
    return this.spawn({
      kind: 'grpo', config, outDir: dir, completed: saved.iteration,
      job: (dbPath) => ({ kind: 'grpo', config, outDir: dir, dbPath, resume: { completed: saved.iteration, previousRun } }),
    });
  }

  private newCheckpointDir(kind: TrainerKind): string {
    const base = join(checkpointsDir(this.opts.dataDir()), `${kind}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    let dir = base;
    for (let n = 2; existsSync(dir); n++) dir = `${base}-${n}`;
    return dir;
  }

  /** `outDir`: the checkpoint folder a training job writes (null for an adaptation, whose adapter goes under the data folder). */
  private spawn(o: { kind: JobKind; config: object; outDir: string | null; job: (dbPath: string) => WorkerJob; completed?: number; total?: number }): JobInfo {
    const dbPath = this.opts.db().name;
    if (!dbPath || dbPath === ':memory:') throw new TrainingStoreError(dbPath);
    if (o.outDir) mkdirSync(o.outDir, { recursive: true });
    const control = new SharedArrayBuffer(4);
    const data: WorkerData = { job: o.job(dbPath), control };
    const worker = new Worker(ENTRY, { workerData: data });
    const info: JobInfo = {
      id: `job-${++this.seq}`, kind: o.kind, state: 'starting', runId: null, iteration: o.completed ?? 0, total: o.total ?? null, detail: 'starting the worker', phase: null,
      checkpoint: null, error: null, config: { ...o.config }, startedAt: Date.now(), endedAt: null,
    };
    let exited!: () => void;
    const r: JobRecord = { info, control: new Int32Array(control), worker, exited: new Promise<void>((res) => (exited = res)), report: null };
    this.jobs.set(info.id, r);
    const name = o.outDir?.split(/[\\/]/).at(-1) ?? '';
    worker.on('message', (m: FromTrainingWorker) => this.onWorker(r, m, name, o.outDir ?? ''));
    worker.on('error', (e) => this.end(r, 'failed', { error: { name: e.name, message: e.message } }));
    worker.on('exit', (code) => {
      if (!ended(r.info.state)) this.end(r, 'failed', { error: { name: 'TrainingWorkerExit', message: `the training worker exited (code ${code}) before the job ended` } });
      exited();
    });
    this.opts.log(`job ${info.id}: ${o.kind}${o.outDir ? ` → ${o.outDir}` : ` ${String(info.config.app ?? '')}`}`);
    this.emit({ kind: 'state', job: { ...info } });
    return { ...info };
  }

  private onWorker(r: JobRecord, m: FromTrainingWorker, name: string, dir: string): void {
    const control = Atomics.load(r.control, 0);
    switch (m.type) {
      case 'started':
        this.update(r, { runId: m.runId, iteration: m.completed, total: m.total, detail: null, state: r.info.state === 'starting' ? 'running' : r.info.state });
        return;
      case 'progress': {
        // A phase keeps the time it began across its progress messages.
        const same = m.phase && r.info.phase?.name === m.phase.name;
        const phase = m.phase ? (same ? { ...r.info.phase!, done: m.phase.done, total: m.phase.total } : { ...m.phase, startedAt: Date.now(), startDone: m.phase.done }) : null;
        this.update(r, { detail: m.detail, phase });
        return;
      }
      case 'iteration': {
        const patch: Partial<JobInfo> = { iteration: m.iteration, detail: null, phase: null };
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
      case 'adapt-progress': {
        // Per episode, epoch or iteration: streamed to onAdaptation; onTraining hears only state changes (the first event means running).
        const patch = progressPatch(m.progress, r.info);
        if (r.info.state === 'starting') this.update(r, { ...patch, state: 'running' });
        else Object.assign(r.info, patch);
        this.emitAdapt({ kind: 'progress', job: { ...r.info }, progress: m.progress });
        return;
      }
      case 'adapt-report':
        r.report = m.report;
        this.keepReport(r, m.report);
        this.emitAdapt({ kind: 'report', job: { ...r.info }, report: m.report });
        return;
      default:
        assertNever(m, 'training worker message');
    }
  }

  private end(r: JobRecord, state: 'stopped' | 'finished' | 'failed', patch: Partial<JobInfo>): void {
    if (ended(r.info.state)) return;
    if (state === 'failed') this.opts.log(`training ${r.info.id} failed: ${patch.error?.name}: ${patch.error?.message}`);
    this.update(r, { ...patch, state, detail: null, phase: null, endedAt: Date.now() });
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

  /** A job's state goes to onTraining (every kind: the one-job rule spans them), an adaptation's also to onAdaptation. */
  private emit(e: TrainingEvent): void {
    for (const l of this.listeners) l(e);
    if (e.kind === 'state' && e.job.kind === 'adapt') this.emitAdapt({ kind: 'state', job: e.job });
  }

  private emitAdapt(e: AdaptationEvent): void {
    for (const l of this.adaptListeners) l(e);
  }

  /** Writes the report under <data folder>/adaptations, so the adapters list can show before → after after a restart. */
  private keepReport(r: JobRecord, report: AdaptationReport): void {
    try {
      saveReport(this.opts.dataDir(), reportName(r.info.startedAt, report.app), report);
    } catch (e) {
      // The report is still served from memory (getAdaptationReport); only the adapters list loses it.
      this.opts.log(`adaptation ${r.info.id}: could not write its report: ${(e as Error).message}`);
    }
  }
}

function notResumable(kind: JobKind): string {
  switch (kind) {
    case 'sft':
      return 'an SFT run keeps no optimizer state: start a new one, or a GRPO run with init = its policy.json';
    case 'adapt':
      return 'an adaptation is not resumed: start a new one (it retrains the adapter)';
    case 'grpo':
      return 'it wrote no checkpoint';
    case 'transformer-sft':
    case 'transformer-grpo':
      return 'a transformer run keeps no optimizer state: start a new one with init = its model folder';
    default:
      return assertNever(kind, 'job kind');
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
