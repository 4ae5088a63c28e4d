import { z } from 'zod';
import { isRewardJobKind } from '../remote-jobs/prepare-rewards.js';
import { registerRewardModel } from '../remote-jobs/register-reward.js';
import { parseFlags, UsageError } from './args.js';
import { dataDir } from '../util/data-dir.js';
import { withRemoteJobs } from './jobs-common.js';
import type { Io } from './main.js';

export const REGISTER_USAGE = `awb jobs register JOB                           builtin-sft/grpo: copy policy.json to <data folder>/policies/ (awb eval --policy PATH);
                                                progrm/prm: check model.json and copy it to <data folder>/progrm/ or shepherd/<trainer>-<job>.json`;

/**
 * `awb jobs register JOB`: a builtin policy into <data folder>/policies/, a progrm / prm model beside
 * the reward components' default checkpoints (core/remote-jobs/register-reward.ts), printing the reward
 * config entry that scores with it.
 */
export async function registerCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags(argv, { db: { type: 'string' }, json: { type: 'boolean' } }, z.object({ db: z.string().optional(), json: z.boolean().optional() }));
  if (positionals.length !== 1) throw new UsageError('Usage: awb jobs register JOB');
  const ref = positionals[0]!;
  return withRemoteJobs(values.db, async (jobs) => {
    if (isRewardJobKind(jobs.resolve(ref).kind)) {
      const r = registerRewardModel(jobs, dataDir(), ref);
      if (values.json) {
        io.out(JSON.stringify({ rewardModel: r.path, checkpoint: r.checkpoint, component: r.component }));
        return 0;
      }
      io.out(`registered ${r.path}`);
      io.out('score with it: this component in a reward config (awb rewards compute --config FILE: {"components": [...]}) or in a training config\'s rewards.components');
      io.out(`  ${JSON.stringify(r.component)}`);
      return 0;
    }
    const row = jobs.registerPolicy(ref);
    io.out(values.json ? JSON.stringify({ policy: row.policyPath }) : `registered ${row.policyPath} (awb eval --policy ${row.policyPath})`);
    return 0;
  });
}
