import { readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type * as Transformers from '@huggingface/transformers';
import { WorkbenchError } from '../../util/errors.js';
import { EmbeddingNotPreparedError, type PreparedEmbedder } from './embedder.js';

/**
 * ADMIRE's ψ from a sentence-embedding model (the paper uses Sentence-BERT) run by transformers.js
 * (`@huggingface/transformers`) on ONNX Runtime, loaded from a local folder in the Hugging Face
 * layout. Nothing is downloaded: remote models are switched off, the folder is read directly and no
 * cache is written. The library is imported on the first load only, so the built-in path never loads
 * it (or onnxruntime).
 */

/** ONNX weight variants a model folder may carry (transformers.js's dtype → onnx/model<suffix>.onnx). */
export const ONNX_DTYPES = ['fp32', 'q8', 'int8', 'uint8', 'q4'] as const;
export type OnnxDtype = (typeof ONNX_DTYPES)[number];

/** The file transformers.js reads for a dtype (its DEFAULT_DTYPE_SUFFIX_MAPPING). */
export function onnxFileOf(dtype: OnnxDtype): string {
  switch (dtype) {
    case 'fp32': return 'onnx/model.onnx';
    case 'q8': return 'onnx/model_quantized.onnx';
    case 'int8': return 'onnx/model_int8.onnx';
    case 'uint8': return 'onnx/model_uint8.onnx';
    case 'q4': return 'onnx/model_q4.onnx';
  }
}

export interface TransformersEmbedderOptions {
  /** The model folder, absolute (relative paths are resolved by the caller, see index.ts). */
  path: string;
  /** Which ONNX file to run (default fp32: onnx/model.onnx). */
  dtype?: OnnxDtype;
  /** Texts per inference call (default 32). */
  batchSize?: number;
  /** Tokens per text before truncation (default 128: a step description or milestone is one short line). */
  maxLength?: number;
  /** ONNX Runtime intra-op threads (default 1: rewards run beside rollout workers on the same cores). */
  threads?: number;
  /** Cached vectors kept (default 50,000, ~77 MB at 384 dims); the least recently prepared go first. */
  maxCached?: number;
}

export class EmbeddingModelNotFoundError extends WorkbenchError {
  override name = 'EmbeddingModelNotFoundError';
  constructor(readonly path: string) {
    super(`No embedding model folder at ${path}`);
  }
}

export class EmbeddingModelFilesError extends WorkbenchError {
  override name = 'EmbeddingModelFilesError';
  constructor(readonly path: string, readonly missing: readonly string[]) {
    super(`The embedding model folder ${path} lacks ${missing.join(', ')} (expected the Hugging Face layout: config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx)`);
  }
}

export class EmbeddingModelLoadError extends WorkbenchError {
  override name = 'EmbeddingModelLoadError';
  constructor(readonly path: string, readonly reason: string) {
    super(`The embedding model at ${path} failed to load: ${reason}`);
  }
}

export class EmbeddingOutputShapeError extends WorkbenchError {
  override name = 'EmbeddingOutputShapeError';
  constructor(readonly path: string, readonly detail: string) {
    super(`The embedding model at ${path} gave an unusable output: ${detail}`);
  }
}

/** A batch's token states [batch, sequence, hidden] and the attention mask [batch, sequence]. */
export interface TokenEmbeddings {
  data: Float32Array;
  dims: readonly number[];
  mask: ArrayLike<bigint | number>;
  maskDims: readonly number[];
}

/**
 * Mean pooling and L2 normalisation, as Sentence-BERT (Reimers & Gurevych 2019, §3 "MEAN") and
 * all-MiniLM-L6-v2's pipeline (Pooling(mean) → Normalize) compute a sentence vector:
 *   e_b = Σ_t m_bt · h_bt / max(Σ_t m_bt, ε),   v_b = e_b / max(‖e_b‖₂, ε),   ε = 1e-9 / 1e-12
 * m the attention mask, so padding never counts. A text whose states are all zero stays all zeros
 * (cosine treats it as "nothing to match").
 */
export function meanPoolNormalize(t: TokenEmbeddings): Float32Array[] {
  const [B = 0, S = 0, D = 0] = t.dims;
  const out: Float32Array[] = [];
  for (let b = 0; b < B; b++) {
    const sum = new Float64Array(D);
    let count = 0;
    for (let s = 0; s < S; s++) {
      const m = Number(t.mask[b * S + s]);
      if (m === 0) continue;
      count += m;
      const o = (b * S + s) * D;
      for (let d = 0; d < D; d++) sum[d]! += m * t.data[o + d]!;
    }
    let norm = 0;
    for (let d = 0; d < D; d++) {
      sum[d]! /= Math.max(count, 1e-9);
      norm += sum[d]! * sum[d]!;
    }
    const inv = 1 / Math.max(Math.sqrt(norm), 1e-12);
    out.push(Float32Array.from(sum, (x) => x * inv));
  }
  return out;
}

/** The two calls the embedder needs from transformers.js, behind a seam the load owns. */
interface Runtime {
  run(texts: readonly string[]): Promise<TokenEmbeddings>;
  dispose(): Promise<void>;
}

const reasonOf = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

function checkFolder(path: string, dtype: OnnxDtype): void {
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    // ENOENT and friends: reported as the folder missing just below.
  }
  if (!isDir) throw new EmbeddingModelNotFoundError(path);
  const need = ['config.json', 'tokenizer.json', 'tokenizer_config.json', onnxFileOf(dtype)];
  const missing = need.filter((f) => {
    try {
      return !statSync(join(path, f)).isFile();
    } catch {
      return true;
    }
  });
  if (missing.length) throw new EmbeddingModelFilesError(path, missing);
}

