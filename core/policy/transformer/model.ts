import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type * as Ort from 'onnxruntime-node';
import { z } from 'zod';
import { WorkbenchError } from '../../util/errors.js';
import { loadOnnxRuntime } from '../onnx/runtime.js';
import type { HeadLogProbs, HeadShape } from './actions.js';
import type { StepInputs } from './inputs.js';
import { ACTION_TYPES, GENERATED_TEXTS, ITEM_FEATURES, LayoutSchema, layoutMismatch, POINTER_TYPES, TEXT_TYPES, type Layout } from './layout.js';
import { WordPieceTokenizer } from './wordpiece.js';

/**
 * A transformer policy model folder, as the trainer writes it (resources/trainer/awb_trainer/transformer):
 *
 *   config.json     { format: 'awb-transformer-policy', version: 1, model: { layout, vocab, width, … }, meta }
 *   tokenizer.json  the WordPiece tokenizer its token ids come from
 *   policy.onnx     the network (inputs and outputs named as below), for ONNX Runtime
 *   weights.pt      the PyTorch weights the trainer continues from (not read here)
 *
 * The workbench only runs inference: it builds a step's inputs (inputs.ts), runs the graph in ONNX Runtime and reads
 * the heads' log-probs (actions.ts). All the maths (attention, heads, losses) is the trainer's.
 */
export const MODEL_FORMAT = 'awb-transformer-policy';
export const MODEL_VERSION = 1;

/** The files inference reads (weights.pt is the trainer's): what a model folder sent to a rollout server must hold. */
export const INFERENCE_FILES = ['config.json', 'tokenizer.json', 'policy.onnx'] as const;

export const GRAPH_INPUTS = ['goal_ids', 'goal_copy', 'item_ids', 'item_copy', 'item_features', 'pointer_mask', 'type_mask', 'item_valid', 'temperature'] as const;
export const GRAPH_OUTPUTS = ['type_logp', 'pointer_logp', 'goal_span_logp', 'item_span_logp', 'generated_logp'] as const;

const ModelConfigJson = z.object({
  format: z.literal(MODEL_FORMAT),
  version: z.literal(MODEL_VERSION),
  model: z.object({ layout: LayoutSchema, vocab: z.int().positive() }).passthrough(),
  meta: z.record(z.string(), z.unknown()).default({}),
}).passthrough();
export type TransformerModelConfig = z.infer<typeof ModelConfigJson>;

export class TransformerModelError extends WorkbenchError {
  override name = 'TransformerModelError';
  constructor(readonly path: string, readonly problem: string) {
    super(`Bad transformer policy model ${path}: ${problem}`);
  }
}

/** True when `path` is a folder holding a transformer policy's config.json (how --policy tells it from a checkpoint file). */
export function isTransformerModelDir(path: string): boolean {
  try {
    if (!statSync(path).isDirectory()) return false;
    const cfg = JSON.parse(readFileSync(join(path, 'config.json'), 'utf8')) as { format?: unknown };
    return cfg.format === MODEL_FORMAT;
  } catch {
    return false;
  }
}

