import type { Rng } from '../util/rng.js';

/**
 * The builtin policy's scorer: a one-hidden-layer MLP with a linear skip, applied to each
 * candidate's feature row x ∈ R^F,
 *
 *   s(x) = w2 · tanh(W1 x + b1) + wl · x
 *
 * and a softmax over the step's candidates with temperature T:
 *
 *   log π(a | s) = s_a / T − log Σ_j exp(s_j / T)
 *   ∂ log π(a) / ∂ s_j = (1[j = a] − π_j) / T
 *
 * Parameters live in one flat Float32Array (W1 row-major H×F, then b1, w2, wl), so the optimizer,
 * a frozen reference copy and checkpoints each handle one buffer. Sums are taken in float64.
 * `grads` accumulates dL/dθ: callers supply dL/ds (or dL/d log π) and call the optimizer.
 */
export interface NetworkDims {
  /** Feature dimension F. */
  input: number;
  /** Hidden units H. */
  hidden: number;
}

export class NetworkShapeError extends Error {
  override name = 'NetworkShapeError';
  constructor(message: string, readonly got: unknown) {
    super(`${message} (got ${JSON.stringify(got)})`);
  }
}

export function parameterCount(d: NetworkDims): number {
  return d.hidden * d.input + 2 * d.hidden + d.input;
}

export class ScorerNetwork {
  readonly params: Float32Array;
  readonly grads: Float32Array;
  private readonly oW1 = 0;
  private readonly ob1: number;
  private readonly ow2: number;
  private readonly owl: number;

  constructor(readonly dims: NetworkDims, params?: Float32Array) {
    const size = parameterCount(dims);
    if (params && params.length !== size) throw new NetworkShapeError(`Expected ${size} parameters for ${JSON.stringify(dims)}`, params.length);
    this.params = params ?? new Float32Array(size);
    this.grads = new Float32Array(size);
    this.ob1 = dims.hidden * dims.input;
    this.ow2 = this.ob1 + dims.hidden;
    this.owl = this.ow2 + dims.hidden;
  }

  /** Seeded initialisation: W1 ~ U(±√(3/F)) (unit-variance pre-activations for unit features), w2 ~ U(±0.1/√H), b1 = wl = 0. */
  static init(dims: NetworkDims, rng: Rng): ScorerNetwork {
    const net = new ScorerNetwork(dims);
    const a = Math.sqrt(3 / dims.input);
    for (let i = 0; i < net.ob1; i++) net.params[i] = (2 * rng.next() - 1) * a;
    const b = 0.1 / Math.sqrt(dims.hidden);
    for (let i = 0; i < dims.hidden; i++) net.params[net.ow2 + i] = (2 * rng.next() - 1) * b;
    return net;
  }

  clone(): ScorerNetwork {
    return new ScorerNetwork({ ...this.dims }, this.params.slice());
  }

  zeroGrad(): void {
    this.grads.fill(0);
  }

  private checkInput(x: Float32Array, n: number): void {
    if (n < 1 || x.length !== n * this.dims.input) {
      throw new NetworkShapeError(`Feature matrix must be n × ${this.dims.input} with n ≥ 1`, { length: x.length, n });
    }
  }

  /**
   * hidden[r·H + j] = tanh(b1_j + W1_j · x_r) for every row. Rows go four at a time so that each
   * weight is loaded once per four rows (about twice as fast as row by row in V8).
   */
  private hiddenLayer(x: Float32Array, n: number, hidden: Float64Array): void {
    const { input: F, hidden: H } = this.dims;
    const p = this.params;
    let r = 0;
    for (; r + 3 < n; r += 4) {
      const o0 = r * F;
      const o1 = o0 + F;
      const o2 = o1 + F;
      const o3 = o2 + F;
      for (let j = 0; j < H; j++) {
        const b = p[this.ob1 + j]!;
        let s0 = b;
        let s1 = b;
        let s2 = b;
        let s3 = b;
        const w = j * F;
        for (let i = 0; i < F; i++) {
          const wi = p[w + i]!;
          s0 += wi * x[o0 + i]!;
          s1 += wi * x[o1 + i]!;
          s2 += wi * x[o2 + i]!;
          s3 += wi * x[o3 + i]!;
        }
        hidden[r * H + j] = Math.tanh(s0);
        hidden[(r + 1) * H + j] = Math.tanh(s1);
        hidden[(r + 2) * H + j] = Math.tanh(s2);
        hidden[(r + 3) * H + j] = Math.tanh(s3);
      }
    }
    for (; r < n; r++) {
      const off = r * F;
      for (let j = 0; j < H; j++) {
        let z = p[this.ob1 + j]!;
        const w = j * F;
        for (let i = 0; i < F; i++) z += p[w + i]! * x[off + i]!;
        hidden[r * H + j] = Math.tanh(z);
      }
    }
  }

