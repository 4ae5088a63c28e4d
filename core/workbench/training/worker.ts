import { existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { openSimDroid } from '../../devices/provider.js';
import { trainerFile } from '../../rl/grpo-checkpoint.js';
import { TrainingDivergedError, trainGrpo } from '../../rl/train-grpo.js';
import { createRun, finishRun, getRun, openStore, resumeRun, type RunId, type WritableDB } from '../../store/index.js';
import { assertNever } from '../../util/errors.js';
import { CONTROL, JOB_FILE, type FromTrainingWorker, type JobFile, type WorkerData, type WorkerJob } from './protocol.js';

/**
 * The training worker (one per job, started by jobs.ts): runs trainGrpo, runSft or a per-app
 * adaptation (../adaptation/worker-adapt.ts), which write the run's metrics and episodes (rollouts,
 * demonstrations) to the store through its own connection (WAL; the workbench's connection reads
 * them), posts each iteration and state change,
 * and obeys the shared control word between iterations.
 */
const { job, control } = workerData as WorkerData;
const ctrl = new Int32Array(control);
const post = (m: FromTrainingWorker) => parentPort!.postMessage(m);

/** Between iterations: blocks while paused (nothing else runs in this thread then); true = stop. */
function gate(completed: number): boolean {
  if (Atomics.load(ctrl, 0) === CONTROL.pause) {
    post({ type: 'paused', completed });
    while (Atomics.load(ctrl, 0) === CONTROL.pause) Atomics.wait(ctrl, 0, CONTROL.pause);
    if (Atomics.load(ctrl, 0) === CONTROL.run) post({ type: 'resumed' });
  }
  return Atomics.load(ctrl, 0) === CONTROL.stop;
}

function writeJobFile(dir: string, f: JobFile): void {
  writeFileSync(join(dir, JOB_FILE), JSON.stringify(f, null, 2));
}

/** The store run a resumed checkpoint continues: its own if it is in this store, else a new one. */
function openRun(db: WritableDB, dir: string, name: string, config: Record<string, unknown>, previous: number | null): RunId {
  let id: RunId | null = null;
  if (previous !== null) {
    try {
      id = resumeRun(db, getRun(db, previous as RunId).id).run.id;
    } catch (e) {
      if (!(e instanceof Error && e.name === 'RunNotFoundError')) throw e;
    }
  }
  id ??= createRun(db, { kind: 'training', name, config }).id;
  writeJobFile(dir, { trainer: config.trainer as JobFile['trainer'], runId: id, dbPath: db.name, createdAt: Date.now() });
  return id;
}

/** Notices each new trainer.json (written by a temporary file renamed over it: a new inode). */
function checkpointWatcher(file: string): () => boolean {
  const sig = () => (existsSync(file) ? (({ ino, mtimeMs }) => `${ino}/${mtimeMs}`)(statSync(file)) : null);
  let last = sig();
  return () => {
    const now = sig();
    const changed = now !== null && now !== last;
    last = now;
    return changed;
  };
}

async function grpo(j: Extract<WorkerJob, { kind: 'grpo' }>, db: WritableDB): Promise<void> {
  const completed = j.resume?.completed ?? 0;
  const previousRun = j.resume?.previousRun ?? null;
  const c = j.config;
  const runId = openRun(db, j.outDir, `grpo ${c.split}/${c.part} seed ${c.seed}`, { trainer: 'grpo', ...c }, previousRun);
  post({ type: 'started', runId, completed, total: c.iterations });
  const ac = new AbortController();
  const wroteCheckpoint = checkpointWatcher(trainerFile(j.outDir));
  // The checkpoints this job wrote (a divergence names the last good one itself, a resumed one included).
  let checkpoint: number | null = null;
  try {
    const result = await trainGrpo({
      // trainGrpo writes the metrics and the rollouts (thinned by c.recording) into the run this job opened.
      config: c, outDir: j.outDir, resume: j.resume !== null, signal: ac.signal, rewardContext: { db, dataDir: dirname(j.dbPath) },
      db, runId, recordEpisodes: true, log: (m) => post({ type: 'progress', detail: m }),
      beforeIteration: async (done) => {
        if (gate(done)) ac.abort();
      },
      onIteration: ({ iteration, metrics }) => {
        const wrote = wroteCheckpoint();
        if (wrote) checkpoint = iteration;
        post({ type: 'iteration', iteration, metrics, checkpoint: wrote });
        if (Atomics.load(ctrl, 0) === CONTROL.stop) ac.abort();
      },
    });
    // trainGrpo leaves a checkpoint of where it ended (the end's, the stop's, or the resumed one when stopped at once).
    if (existsSync(trainerFile(j.outDir))) checkpoint = result.iterations;
    finishRun(db, runId, result.stoppedBy === 'done' ? 'finished' : 'interrupted');
    post({ type: 'done', stoppedBy: result.stoppedBy, iterations: result.iterations, checkpoint });
  } catch (e) {
    finishRun(db, runId, 'interrupted');
    if (e instanceof TrainingDivergedError) checkpoint = e.lastCheckpoint;
    throw Object.assign(e as Error, { checkpoint });
  }
}

async function sft(j: Extract<WorkerJob, { kind: 'sft' }>, db: WritableDB): Promise<void> {
  // Loaded here only: a GRPO job need not load the SFT modules.
  const { runSft } = await import('../../rl/train-sft.js');
  const c = j.config;
  const runId = openRun(db, j.outDir, `sft ${c.split}/${c.part} model seed ${c.modelSeed}`, { trainer: 'sft', ...c }, null);
  post({ type: 'started', runId, completed: 0, total: c.sft.epochs });
  const ac = new AbortController();
  // The last epoch whose policy.json was written (runSft writes it before onEpoch).
  let checkpoint: number | null = null;
  try {
    const device = openSimDroid({ serial: 'simdroid-sft' });
    let r;
    try {
      // pause and stop apply between demonstrations and between epochs
      r = await runSft(c, {
        device, checkpoint: { file: join(j.outDir, 'policy.json'), every: 'epoch' }, store: { db, runId }, signal: ac.signal,
        beforeDemonstration: (i, total) => {
          if (gate(0)) ac.abort();
          else post({ type: 'progress', detail: `oracle demonstrations ${i + 1}/${total}`, phase: { name: 'oracle demonstrations', done: i, total } });
        },
        onDemonstrations: ({ set }) => post({ type: 'progress', detail: `behaviour cloning on ${set.demos.length} steps` }),
        onEpoch: (m, metrics) => {
          checkpoint = m.epoch;
          post({ type: 'iteration', iteration: m.epoch, metrics, checkpoint: true });
          if (m.epoch < c.sft.epochs && gate(m.epoch)) ac.abort();
        },
      });
    } finally {
      device.close();
    }
    finishRun(db, runId, r.stoppedBy === 'done' ? 'finished' : 'interrupted');
    post({ type: 'done', stoppedBy: r.stoppedBy, iterations: r.history.length, checkpoint });
  } catch (e) {
    finishRun(db, runId, 'interrupted');
    throw Object.assign(e as Error, { checkpoint });
  }
}

async function main(): Promise<void> {
  const db = openStore(job.dbPath);
  try {
    switch (job.kind) {
      case 'grpo':
        return await grpo(job, db);
      case 'sft':
        return await sft(job, db);
      case 'transformer-sft': {
        // Loaded here only: the builtin trainers need not load the transformer's modules (onnxruntime-node).
        const { runTransformerSftJob } = await import('./worker-transformer.js');
        return await runTransformerSftJob(job, db, ctrl, post);
      }
      case 'transformer-grpo': {
        const { runTransformerGrpoJob } = await import('./worker-transformer.js');
        return await runTransformerGrpoJob(job, db, gate, post);
      }
      case 'adapt-transformer': {
        const { runTransformerAdaptationJob } = await import('../adaptation/worker-adapt-transformer.js');
        return await runTransformerAdaptationJob(job, db, ctrl, post);
      }
      case 'adapt': {
        // Loaded here only, as SFT's modules are: a training job need not load the adaptation code.
        const { runAdaptationJob } = await import('../adaptation/worker-adapt.js');
        return await runAdaptationJob(job, db, ctrl, post);
      }
      default:
        return assertNever(job, 'training job');
    }
  } finally {
    db.close();
  }
}

try {
  await main();
} catch (e) {
  const err = e instanceof Error ? e : new Error(String(e));
  post({ type: 'failed', error: { name: err.name, message: err.message }, checkpoint: (err as { checkpoint?: number | null }).checkpoint ?? null });
}
