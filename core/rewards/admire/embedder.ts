import { HashedNgramEncoder } from '../../policy/encoder.js';
import { WorkbenchError } from '../../util/errors.js';

/**
 * Sentence → vector for milestone matching (ADMIRE's ψ, Sentence-BERT in the paper). The built-in
 * hashed n-gram encoder implements it; a sentence-embedding model (transformers.js,
 * transformers-embedder.ts) implements it too, with `prepare` (PreparedEmbedder) because its
 * inference is async while matching stays synchronous.
 */
export interface TextEmbedder {
  /** Names the embedder in explanations and stored results, e.g. `hashed-ngram/256/3`. */
  readonly id: string;
  /** Unit-length vector (all zeros for text with no words); the same text gives the same vector. */
  embed(text: string): Float32Array;
}

/**
 * The policy's hashed word + character-trigram encoder at a larger width: the policy's 32 buckets
 * collide too often to tell "Tap Save" from "Tap Search", 256 keep collisions rare and one
 * embedding still costs a few microseconds.
 */
export function hashedEmbedder(dim = 256, charN = 3): TextEmbedder & { readonly dim: number } {
  const enc = new HashedNgramEncoder({ kind: 'hashed-ngram', dim, charN });
  return { id: `hashed-ngram/${dim}/${charN}`, dim, embed: (t) => enc.embed(t) };
}

/**
 * An embedder whose vectors come from async inference: `prepare(texts)` computes and caches them,
 * after which `embed` is a synchronous lookup. Callers prepare every text of an episode (its step
 * descriptions and filled milestones) before matching; `embed` on a text that was not prepared is an
 * EmbeddingNotPreparedError, never a silent zero vector.
 */
export interface PreparedEmbedder extends TextEmbedder {
  prepare(texts: readonly string[], signal?: AbortSignal): Promise<void>;
}

/** Whether an embedder needs `prepare` before `embed` (the built-in one does not). */
export function needsPrepare(e: TextEmbedder): e is PreparedEmbedder {
  return typeof (e as Partial<PreparedEmbedder>).prepare === 'function';
}

export class EmbeddingNotPreparedError extends WorkbenchError {
  override name = 'EmbeddingNotPreparedError';
  constructor(readonly embedderId: string, readonly text: string) {
    super(`${embedderId}: no embedding for ${JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}…` : text)}; call prepare() with the episode's texts before matching`);
  }
}

export class EmbeddingDimensionError extends Error {
  override name = 'EmbeddingDimensionError';
  constructor(readonly a: number, readonly b: number) {
    super(`Cannot compare embeddings of dimension ${a} and ${b}`);
  }
}

/**
 * cos(u, v) = u·v / (‖u‖‖v‖); 0 when either vector is all zeros (no words: nothing to match).
 * ADMIRE Eq. 9 scores a step by this similarity between ψ(a_t) and ψ(m_p).
 */
export function cosine(u: Float32Array, v: Float32Array): number {
  if (u.length !== v.length) throw new EmbeddingDimensionError(u.length, v.length);
  let dot = 0;
  let nu = 0;
  let nv = 0;
  for (let i = 0; i < u.length; i++) {
    dot += u[i]! * v[i]!;
    nu += u[i]! * u[i]!;
    nv += v[i]! * v[i]!;
  }
  return nu === 0 || nv === 0 ? 0 : dot / Math.sqrt(nu * nv);
}
