import type { AdaptProgress } from '../../rl/adapt.js';
import { assertNever } from '../../util/errors.js';
import type { JobInfo } from '../../api/training-types.js';

/**
 * An adaptation job's record after one progress event: `iteration` counts SFT epochs then GRPO
 * iterations (GRPO follows a finished SFT in 'sft+grpo', so its iterations start after the planned
 * epochs), and `detail` says what it is doing.
 */
export function progressPatch(p: AdaptProgress, job: Pick<JobInfo, 'config' | 'phase'>, now = Date.now()): Partial<JobInfo> {
  // A phase counted in its own units keeps the time it began (its first event), for the view's ETA at its pace.
  const phase = (name: string, done: number, total: number) => (job.phase?.name === name
    ? { ...job.phase, done, total } : { name, done, total, startedAt: now, startDone: done });
  switch (p.phase) {
    case 'before':
    case 'after': {
      const name = `${p.phase === 'before' ? 'base' : 'adapted'} policy on the test instances`;
      return { detail: `${name}: ${p.done}/${p.total}`, phase: phase(name, p.done, p.total) };
    }
    case 'demonstrating':
      return { detail: `oracle demonstrations ${p.done + 1}/${p.total}`, phase: phase('oracle demonstrations', p.done, p.total) };
    case 'demonstrations':
      return { detail: `${p.steps} demonstrated steps from ${p.episodes} ${p.source === 'oracle' ? 'oracle' : 'recorded'} episodes (${p.appSteps} on the app)`, phase: null };
    case 'sft':
      return { iteration: p.epoch, detail: `SFT epoch ${p.epoch}/${p.epochs}`, phase: phase('SFT epochs', p.epoch, p.epochs) };
    case 'grpo': {
      const sftEpochs = job.config.method === 'sft+grpo' && typeof job.config.epochs === 'number' ? job.config.epochs : 0;
      return { iteration: sftEpochs + p.iteration, detail: `GRPO iteration ${p.iteration}/${p.iterations}`, phase: phase('GRPO iterations', p.iteration, p.iterations) };
    }
    case 'saved':
      return { detail: `adapter saved: ${p.path}`, phase: null };
    default:
      return assertNever(p, 'adaptation progress');
  }
}