/** hidden_size from config.json when it has one (BERT-family); null otherwise. */
function configHiddenSize(path: string): number | null {
  let cfg: unknown;
  try {
    cfg = JSON.parse(readFileSync(join(path, 'config.json'), 'utf8'));
  } catch (e) {
    throw new EmbeddingModelLoadError(path, `config.json: ${reasonOf(e)}`);
  }
  const h = (cfg as { hidden_size?: unknown } | null)?.hidden_size;
  return typeof h === 'number' && Number.isInteger(h) && h > 0 ? h : null;
}

type TensorLike = { dims: number[]; type: string; data: unknown };
const isTensor = (x: unknown): x is TensorLike =>
  typeof x === 'object' && x !== null && Array.isArray((x as TensorLike).dims) && typeof (x as TensorLike).type === 'string';

async function loadRuntime(path: string, o: Required<Omit<TransformersEmbedderOptions, 'path' | 'batchSize' | 'maxCached'>>): Promise<Runtime> {
  let t: typeof Transformers;
  try {
    t = await import('@huggingface/transformers');
  } catch (e) {
    throw new EmbeddingModelLoadError(path, `@huggingface/transformers could not be imported (${reasonOf(e)})`);
  }
  // Process-wide, and what the workbench always wants: local folders only, no cache writes. An
  // absolute path is never taken for a Hub model id, so it is read as it is.
  t.env.allowRemoteModels = false;
  t.env.allowLocalModels = true;
  t.env.useFSCache = false;
  t.env.useBrowserCache = false;
  let tokenizer: Awaited<ReturnType<typeof t.AutoTokenizer.from_pretrained>>;
  let model: Awaited<ReturnType<typeof t.AutoModel.from_pretrained>>;
  try {
    tokenizer = await t.AutoTokenizer.from_pretrained(path, { local_files_only: true });
    model = await t.AutoModel.from_pretrained(path, {
      local_files_only: true, dtype: o.dtype, device: 'cpu',
      session_options: { intraOpNumThreads: o.threads, interOpNumThreads: 1 },
    });
  } catch (e) {
    throw new EmbeddingModelLoadError(path, reasonOf(e));
  }
  return {
    async run(texts) {
      const enc = tokenizer([...texts], { padding: true, truncation: true, max_length: o.maxLength });
      const out: unknown = await model(enc);
      const outputs = (out ?? {}) as Record<string, unknown>;
      // BERT-family exports name the token states last_hidden_state; sentence-transformers' own
      // ONNX exports name them token_embeddings.
      const hidden = outputs.last_hidden_state ?? outputs.token_embeddings;
      if (!isTensor(hidden)) throw new EmbeddingOutputShapeError(path, `no last_hidden_state or token_embeddings among its outputs (${Object.keys(outputs).join(', ') || 'none'})`);
      if (hidden.type !== 'float32' || !(hidden.data instanceof Float32Array)) throw new EmbeddingOutputShapeError(path, `token states of type ${hidden.type}, expected float32`);
      const mask = enc.attention_mask as unknown;
      if (!isTensor(mask)) throw new EmbeddingOutputShapeError(path, 'the tokenizer returned no attention_mask');
      return { data: hidden.data, dims: hidden.dims, mask: mask.data as ArrayLike<bigint | number>, maskDims: mask.dims };
    },
    async dispose() {
      await model.dispose();
    },
  };
}

/**
 * A sentence-embedding model as ADMIRE's ψ: mean pooling over the token states and L2 normalisation
 * (as Sentence-BERT and all-MiniLM-L6-v2 do), batched inference, a cache per text. `prepare` is
 * async; `embed` is the matcher's synchronous lookup.
 *
 * Construction is synchronous and checks the folder (missing folder or files fail at once, with the
 * path); the model itself loads on the first `prepare` or `ready()`, once, so creating the reward
 * component stays synchronous and cheap. A load that fails keeps failing with the same error.
 */
export class TransformersEmbedder implements PreparedEmbedder {
  readonly id: string;
  readonly path: string;
  private readonly options: Required<TransformersEmbedderOptions>;
  private readonly hiddenSize: number | null;
  private readonly cache = new Map<string, Float32Array>();
  private loading: Promise<{ runtime: Runtime; dim: number }> | null = null;
  private loaded: { runtime: Runtime; dim: number } | null = null;
  /** Inference runs one batch at a time (one ONNX session); prepares queue behind each other. */
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;

