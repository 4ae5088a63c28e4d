import type { AdaptProgress } from '../../rl/adapt.js';
import { assertNever } from '../../util/errors.js';
import type { JobInfo } from '../../api/training-types.js';

/**
 * An adaptation job's record after one progress event: `iteration` counts SFT epochs then GRPO
 * iterations (GRPO follows a finished SFT in 'sft+grpo', so its iterations start after the planned
 * epochs), and `detail` says what it is doing.
 */
export function progressPatch(p: AdaptProgress, job: Pick<JobInfo, 'config'>): Partial<JobInfo> {
  switch (p.phase) {
    case 'before':
    case 'after':
      return { detail: `${p.phase === 'before' ? 'base' : 'adapted'} policy on the test instances: ${p.done}/${p.total}` };
    case 'demonstrations':
      return { detail: `${p.steps} demonstrated steps from ${p.episodes} ${p.source === 'oracle' ? 'oracle' : 'recorded'} episodes (${p.appSteps} on the app)` };
    case 'sft':
      return { iteration: p.epoch, detail: `SFT epoch ${p.epoch}/${p.epochs}` };
    case 'grpo': {
      const sftEpochs = job.config.method === 'sft+grpo' && typeof job.config.epochs === 'number' ? job.config.epochs : 0;
      return { iteration: sftEpochs + p.iteration, detail: `GRPO iteration ${p.iteration}/${p.iterations}` };
    }
    case 'saved':
      return { detail: `adapter saved: ${p.path}` };
    default:
      return assertNever(p, 'adaptation progress');
  }
}