  /** Scores of the n candidates in the row-major n × F matrix x (hidden activations to `hidden` if given, n × H). */
  scores(x: Float32Array, n: number, hidden?: Float64Array): Float64Array {
    this.checkInput(x, n);
    const { input: F, hidden: H } = this.dims;
    const h = hidden ?? new Float64Array(n * H);
    this.hiddenLayer(x, n, h);
    const p = this.params;
    const out = new Float64Array(n);
    for (let r = 0; r < n; r++) {
      let s = 0;
      for (let j = 0; j < H; j++) s += p[this.ow2 + j]! * h[r * H + j]!;
      const off = r * F;
      for (let i = 0; i < F; i++) s += p[this.owl + i]! * x[off + i]!;
      out[r] = s;
    }
    return out;
  }

  /**
   * Adds Σ_r dScores[r] · ∂s_r/∂θ to grads. `hidden` is the n × H activations from scores() with
   * the same parameters (recomputed when absent).
   */
  backwardScores(x: Float32Array, n: number, dScores: ArrayLike<number>, hidden?: Float64Array): void {
    this.checkInput(x, n);
    const { input: F, hidden: H } = this.dims;
    let h = hidden;
    if (!h) {
      h = new Float64Array(n * H);
      this.hiddenLayer(x, n, h);
    }
    const p = this.params;
    const g = this.grads;
    // dz[r·H + j] = dScores_r · w2_j · (1 − h²); the skip and output weights take their part directly.
    const dz = new Float64Array(n * H);
    for (let r = 0; r < n; r++) {
      const ds = dScores[r]!;
      if (ds === 0) continue;
      const off = r * F;
      for (let i = 0; i < F; i++) g[this.owl + i]! += ds * x[off + i]!;
      for (let j = 0; j < H; j++) {
        const a = h[r * H + j]!;
        g[this.ow2 + j]! += ds * a;
        const d = ds * p[this.ow2 + j]! * (1 - a * a);
        dz[r * H + j] = d;
        g[this.ob1 + j]! += d;
      }
    }
    // dW1_j += Σ_r dz_rj · x_r, four rows at a time.
    let r = 0;
    for (; r + 3 < n; r += 4) {
      const o0 = r * F;
      const o1 = o0 + F;
      const o2 = o1 + F;
      const o3 = o2 + F;
      for (let j = 0; j < H; j++) {
        const d0 = dz[r * H + j]!;
        const d1 = dz[(r + 1) * H + j]!;
        const d2 = dz[(r + 2) * H + j]!;
        const d3 = dz[(r + 3) * H + j]!;
        if (d0 === 0 && d1 === 0 && d2 === 0 && d3 === 0) continue;
        const w = j * F;
        for (let i = 0; i < F; i++) g[w + i]! += d0 * x[o0 + i]! + d1 * x[o1 + i]! + d2 * x[o2 + i]! + d3 * x[o3 + i]!;
      }
    }
    for (; r < n; r++) {
      const off = r * F;
      for (let j = 0; j < H; j++) {
        const d = dz[r * H + j]!;
        if (d === 0) continue;
        const w = j * F;
        for (let i = 0; i < F; i++) g[w + i]! += d * x[off + i]!;
      }
    }
  }

