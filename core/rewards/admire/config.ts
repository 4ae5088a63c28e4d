import { z } from 'zod';
import { ONNX_DTYPES } from './transformers-embedder.js';

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
 * ψ, the sentence embedder milestones and step descriptions are compared with: the built-in hashed
 * n-gram encoder (no model, microseconds per text), or a sentence-embedding model (the paper's
 * Sentence-BERT; e.g. all-MiniLM-L6-v2's ONNX export) run by transformers.js from a local folder.
 */
export const AdmireEmbedderSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('builtin'),
    dim: z.int().min(16).max(4096).default(256).describe('Hash buckets (256 keep "Tap Save" and "Tap Search" apart)'),
    charN: z.int().min(0).max(6).default(3).describe('Character n-gram length inside words, 0 for words only'),
  }),
  z.strictObject({
    kind: z.literal('transformers'),
    path: z.string().min(1).describe('Model folder in the Hugging Face layout (config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx); a relative path is under the data folder. Nothing is downloaded'),
    dtype: z.enum(ONNX_DTYPES).default('fp32').describe('ONNX weights to run: fp32 = onnx/model.onnx, q8 = onnx/model_quantized.onnx, …'),
    batchSize: z.int().min(1).max(1024).default(32).describe('Texts per inference call'),
    maxLength: z.int().min(8).max(8192).default(128).describe('Tokens per text before truncation'),
    threads: z.int().min(1).max(64).default(1).describe('ONNX Runtime intra-op threads (1: rewards share the cores with rollout workers)'),
  }),
]);
export type AdmireEmbedderOptions = z.infer<typeof AdmireEmbedderSchema>;

/**
 * λ(E) = λ0 · γ^E, E the training iteration (ADMIRE Alg. 1 line 4; its epoch loop starts at E = 1, so
 * the first iteration already uses λ0·γ). "Epoch" in the paper is one rollout + update iteration.
 */
export function admireWeight(cfg: Pick<AdmireConfig, 'lambda0' | 'gamma'>, epoch: number): number {
  return cfg.lambda0 * cfg.gamma ** Math.max(0, epoch);
}
