import type { Rng } from '../util/rng.js';
import { WorkbenchError } from '../util/errors.js';

/**
 * The small sigmoid head both builtin reward models use: ProgRM's progress model (its stand-in for
 * "pretrained LLM + MLP + sigmoid", ProgRM §2.3) and GUI-Shepherd's step judge (digest 002 §2.6).
 *
 *   hidden > 0:  z(x) = w2 · tanh(W1 x + b1) + b2
 *   hidden = 0:  z(x) = w · x + b                  (logistic regression)
 *   p(x) = σ(z(x))
 *
 * Parameters in one flat Float32Array, the layout both checkpoint formats store:
 * W1 (H×F row-major), b1 (H), w2 (H), b2 (1); or w (F), b (1) when H = 0.
 *
 * Loss: binary cross-entropy with a possibly soft target y ∈ [0, 1] (ProgRM Eq. 5; GUI-Shepherd Eq. 2
 * over its two label tokens): L = −y log p − (1 − y) log(1 − p) = softplus(z) − y z, so ∂L/∂z = σ(z) − y.
 * Backward is written by hand and checked against finite differences in test/rewards/mlp.test.ts.
 */
export interface MlpDims {
  input: number;
  /** Hidden units; 0 = logistic regression. */
  hidden: number;
}

export class MlpShapeError extends WorkbenchError {
  override name = 'MlpShapeError';
  constructor(message: string, readonly got: unknown) {
    super(`${message} (got ${JSON.stringify(got)})`);
  }
}

export function mlpParamCount(d: MlpDims): number {
  return d.hidden === 0 ? d.input + 1 : d.hidden * d.input + 2 * d.hidden + 1;
}

export function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

/** BCE from the logit, without overflow: softplus(z) − y z with softplus(z) = log(1 + e^z). */
export function bceWithLogit(z: number, y: number): number {
  const softplus = z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z));
  return softplus - y * z;
}

export interface MlpInitOptions {
  /** w2 ~ U(±outputScale/√H): 1 for the progress head, 0.1 for the judge (a near-0.5 start). */
  outputScale?: number;
}

export class SigmoidMlp {
  readonly params: Float32Array;
  readonly grads: Float32Array;
  private readonly ob1: number;
  private readonly ow2: number;
  private readonly ob2: number;
  /** tanh activations of the last logit() call, reused by accumulate(). */
  private readonly h: Float64Array;

  constructor(readonly dims: MlpDims, params?: Float32Array) {
    if (!Number.isInteger(dims.input) || dims.input < 1 || !Number.isInteger(dims.hidden) || dims.hidden < 0) throw new MlpShapeError('Bad network dims', dims);
    const size = mlpParamCount(dims);
    if (params && params.length !== size) throw new MlpShapeError(`Expected ${size} parameters for ${JSON.stringify(dims)}`, params.length);
    this.params = params ?? new Float32Array(size);
    this.grads = new Float32Array(size);
    const { input: F, hidden: H } = dims;
    this.ob1 = H * F;
    this.ow2 = this.ob1 + H;
    this.ob2 = H === 0 ? F : this.ow2 + H;
    this.h = new Float64Array(H);
  }

  /**
   * Seeded init: W1 ~ U(±√(3/F)) (unit-variance pre-activations for inputs in [−1, 1]),
   * w2 ~ U(±outputScale/√H), biases 0; a logistic model starts at 0. W1 is drawn before w2.
   */
  static init(dims: MlpDims, rng: Rng, opts: MlpInitOptions = {}): SigmoidMlp {
    const net = new SigmoidMlp(dims);
    const { input: F, hidden: H } = dims;
    if (H === 0) return net;
    const a = Math.sqrt(3 / F);
    for (let i = 0; i < H * F; i++) net.params[i] = (2 * rng.next() - 1) * a;
    const b = (opts.outputScale ?? 1) / Math.sqrt(H);
    for (let j = 0; j < H; j++) net.params[net.ow2 + j] = (2 * rng.next() - 1) * b;
    return net;
  }

  /** x is one feature vector, or a row-major (rows × input) matrix of which row r is read. */
  private offset(x: Float32Array, r: number): number {
    const F = this.dims.input;
    if (x.length % F !== 0 || !Number.isInteger(r) || r < 0 || (r + 1) * F > x.length) {
      throw new MlpShapeError(`Features must be rows of length ${F}; row ${r} asked`, x.length);
    }
    return r * F;
  }

  /** The logit of row r of x. */
  logit(x: Float32Array, r = 0): number {
    const o = this.offset(x, r);
    const { input: F, hidden: H } = this.dims;
    const p = this.params;
    let z = p[this.ob2]!;
    if (H === 0) {
      for (let i = 0; i < F; i++) z += p[i]! * x[o + i]!;
      return z;
    }
    for (let j = 0; j < H; j++) {
      let a = p[this.ob1 + j]!;
      const w = j * F;
      for (let i = 0; i < F; i++) a += p[w + i]! * x[o + i]!;
      const hj = Math.tanh(a);
      this.h[j] = hj;
      z += p[this.ow2 + j]! * hj;
    }
    return z;
  }

  predict(x: Float32Array, r = 0): number {
    return sigmoid(this.logit(x, r));
  }

  /**
   * Adds scale · ∂L/∂θ of the BCE of row r against target y to `grads`; returns the unscaled loss.
   * g = (σ(z) − y)·scale; dL/db2 = g, dL/dw2_j = g h_j, dL/da_j = g w2_j (1 − h_j²),
   * dL/dW1_ji = dL/da_j x_i, dL/db1_j = dL/da_j (logistic: dL/dw_i = g x_i, dL/db = g).
   */
  accumulate(x: Float32Array, y: number, scale = 1, r = 0): number {
    const z = this.logit(x, r);
    const o = r * this.dims.input;
    const { input: F, hidden: H } = this.dims;
    const g = (sigmoid(z) - y) * scale;
    const p = this.params;
    const gr = this.grads;
    gr[this.ob2] = gr[this.ob2]! + g;
    if (H === 0) {
      for (let i = 0; i < F; i++) gr[i] = gr[i]! + g * x[o + i]!;
      return bceWithLogit(z, y);
    }
    for (let j = 0; j < H; j++) {
      const hj = this.h[j]!;
      gr[this.ow2 + j] = gr[this.ow2 + j]! + g * hj;
      const da = g * p[this.ow2 + j]! * (1 - hj * hj);
      if (da === 0) continue;
      gr[this.ob1 + j] = gr[this.ob1 + j]! + da;
      const w = j * F;
      for (let i = 0; i < F; i++) gr[w + i] = gr[w + i]! + da * x[o + i]!;
    }
    return bceWithLogit(z, y);
  }

  zeroGrad(): void {
    this.grads.fill(0);
  }
}