  /** Accumulates dLogp · ∂ log π(chosen)/∂θ into grads and returns log π(chosen). */
  accumulateLogProb(x: Float32Array, n: number, chosen: number, dLogp: number, temperature = 1): number {
    if (!Number.isInteger(chosen) || chosen < 0 || chosen >= n) throw new NetworkShapeError(`Chosen index out of 0..${n - 1}`, chosen);
    const hidden = new Float64Array(n * this.dims.hidden);
    const lp = logSoftmax(this.scores(x, n, hidden), temperature);
    const d = new Float64Array(n);
    for (let j = 0; j < n; j++) d[j] = (dLogp * ((j === chosen ? 1 : 0) - Math.exp(lp[j]!))) / temperature;
    this.backwardScores(x, n, d, hidden);
    return lp[chosen]!;
  }

  logProbs(x: Float32Array, n: number, temperature = 1): Float64Array {
    return logSoftmax(this.scores(x, n), temperature);
  }
}

/** log softmax(s / T), computed stably: s/T − max − log Σ exp(s/T − max). */
export function logSoftmax(s: ArrayLike<number>, temperature = 1): Float64Array {
  if (!(temperature > 0)) throw new NetworkShapeError('Temperature must be > 0', temperature);
  let max = -Infinity;
  for (let i = 0; i < s.length; i++) max = Math.max(max, s[i]! / temperature);
  let z = 0;
  for (let i = 0; i < s.length; i++) z += Math.exp(s[i]! / temperature - max);
  const lz = max + Math.log(z);
  const out = new Float64Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s[i]! / temperature - lz;
  return out;
}

/** Entropy −Σ π log π of a distribution given as log-probabilities. */
export function entropy(logProbs: ArrayLike<number>): number {
  let h = 0;
  for (let i = 0; i < logProbs.length; i++) h -= Math.exp(logProbs[i]!) * logProbs[i]!;
  return h;
}

export interface AdamOptions {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  /** Decoupled weight decay (AdamW, Loshchilov & Hutter 2019); 0 for plain Adam. */
  weightDecay: number;
  /** Clip the global gradient L2 norm to this before the step; 0 disables. */
  maxGradNorm: number;
}
export const DEFAULT_ADAM: AdamOptions = { lr: 3e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, maxGradNorm: 1 };

/**
 * Adam (Kingma & Ba 2015, Algorithm 1): m ← β1 m + (1−β1) g; v ← β2 v + (1−β2) g²;
 * θ ← θ − lr · m̂ / (√v̂ + ε) with m̂ = m / (1−β1^t), v̂ = v / (1−β2^t); then θ ← θ − lr·wd·θ.
 */
export class Adam {
  readonly m: Float64Array;
  readonly v: Float64Array;
  t = 0;
  constructor(size: number, readonly opts: AdamOptions = DEFAULT_ADAM) {
    this.m = new Float64Array(size);
    this.v = new Float64Array(size);
  }

  /** One update of params from grads; returns the gradient norm before clipping. */
  step(params: Float32Array, grads: Float32Array): number {
    const { lr, beta1, beta2, eps, weightDecay, maxGradNorm } = this.opts;
    let sq = 0;
    for (let i = 0; i < grads.length; i++) sq += grads[i]! * grads[i]!;
    const norm = Math.sqrt(sq);
    const scale = maxGradNorm > 0 && norm > maxGradNorm ? maxGradNorm / norm : 1;
    this.t++;
    const c1 = 1 - beta1 ** this.t;
    const c2 = 1 - beta2 ** this.t;
    for (let i = 0; i < params.length; i++) {
      const g = grads[i]! * scale;
      const m = (this.m[i] = beta1 * this.m[i]! + (1 - beta1) * g);
      const v = (this.v[i] = beta2 * this.v[i]! + (1 - beta2) * g * g);
      params[i] = params[i]! - (lr * (m / c1)) / (Math.sqrt(v / c2) + eps) - lr * weightDecay * params[i]!;
    }
    return norm;
  }
}
