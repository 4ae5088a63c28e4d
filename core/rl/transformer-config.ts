import { z } from 'zod';
import { DEFAULT_LAYOUT, type Layout } from '../policy/transformer/layout.js';
import { PARTS, SPLITS } from '../tasks/splits.js';

/**
 * The transformer policy's shape and its SFT run's config (docs/policy-transformer.md). Validated once; the trainer
 * gets the shape as the model config it builds (resources/trainer/awb_trainer/transformer/model.py ModelConfig).
 */
export const TransformerShapeSchema = z.strictObject({
  width: z.int().min(16).max(1024).default(128).describe('Width d of the screen transformer (default 128)'),
  heads: z.int().min(1).max(32).default(4).describe('Attention heads of the screen transformer (default 4)'),
  screenLayers: z.int().min(1).max(24).default(3).describe('Layers of the screen transformer over [CLS; goal tokens; items] (default 3)'),
  textInit: z.enum(['scratch', 'minilm']).default('scratch')
    .describe("The text encoder: 'scratch' (random) or 'minilm' (all-MiniLM-L6-v2's weights: width 384, 12 heads, FFN 1536)"),
  textTrain: z.enum(['full', 'frozen', 'lora']).default('full').describe('How the text encoder trains: fully, frozen, or LoRA on its query/value maps (default full)'),
  textLayers: z.int().min(0).max(6).default(0).describe('Transformer layers of the text encoder over each text alone (default 0: embeddings only; MiniLM has 6)'),
  textWidth: z.int().min(16).max(1024).default(128).describe('Width of the text encoder (default 128; 384 for minilm)'),
  textHeads: z.int().min(1).max(32).default(4).describe('Heads of the text encoder (default 4; 12 for minilm)'),
  textFfn: z.int().min(16).max(8192).default(512).describe('Feed-forward width of the text encoder (default 512; 1536 for minilm)'),
  textLoraRank: z.int().min(1).max(256).default(8).describe('LoRA rank when textTrain is lora (default 8)'),
  goalMatch: z.boolean().default(true)
    .describe("Give each item its token overlap with the goal, as features and a pointer bias, so the pointer can pick what the goal names even when the name was never trained on (default true)"),
  appIdentity: z.boolean().default(true)
    .describe("Let an app item's name feed its vector; false leaves only its goal overlap and features, so apps never the answer in training are not ranked down by name (needs goalMatch; default true)"),
  rowMatch: z.boolean().default(false)
    .describe("Give each element the goal overlap of the elements on its row, so the pointer can tell apart a list's same-labelled buttons by the row's title (needs goalMatch; default false)"),
  textField: z.boolean().default(true)
    .describe("Let input_text's span head read the field the pointer would type into, so a form's fields each get their own part of the goal (default true; folders trained before it load without it)"),
  spanContext: z.boolean().default(true)
    .describe("Let each copyable token's span score read its two neighbours' embeddings, where a span's ends show (a quote, the goal's end) (default true; folders trained before it load without it)"),
  goalTokens: z.int().min(8).max(512).default(DEFAULT_LAYOUT.goalTokens).describe(`Goal tokens read (default ${DEFAULT_LAYOUT.goalTokens})`),
  itemTokens: z.int().min(2).max(64).default(DEFAULT_LAYOUT.itemTokens).describe(`Tokens read per item (default ${DEFAULT_LAYOUT.itemTokens})`),
  maxElements: z.int().min(8).max(512).default(DEFAULT_LAYOUT.maxElements).describe(`Elements read per screen (default ${DEFAULT_LAYOUT.maxElements})`),
  maxSpan: z.int().min(1).max(64).default(DEFAULT_LAYOUT.maxSpan).describe(`Longest copied span in tokens (default ${DEFAULT_LAYOUT.maxSpan})`),
});
export type TransformerShape = z.infer<typeof TransformerShapeSchema>;

/** The layout a shape implies (the names are this build's). */
export function shapeLayout(s: TransformerShape): Layout {
  return { ...DEFAULT_LAYOUT, goalTokens: s.goalTokens, itemTokens: s.itemTokens, maxElements: s.maxElements, maxSpan: s.maxSpan };
}

