import { runAdaptation } from '../../rl/adapt.js';
import type { ReadableDB } from '../../store/index.js';
import { CONTROL, type FromTrainingWorker, type WorkerJob } from '../training/protocol.js';

/**
 * The worker side of an adaptation job (core/workbench/training/worker.ts runs it): runAdaptation with the
 * store for recorded demonstrations, every progress event posted as it is, and the report posted
 * before 'done'. A stop is read from the shared control word at each progress event (an evaluation
 * episode, an SFT epoch, a GRPO iteration), so it takes effect there; runAdaptation then reports
 * the phases cut short as null and still saves an adapter whose training started.
 */
export async function runAdaptationJob(
  job: Extract<WorkerJob, { kind: 'adapt' }>, db: ReadableDB, control: Int32Array, post: (m: FromTrainingWorker) => void,
): Promise<void> {
  const ac = new AbortController();
  const stopAsked = () => Atomics.load(control, 0) === CONTROL.stop;
  if (stopAsked()) ac.abort();
  const report = await runAdaptation(job.options, {
    db, signal: ac.signal,
    onProgress: (progress) => {
      post({ type: 'adapt-progress', progress });
      if (stopAsked()) ac.abort();
    },
  });
  post({ type: 'adapt-report', report });
  post({ type: 'done', stoppedBy: report.stoppedBy, iterations: report.training.sft.length + report.training.grpo.length, checkpoint: null });
}
