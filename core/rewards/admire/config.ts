import { z } from 'zod';

/**
 * ADMIRE's reward settings (Zheng, Mo et al., "Adaptive Milestone Reward for GUI Agents", App. A.1.2
 * for the defaults, App. B.3 for the ablations). The switches cover the ablations and the places
 * where the paper reads two ways (see docs/rewards.md, "ADMIRE").
 */
export const AdmireConfigSchema = z.strictObject({
  delta: z.number().min(-1).max(1).default(0.75)
    .describe('δ: a step hits the next milestone when cos(ψ(step), ψ(milestone)) > δ (paper: 0.75, App. A.1.2)'),
  zeta: z.number().min(0).max(10).default(0.5)
    .describe('ζ: weight of the hit bonus on failed episodes (paper: 0.5, Alg. 1 line 31)'),
  lambda0: z.number().min(0).max(10).default(0.3)
    .describe('λ0: initial weight of the milestone reward in the total (paper: 0.3)'),
  gamma: z.number().min(0).max(1).default(0.99)
    .describe('γ: per-iteration decay of the weight, λ = λ0·γ^E (paper: 0.99; 1 = the "w/o Reward Decay" ablation)'),
  baseMode: z.enum(['running', 'final']).default('running')
    .describe("k in the failure base k/K: the hits so far up to and including the step (Alg. 1's loop, 'running') or the episode's total (Eq. 11's wording, 'final')"),
  afterLast: z.enum(['stop', 'rehit']).default('stop')
    .describe("After the last milestone is hit: nothing more can hit ('stop', the 'next uncompleted milestone' semantics) or the last one can be hit again (Alg. 1's p ← min(p+1, K), 'rehit')"),
  baseOnSuccess: z.boolean().default(false)
    .describe('Add k/K on successful episodes too (the "w/ Base Reward for Successful Traj." ablation; paper: off)'),
  baseOnFailure: z.boolean().default(true)
    .describe('Add k/K on failed episodes (off = the "w/o Base Reward for Fail Traj." ablation; paper: on)'),
  noMilestones: z.enum(['zero', 'unscored']).default('zero')
    .describe("A template without milestones yet (never succeeded): reward 0, outcome only as the paper implies ('zero'), or leave the steps unscored ('unscored')"),
  weighted: z.boolean().default(true)
    .describe('Report λ0·γ^E·R_mil (what enters the total, Alg. 1 line 34) rather than the raw R_mil'),
});
export type AdmireConfig = z.infer<typeof AdmireConfigSchema>;
export const DEFAULT_ADMIRE_CONFIG: AdmireConfig = AdmireConfigSchema.parse({});

export function parseAdmireConfig(input: unknown): AdmireConfig {
  return AdmireConfigSchema.parse(input ?? {});
}

/**
 * λ(E) = λ0 · γ^E, E the training iteration (ADMIRE Alg. 1 line 4; its epoch loop starts at E = 1, so
 * the first iteration already uses λ0·γ). "Epoch" in the paper is one rollout + update iteration.
 */
export function admireWeight(cfg: Pick<AdmireConfig, 'lambda0' | 'gamma'>, epoch: number): number {
  return cfg.lambda0 * cfg.gamma ** Math.max(0, epoch);
}
