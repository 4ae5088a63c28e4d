import { existsSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { openSimDroid } from '../../devices/provider.js';
import { trainTransformerGrpo } from '../../rl/transformer-grpo.js';
import { runTransformerSft } from '../../rl/transformer-sft.js';
import { sftEpochs } from '../../rl/transformer-config.js';
import { createRun, finishRun, putIterationMetrics, type RunId, type WritableDB } from '../../store/index.js';
import { CONTROL, JOB_FILE, type FromTrainingWorker, type JobFile, type WorkerJob } from './protocol.js';

/**
 * The worker side of the transformer policy's runs (worker.ts runs it): SFT from oracle demonstrations and GRPO /
 * AdaGRPO from an SFT model folder, each driving the trainer's Python session (core/rl/transformer-session.ts) from
 * this worker thread, so neither the API host nor the Electron main thread does the work. Each epoch's or iteration's
 * metrics go to the store run the job opens (the Training view charts them) and to the host.
 *
 * The model folder under <data folder>/checkpoints appears whole or not at all: SFT writes it in a staging folder
 * beside it (a dot name, never listed) and renames it into place when done; a stopped SFT run writes none. GRPO swaps
 * in each saved model whole (core/rl/transformer-grpo.ts), and a stop saves the model of the iterations completed.
 */
type Post = (m: FromTrainingWorker) => void;

function writeJobFile(dir: string, f: JobFile): void {
  writeFileSync(join(dir, JOB_FILE), JSON.stringify(f, null, 2));
}

/** The numbers of a metrics object (the trainer's epoch rows carry the epoch too). */
const numeric = (m: object): Record<string, number> =>
  Object.fromEntries(Object.entries(m).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1])));

/** Removes the job's checkpoint folder when it holds nothing (a run stopped or failed before writing a model). */
function dropIfEmpty(dir: string): void {
  if (existsSync(dir) && readdirSync(dir).length === 0) rmSync(dir, { recursive: true, force: true });
}

export async function runTransformerSftJob(j: Extract<WorkerJob, { kind: 'transformer-sft' }>, db: WritableDB, control: Int32Array, post: Post): Promise<void> {
  const c = j.config;
  const stopAsked = () => Atomics.load(control, 0) === CONTROL.stop;
  const run = createRun(db, { kind: 'training', name: `transformer-sft ${c.split}/${c.part} model seed ${c.modelSeed}`, config: { trainer: 'transformer-sft', ...c } });
  post({ type: 'started', runId: run.id, completed: 0, total: sftEpochs(c) });
  const staging = join(dirname(j.outDir), `.${basename(j.outDir)}.partial`);
  const ac = new AbortController();
  const device = openSimDroid({ serial: 'simdroid-transformer-sft' });
  // A stop is heard within a fraction of a second: the trainer then ends its epoch at the next minibatch.
  const poll = setInterval(() => {
    if (stopAsked()) ac.abort();
  }, 200);
  try {
    const r = await runTransformerSft(c, {
      device, outDir: staging, signal: ac.signal,
      onInstance: (i, n) => {
        if (stopAsked()) ac.abort();
        else post({ type: 'progress', detail: `oracle demonstrations ${i + 1}/${n}`, phase: { name: 'oracle demonstrations', done: i, total: n } });
      },
      onEpoch: (m) => {
        const metrics = numeric(m);
        putIterationMetrics(db, run.id, m.epoch, metrics);
        post({ type: 'iteration', iteration: m.epoch, metrics, checkpoint: false });
        if (stopAsked()) ac.abort();
      },
    });
    if (r.stoppedBy === 'done') {
      rmSync(j.outDir, { recursive: true, force: true });
      renameSync(staging, j.outDir);
      writeJobFile(j.outDir, { trainer: 'transformer-sft', runId: run.id, dbPath: db.name, createdAt: Date.now() });
    }
    finishRun(db, run.id, r.stoppedBy === 'done' ? 'finished' : 'interrupted');
    // The folders are cleared before 'done': whoever hears it may list the checkpoints at once.
    rmSync(staging, { recursive: true, force: true });
    dropIfEmpty(j.outDir);
    post({ type: 'done', stoppedBy: r.stoppedBy, iterations: r.history.length, checkpoint: r.stoppedBy === 'done' ? (r.history.at(-1)?.epoch ?? 0) : null });
  } catch (e) {
    finishRun(db, run.id, 'interrupted');
    throw e;
  } finally {
    clearInterval(poll);
    device.close();
    rmSync(staging, { recursive: true, force: true });
    dropIfEmpty(j.outDir);
  }
}

export async function runTransformerGrpoJob(
  j: Extract<WorkerJob, { kind: 'transformer-grpo' }>, db: WritableDB, gate: (completed: number) => boolean, post: Post,
): Promise<void> {
  const c = j.config;
  const runId: RunId = createRun(db, { kind: 'training', name: `transformer-grpo ${c.split}/${c.part} seed ${c.seed}`, config: { trainer: 'transformer-grpo', ...c } }).id;
  post({ type: 'started', runId, completed: 0, total: c.iterations });
  const ac = new AbortController();
  let checkpoint: number | null = null;
  try {
    const r = await trainTransformerGrpo({
      // trainTransformerGrpo writes the metrics and the rollouts (thinned by c.recording) into the run this job opened.
      config: c, outDir: j.outDir, db, runId, rewardContext: { db, dataDir: dirname(j.dbPath) }, recordEpisodes: true, signal: ac.signal,
      onIteration: ({ iteration, metrics }) => {
        const wrote = iteration % c.checkpointEvery === 0 || iteration === c.iterations;
        if (wrote) checkpoint = iteration;
        post({ type: 'iteration', iteration, metrics, checkpoint: wrote });
        // pause blocks this thread here, between iterations (the trainer session idles meanwhile)
        if (iteration < c.iterations && gate(iteration)) ac.abort();
      },
    });
    // a stop saves the model of the iterations completed
    if (r.stoppedBy === 'aborted' && r.iterations > 0) checkpoint = r.iterations;
    if (existsSync(join(j.outDir, 'config.json'))) writeJobFile(j.outDir, { trainer: 'transformer-grpo', runId, dbPath: db.name, createdAt: Date.now() });
    finishRun(db, runId, r.stoppedBy === 'done' ? 'finished' : 'interrupted');
    dropIfEmpty(j.outDir); // before 'done', as for SFT
    post({ type: 'done', stoppedBy: r.stoppedBy, iterations: r.iterations, checkpoint });
  } catch (e) {
    finishRun(db, runId, 'interrupted');
    if (existsSync(join(j.outDir, 'config.json'))) writeJobFile(j.outDir, { trainer: 'transformer-grpo', runId, dbPath: db.name, createdAt: Date.now() });
    throw Object.assign(e as Error, { checkpoint });
  } finally {
    dropIfEmpty(j.outDir);
  }
}