/** The trainer's ModelConfig fields (snake case, model.py) for a shape. */
export function trainerModelConfig(s: TransformerShape): Record<string, unknown> {
  return {
    width: s.width, heads: s.heads, screen_layers: s.screenLayers, text_width: s.textWidth, text_heads: s.textHeads, text_layers: s.textLayers,
    text_ffn: s.textFfn, text_init: s.textInit, text_train: s.textTrain, text_lora_rank: s.textLoraRank,
    goal_match: s.goalMatch, app_identity: s.appIdentity, row_match: s.rowMatch, text_field: s.textField, span_context: s.spanContext,
  };
}

export const TransformerSftOptionsSchema = z.strictObject({
  epochs: z.int().min(0).max(1000).default(12).describe('Passes over the demonstrations (default 12; 0 only with init, to go straight to DAgger rounds)'),
  batchSize: z.int().min(1).max(4096).default(32).describe('Steps per minibatch (default 32)'),
  lr: z.number().positive().max(1).default(1e-3).describe('Peak AdamW learning rate, after 5% warm-up, cosine decay to 0 (default 1e-3)'),
  weightDecay: z.number().min(0).max(1).default(0.01).describe('Decoupled weight decay (default 0.01)'),
  maxGradNorm: z.number().min(0).default(1).describe('Clip the global gradient norm to this, 0 = off (default 1)'),
  seed: z.int().nonnegative().default(0).describe('Seed of the minibatch order'),
  rename: z.number().min(0).max(1).default(0)
    .describe("Chance that a goal word is swapped for another, in the goal and on the screen alike, in each minibatch, so the policy learns where a word sits, not which it is (default 0: off)"),
});

export const TransformerDaggerSchema = z.strictObject({
  rounds: z.int().min(1).max(20).describe('Rounds after the demonstrations: the model acts on the same instances, the oracle labels every screen it reaches, and SFT goes on over all steps so far'),
  epochs: z.int().min(1).max(1000).default(2).describe('SFT epochs per round, over all steps so far (default 2)'),
  beta: z.number().min(0).max(1).default(0).describe("Chance that a step carries out the oracle's label instead of the model's action (default 0)"),
  lr: z.number().positive().max(1).optional().describe("Peak learning rate of each round's SFT (default the sft lr)"),
});
export type TransformerDagger = z.infer<typeof TransformerDaggerSchema>;

export const TransformerSftConfigSchema = z.strictObject({
  split: z.enum(SPLITS).default('unseen-instance').describe('Regime whose part the demonstrations come from (default unseen-instance)'),
  part: z.enum(PARTS).default('train').describe('Split part (default train)'),
  templates: z.array(z.string().min(1)).min(1).optional().describe('Only these template ids'),
  maxTemplates: z.int().min(1).optional().describe('Only the first N templates'),
  seeds: z.array(z.int().nonnegative()).min(1).optional().describe("Instance seeds; default the part's seeds"),
  modelSeed: z.int().nonnegative().default(0).describe("Seed of the network's initial parameters (default 0)"),
  init: z.string().min(1).optional().describe('Start from this model folder instead of a new network (its shape is used)'),
  shape: TransformerShapeSchema.default(TransformerShapeSchema.parse({})).describe('The network (new models only)'),
  tokenizer: z.string().min(1).optional().describe("A WordPiece tokenizer.json for a new model; default all-MiniLM-L6-v2's (the trainer's package)"),
  sft: TransformerSftOptionsSchema.default(TransformerSftOptionsSchema.parse({})).describe('SFT hyper-parameters'),
  threads: z.int().min(1).max(64).default(1).describe('torch threads of the trainer (default 1)'),
  dagger: TransformerDaggerSchema.optional().describe("DAgger rounds after the demonstrations' SFT (Ross et al. 2011): the model's own screens, labelled by the oracle"),
}).refine((c) => c.sft.epochs > 0 || c.init !== undefined, { path: ['sft', 'epochs'], message: 'a new network needs at least one epoch on the demonstrations (0 is for a config with init)' })
  .refine((c) => c.shape.goalMatch || (!c.shape.rowMatch && c.shape.appIdentity), { path: ['shape', 'goalMatch'], message: 'rowMatch and appIdentity false both need goalMatch' });
export type TransformerSftConfig = z.infer<typeof TransformerSftConfigSchema>;

/** Every SFT epoch a config runs: the demonstrations' and each DAgger round's. */
export const sftEpochs = (c: Pick<TransformerSftConfig, 'sft' | 'dagger'>): number => c.sft.epochs + (c.dagger ? c.dagger.rounds * c.dagger.epochs : 0);
