import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import type { ReadableDB } from '../../store/db.js';
import { successfulEpisodes } from '../../store/queries.js';
import { loadTrajectory } from '../../store/trajectory.js';
import { assertNever } from '../../util/errors.js';
import type { RewardComponent } from '../component.js';
import type { RewardContext } from '../registry.js';
import { AdmireConfigSchema, AdmireEmbedderSchema, type AdmireEmbedderOptions } from './config.js';
import { ConsensusDistiller, type MilestoneDistiller, type SuccessTrace } from './distill.js';
import { hashedEmbedder, type TextEmbedder } from './embedder.js';
import { LlmDistiller, LlmDistillerConfigSchema } from './llm.js';
import { MilestoneMemory } from './memory.js';
import { MemoryMilestoneStore, SqliteMilestoneStore } from './milestone-store.js';
import { AdmireReward, type AdmireRewardOptions } from './reward.js';
import { TransformersEmbedder } from './transformers-embedder.js';

export * from './config.js';
export * from './distill.js';
export * from './embedder.js';
export * from './llm.js';
export * from './match.js';
export * from './memory.js';
export * from './milestone-store.js';
export * from './placeholders.js';
export * from './reward.js';
export * from './transformers-embedder.js';

/** The component's options for the reward registry: the reward settings plus memory and distiller. */
export const AdmireOptions = AdmireConfigSchema.extend({
  epoch: z.int().min(0).default(1).describe('E in λ0·γ^E, the training iteration (Alg. 1 starts at 1)'),
  distiller: z.discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('consensus'),
      quorum: z.number().gt(0).max(1).default(0.5).describe('Share of the kept successes a step must appear in, in order'),
    }),
    z.strictObject({ kind: z.literal('llm'), ...LlmDistillerConfigSchema.shape }),
  ]).default({ kind: 'consensus', quorum: 0.5 }).describe('Φ: the built-in consensus of successful episodes, or an OpenAI-compatible chat endpoint'),
  keepExemplars: z.int().min(1).max(256).default(16).describe('Successes kept per template for the consensus'),
  embedder: AdmireEmbedderSchema.default({ kind: 'builtin', dim: 256, charN: 3 })
    .describe('ψ: the built-in hashed n-gram encoder, or a sentence-embedding model from a local folder (transformers.js)'),
});
export type AdmireOptions = z.infer<typeof AdmireOptions>;

export function createDistiller(o: AdmireOptions['distiller']): MilestoneDistiller {
  switch (o.kind) {
    case 'consensus': return new ConsensusDistiller(o.quorum);
    case 'llm': {
      const { kind: _kind, ...config } = o;
      return new LlmDistiller(config);
    }
    default:
      return assertNever(o, 'distiller');
  }
}

/**
 * The embedder an option names. A transformers model's folder is checked here (missing folder or
 * files fail at once, with the path); the model loads on the first episode scored. A relative path
 * is under the data folder, like ProgRM's checkpoint.
 */
export function createEmbedder(o: AdmireEmbedderOptions, dataDir?: string): TextEmbedder {
  switch (o.kind) {
    case 'builtin': return hashedEmbedder(o.dim, o.charN);
    case 'transformers': {
      const { kind: _kind, path, ...rest } = o;
      const abs = isAbsolute(path) ? path : resolve(dataDir ?? '.', path);
      return new TransformersEmbedder({ path: abs, ...rest });
    }
    default:
      return assertNever(o, 'embedder');
  }
}

/** The newest `limit` recorded successes of a template, as the distillers read them. */
export function storedSuccesses(db: ReadableDB, templateId: string, limit: number): SuccessTrace[] {
  return successfulEpisodes(db, templateId, { limit }).reverse().map((e) => {
    const t = loadTrajectory(db, e.id);
    const p = t.instance.params;
    return {
      instruction: t.instance.instruction,
      params: p !== null && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, unknown>) : {},
      descriptions: t.steps.flatMap((s) => (s.description ? [s.description] : [])),
    };
  });
}

/**
 * The registry's entry (core/rewards/registry.ts loads `rewardModule` from here): with the store in
 * the context the milestone memory persists in it (migration 0004), and a template without milestones
 * is first distilled from the store's recorded successes; without a store the memory lives as long as
 * the component.
 */
export const rewardModule = {
  options: AdmireOptions,
  create(o: AdmireOptions, ctx: RewardContext): RewardComponent {
    const { epoch, distiller, keepExemplars, embedder, ...config } = o;
    const db = ctx.db;
    const store = db ? new SqliteMilestoneStore(db) : new MemoryMilestoneStore();
    const memory = new MilestoneMemory(store, createDistiller(distiller), { keepExemplars });
    const opts: AdmireRewardOptions = { memory, config, epoch, embedder: createEmbedder(embedder, ctx.dataDir) };
    if (db) opts.bootstrap = (templateId) => storedSuccesses(db, templateId, keepExemplars);
    return new AdmireReward(opts);
  },
};
