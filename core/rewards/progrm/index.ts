import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import type { RewardComponent } from '../component.js';
import { defineRewardModule, type RewardContext } from '../registry.js';
import { loadProgRm } from './fit.js';
import { ProgRmReward } from './reward.js';

export * from './annotate.js';
export * from './checkpoint.js';
export * from './collect.js';
export * from './evaluate.js';
export * from './fit.js';
export * from './lcs.js';
export * from './model.js';
export * from './reward.js';
export * from './study.js';
export * from './train.js';

/** The component's options for the reward registry. */
export const ProgRmOptions = z.strictObject({
  checkpoint: z.string().min(1).describe('A trained progress model (awb-progrm JSON); a relative path is under the data folder'),
  k: z.int().min(1).max(20).default(1).describe('Progress history length k in Prog(s_t) − Prog(s_{t−k}) (paper: 1; 3 in its ablation)'),
});
export type ProgRmOptions = z.infer<typeof ProgRmOptions>;

/**
 * The registry's entry (core/rewards/registry.ts loads `rewardModule` from here). A checkpoint written
 * by saveProgRm brings its recipe library, so explanations name the key steps.
 */
export const rewardModule = defineRewardModule({
  options: ProgRmOptions,
  create(o: ProgRmOptions, ctx: RewardContext): RewardComponent {
    const path = isAbsolute(o.checkpoint) || !ctx.dataDir ? o.checkpoint : join(ctx.dataDir, o.checkpoint);
    const { model, library, annotate } = loadProgRm(path);
    return new ProgRmReward(model, { k: o.k, library, annotate: { ...annotate, encoder: model.encoder } });
  },
});