  constructor(o: TransformersEmbedderOptions) {
    this.options = { dtype: 'fp32', batchSize: 32, maxLength: 128, threads: 1, maxCached: 50_000, ...o };
    this.path = o.path;
    this.id = `transformers/${basename(o.path)}/${this.options.dtype}/mean`;
    checkFolder(o.path, this.options.dtype);
    this.hiddenSize = configHiddenSize(o.path);
  }

  /** Constructs and loads: a bad folder, model or output fails here, with its path. */
  static async load(o: TransformersEmbedderOptions): Promise<TransformersEmbedder> {
    const e = new TransformersEmbedder(o);
    await e.ready();
    return e;
  }

  /** The vector width, known once the model has loaded (null before). */
  get dim(): number | null {
    return this.loaded?.dim ?? null;
  }

  /** Loads the model and embeds one probe text (checking the output's shape against config.json). */
  ready(): Promise<void> {
    this.loading ??= this.open();
    return this.loading.then(() => undefined);
  }

  private async open(): Promise<{ runtime: Runtime; dim: number }> {
    const { dtype, maxLength, threads } = this.options;
    const runtime = await loadRuntime(this.path, { dtype, maxLength, threads });
    let probe: Float32Array;
    try {
      probe = embeddingsOf(this.path, await runtime.run(['probe']), 1)[0]!;
    } catch (e) {
      await runtime.dispose();
      if (e instanceof EmbeddingOutputShapeError) throw e;
      throw new EmbeddingModelLoadError(this.path, `inference failed (${reasonOf(e)})`);
    }
    if (this.hiddenSize !== null && this.hiddenSize !== probe.length) {
      await runtime.dispose();
      throw new EmbeddingOutputShapeError(this.path, `vectors of ${probe.length} dimensions, but config.json says hidden_size ${this.hiddenSize}`);
    }
    this.loaded = { runtime, dim: probe.length };
    return this.loaded;
  }

  /** Vectors cached now. */
  get cached(): number {
    return this.cache.size;
  }

  /** Computes the vectors of the texts not cached yet, in batches of similar length (less padding). */
  prepare(texts: readonly string[], signal?: AbortSignal): Promise<void> {
    const run = this.queue.then(() => this.fill(texts, signal));
    this.queue = run.catch(() => undefined); // the caller sees the failure; the queue goes on
    return run;
  }

  private async fill(texts: readonly string[], signal?: AbortSignal): Promise<void> {
    if (this.disposed) throw new EmbeddingModelLoadError(this.path, 'the embedder was disposed');
    const { runtime, dim } = await (this.loading ??= this.open());
    const wanted = new Set(texts);
    const todo = [...wanted].filter((t) => {
      const v = this.cache.get(t);
      if (v) {
        // touch: recently prepared texts are the last to be evicted
        this.cache.delete(t);
        this.cache.set(t, v);
      }
      return !v;
    }).sort((a, b) => a.length - b.length);
    const { batchSize, maxCached } = this.options;
    for (let i = 0; i < todo.length; i += batchSize) {
      signal?.throwIfAborted();
      const batch = todo.slice(i, i + batchSize);
      const vectors = embeddingsOf(this.path, await runtime.run(batch), batch.length, dim);
      batch.forEach((t, j) => this.cache.set(t, vectors[j]!));
    }
    // Evict the least recently prepared, never this call's texts (a caller is about to read them).
    for (const key of this.cache.keys()) {
      if (this.cache.size <= maxCached) break;
      if (!wanted.has(key)) this.cache.delete(key);
    }
  }

  /** The prepared vector of a text (shared, do not modify). */
  embed(text: string): Float32Array {
    const v = this.cache.get(text);
    if (!v) throw new EmbeddingNotPreparedError(this.id, text);
    return v;
  }

  async embedMany(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    await this.prepare(texts, signal);
    return texts.map((t) => this.embed(t));
  }

  /** Frees the ONNX session (after a load in flight settles); the embedder is unusable afterwards. */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.cache.clear();
    const l = await this.loading?.catch(() => null);
    await l?.runtime.dispose();
  }
}

/** Pooled vectors of one batch, with the shape checked against the batch (and the known width). */
function embeddingsOf(path: string, out: TokenEmbeddings, batch: number, dim?: number): Float32Array[] {
  const [b, s, d] = out.dims;
  if (out.dims.length !== 3 || b !== batch || s !== out.maskDims[1] || (dim !== undefined && d !== dim)) {
    const want = `[${batch}, ${out.maskDims[1] ?? 'sequence'}, ${dim ?? 'hidden'}]`;
    throw new EmbeddingOutputShapeError(path, `token states of shape [${out.dims.join(', ')}], expected [batch, sequence, hidden] = ${want}`);
  }
  return meanPoolNormalize(out);
}