/** Reads and checks config.json (without ONNX Runtime). */
export function readModelConfig(dir: string): TransformerModelConfig {
  const path = join(dir, 'config.json');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new TransformerModelError(dir, `cannot read config.json (${(e as Error).message})`);
  }
  const r = ModelConfigJson.safeParse(raw);
  if (!r.success) throw new TransformerModelError(dir, `config.json: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const mismatch = layoutMismatch(r.data.model.layout);
  if (mismatch) throw new TransformerModelError(dir, `made for another version of the workbench: ${mismatch}`);
  return r.data;
}

export class TransformerModel {
  readonly shape: HeadShape;

  private constructor(
    readonly dir: string,
    readonly config: TransformerModelConfig,
    readonly tokenizer: WordPieceTokenizer,
    /** sha256 of policy.onnx: what a run records to tell models apart. */
    readonly sha256: string,
    private readonly ort: typeof Ort,
    private readonly session: Ort.InferenceSession,
  ) {
    const l = config.model.layout;
    this.shape = { goalTokens: l.goalTokens, maxSpan: l.maxSpan, itemTokens: l.itemTokens, itemSpan: Math.min(l.maxSpan, l.itemTokens) };
  }

  get layout(): Layout {
    return this.config.model.layout;
  }

  static async load(dir: string, opts: { threads?: number } = {}): Promise<TransformerModel> {
    const config = readModelConfig(dir);
    const tokenizer = WordPieceTokenizer.load(join(dir, 'tokenizer.json'));
    if (tokenizer.vocabSize !== config.model.vocab) {
      throw new TransformerModelError(dir, `tokenizer.json has ${tokenizer.vocabSize} tokens, the model ${config.model.vocab}`);
    }
    const onnx = join(dir, 'policy.onnx');
    if (!existsSync(onnx)) throw new TransformerModelError(dir, 'no policy.onnx');
    const bytes = readFileSync(onnx);
    const ort = await loadOnnxRuntime();
    let session: Ort.InferenceSession;
    try {
      session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: opts.threads ?? 1, interOpNumThreads: 1, logSeverityLevel: 3 });
    } catch (e) {
      throw new TransformerModelError(dir, `ONNX Runtime refused policy.onnx (${(e as Error).message})`);
    }
    const missing = [...GRAPH_INPUTS.filter((n) => !session.inputNames.includes(n)), ...GRAPH_OUTPUTS.filter((n) => !session.outputNames.includes(n))];
    if (missing.length) {
      await session.release();
      throw new TransformerModelError(dir, `policy.onnx lacks ${missing.join(', ')}`);
    }
    return new TransformerModel(dir, config, tokenizer, createHash('sha256').update(bytes).digest('hex'), ort, session);
  }

  /** The heads' log-probs for one step at temperature T. */
  async forward(x: StepInputs, temperature = 1): Promise<HeadLogProbs> {
    const l = this.layout;
    const S = x.items;
    const K = ACTION_TYPES.length;
    const P = POINTER_TYPES.length;
    const t = (type: 'int32' | 'float32', data: Int32Array | Float32Array, dims: number[]) => new this.ort.Tensor(type, data, dims);
    const out = await this.session.run({
      goal_ids: t('int32', x.goalIds, [1, l.goalTokens]),
      goal_copy: t('float32', x.goalCopy, [1, l.goalTokens, 2]),
      item_ids: t('int32', x.itemIds, [1, S, l.itemTokens]),
      item_copy: t('float32', x.itemCopy, [1, S, l.itemTokens, 2]),
      item_features: t('float32', x.itemFeatures, [1, S, ITEM_FEATURES.length]),
      pointer_mask: t('float32', x.pointerMask, [1, P, S]),
      type_mask: t('float32', x.typeMask, [1, K]),
      item_valid: t('float32', new Float32Array(S).fill(1), [1, S]),
      temperature: t('float32', Float32Array.of(temperature), [1]),
    });
    const get = (name: (typeof GRAPH_OUTPUTS)[number], size: number): Float32Array => {
      const v = out[name];
      if (!v || v.type !== 'float32' || (v.data as Float32Array).length !== size) {
        throw new TransformerModelError(this.dir, `output ${name} is not float32 of ${size} values`);
      }
      return v.data as Float32Array;
    };
    const X = TEXT_TYPES.length;
    const s = this.shape;
    return {
      type: get('type_logp', K),
      pointer: get('pointer_logp', P * S),
      goalSpan: get('goal_span_logp', X * s.goalTokens * s.maxSpan),
      itemSpan: get('item_span_logp', X * S * s.itemTokens * s.itemSpan),
      generated: get('generated_logp', X * GENERATED_TEXTS.length),
    };
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}
