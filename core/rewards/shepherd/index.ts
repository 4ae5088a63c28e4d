import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { assertNever } from '../../util/errors.js';
import type { RewardComponent } from '../component.js';
import type { RewardContext } from '../registry.js';
import { BuiltinJudge, loadJudge } from './builtin.js';
import type { StepJudge } from './judge.js';
import { SHEPHERD_MAPPINGS, ShepherdReward } from './reward.js';
import { VlmJudge, VlmJudgeConfigSchema } from './vlm.js';

/**
 * The registry's entry for kind 'shepherd' (core/rewards/registry.ts loads `rewardModule` from here).
 * Options: the mapping from P(correct) to the reward, and the judge: the builtin classifier from a
 * checkpoint (default <dataDir>/shepherd/judge.json) or a VLM endpoint.
 *
 * The VLM judge reads each step's screenshot from `RewardStep.screenshot` (filled from the store by
 * rewardEpisodeFromTrajectory); a step recorded without one is left unjudged, saying so.
 * ShepherdReward's `screenshotsOf` option overrides where they come from.
 */
export const ShepherdOptions = z.strictObject({
  mapping: z.enum(SHEPHERD_MAPPINGS).default('probability').describe('P(correct) → reward: probability p, centered 2p−1, binary 𝕀(p ≥ 0.5)'),
  judge: z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('builtin'), checkpoint: z.string().min(1).optional().describe('Judge checkpoint (JSON); a relative path is under the data folder; default <dataDir>/shepherd/judge.json') }),
    VlmJudgeConfigSchema.extend({ kind: z.literal('vlm') }),
  ]).default({ kind: 'builtin' }),
});
export type ShepherdOptions = z.infer<typeof ShepherdOptions>;

/** Where `awb rewards fit shepherd` writes and the builtin judge reads its checkpoint, under the data folder. */
export const DEFAULT_JUDGE_CHECKPOINT = join('shepherd', 'judge.json');

export class ShepherdJudgeMissingError extends Error {
  override name = 'ShepherdJudgeMissingError';
  constructor() {
    super('The builtin shepherd judge needs options.judge.checkpoint or a data folder holding shepherd/judge.json');
  }
}

export function createShepherdJudge(o: ShepherdOptions['judge'], ctx: RewardContext): StepJudge {
  switch (o.kind) {
    case 'builtin': {
      // As progrm's checkpoint: a relative path is under the data folder when there is one.
      const named = o.checkpoint ?? DEFAULT_JUDGE_CHECKPOINT;
      const path = isAbsolute(named) ? named : ctx.dataDir ? join(ctx.dataDir, named) : o.checkpoint;
      if (!path) throw new ShepherdJudgeMissingError();
      return new BuiltinJudge(loadJudge(path).model);
    }
    case 'vlm': {
      const { kind: _kind, ...config } = o;
      return new VlmJudge(config);
    }
    default:
      return assertNever(o, 'shepherd judge');
  }
}

export const rewardModule = {
  options: ShepherdOptions,
  create(o: ShepherdOptions, ctx: RewardContext): RewardComponent {
    return new ShepherdReward(createShepherdJudge(o.judge, ctx), { mapping: o.mapping });
  },
};
