import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { WorkbenchError } from '../../util/errors.js';
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

/** Where `awb rewards fit progrm` writes and the component reads the model, under the data folder. */
export const DEFAULT_PROGRM_CHECKPOINT = join('progrm', 'model.json');

/** The component's options for the reward registry. */
export const ProgRmOptions = z.strictObject({
  checkpoint: z.string().min(1).default(DEFAULT_PROGRM_CHECKPOINT)
    .describe(`A trained progress model (awb-progrm JSON, from awb rewards fit progrm); a relative path is under the data folder (default <dataDir>/${DEFAULT_PROGRM_CHECKPOINT})`),
  k: z.int().min(1).max(20).default(1).describe('Progress history length k in Prog(s_t) − Prog(s_{t−k}) (paper: 1; 3 in its ablation)'),
});
export type ProgRmOptions = z.infer<typeof ProgRmOptions>;

export class ProgRmCheckpointMissingError extends WorkbenchError {
  override name = 'ProgRmCheckpointMissingError';
  constructor(readonly checkpoint: string) {
    super(`The ProgRM checkpoint ${JSON.stringify(checkpoint)} is relative and there is no data folder to resolve it in; give an absolute options.checkpoint`);
  }
}

/** No model file where the component looks: the usual cause is that none was fitted yet, so the message says how. */
export class ProgRmModelMissingError extends WorkbenchError {
  override name = 'ProgRmModelMissingError';
  constructor(readonly checkpoint: string) {
    super(`No ProgRM model at ${checkpoint}: fit one with \`awb rewards fit progrm\` (or point options.checkpoint at one)`);
  }
}

/**
 * The registry's entry (core/rewards/registry.ts loads `rewardModule` from here). A checkpoint written
 * by saveProgRm brings its recipe library, so explanations name the key steps.
 */
export const rewardModule = defineRewardModule({
  options: ProgRmOptions,
  create(o: ProgRmOptions, ctx: RewardContext): RewardComponent {
    let path = o.checkpoint;
    if (!isAbsolute(path)) {
      if (!ctx.dataDir) throw new ProgRmCheckpointMissingError(path);
      path = join(ctx.dataDir, path);
    }
    if (!existsSync(path)) throw new ProgRmModelMissingError(path);
    const { model, library, annotate } = loadProgRm(path);
    return new ProgRmReward(model, { k: o.k, library, annotate: { ...annotate, encoder: model.encoder } });
  },
});
