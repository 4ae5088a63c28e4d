import { runAdaptation } from '../../rl/adapt.js';
import { createRun, finishRun, type WritableDB } from '../../store/index.js';
import { CONTROL, type FromTrainingWorker, type WorkerJob } from '../training/protocol.js';

/**
 * The worker side of an adaptation job (core/workbench/training/worker.ts runs it): runAdaptation with the
 * store for recorded demonstrations, every progress event posted as it is, and the report posted
 * before 'done'. A stop is read from the shared control word at each progress event (an evaluation
 * episode, an SFT epoch, a GRPO iteration), so it takes effect there; runAdaptation then reports
 * the phases cut short as null and still saves an adapter whose training started.
 *
 * Every episode the adaptation runs (the demonstrations or GRPO rollouts on the shots, the before / after
 * evaluation) is recorded into a 'training' run of its own (config `trainer: 'adapt'`), so Trajectories lists them
 * by run and, for the rollouts, by GRPO iteration. A stop lets the episode in flight end, so the run holds whole
 * episodes only; it ends 'interrupted'.
 */
export async function runAdaptationJob(
  job: Extract<WorkerJob, { kind: 'adapt' }>, db: WritableDB, control: Int32Array, post: (m: FromTrainingWorker) => void,
): Promise<void> {
  const ac = new AbortController();
  const stopAsked = () => Atomics.load(control, 0) === CONTROL.stop;
  if (stopAsked()) ac.abort();
  const s = job.summary;
  const run = createRun(db, { kind: 'training', name: `adapt ${String(s.app)} ${String(s.method)} seed ${String(s.seed)}`, config: { trainer: 'adapt', ...s } });
  post({ type: 'started', runId: run.id, completed: 0, total: job.total });
  try {
    const report = await runAdaptation(job.options, {
      db, record: { db, runId: run.id }, signal: ac.signal, log: (m) => post({ type: 'progress', detail: m }),
      onProgress: (progress) => {
        post({ type: 'adapt-progress', progress });
        if (stopAsked()) ac.abort();
      },
    });
    finishRun(db, run.id, report.stoppedBy === 'done' ? 'finished' : 'interrupted');
    post({ type: 'adapt-report', report });
    post({ type: 'done', stoppedBy: report.stoppedBy, iterations: report.training.sft.length + report.training.grpo.length, checkpoint: null });
  } catch (e) {
    finishRun(db, run.id, 'interrupted');
    throw e;
  }
}
