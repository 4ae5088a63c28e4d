import type { Rng } from '../../util/rng.js';
import { WorkbenchError } from '../../util/errors.js';

/**
 * The progress head: a one-hidden-layer MLP with a sigmoid output, the builtin stand-in for the
 * paper's "pretrained LLM + MLP + sigmoid" (ProgRM §2.3):
 *
 *   z(x) = w2 · tanh(W1 x + b1) + b2,   Prog(x) = σ(z)
 *
 * Parameters in one flat Float32Array: W1 (H×F row-major), b1 (H), w2 (H), b2 (1).
 */
export interface ProgressDims {
  input: number;
  hidden: number;
}

export class ProgressShapeError extends WorkbenchError {
  override name = 'ProgressShapeError';
  constructor(message: string, readonly got: unknown) {
    super(`${message} (got ${JSON.stringify(got)})`);
  }
}

export function progressParamCount(d: ProgressDims): number {
  return d.hidden * d.input + 2 * d.hidden + 1;
}

export function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

/**
 * Binary cross-entropy with a soft target (ProgRM Eq. 5): L = −y log p − (1 − y) log(1 − p),
 * computed from the logit z stably as softplus(z) − y z. Its derivative is ∂L/∂z = σ(z) − y.
 */
export function bceWithLogit(z: number, y: number): number {
  const softplus = z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z));
  return softplus - y * z;
}

export class ProgressNetwork {
  readonly params: Float32Array;
  readonly grads: Float32Array;
  private readonly ob1: number;
  private readonly ow2: number;
  private readonly ob2: number;

  constructor(readonly dims: ProgressDims, params?: Float32Array) {
    const size = progressParamCount(dims);
    if (params && params.length !== size) throw new ProgressShapeError(`Expected ${size} parameters for ${JSON.stringify(dims)}`, params.length);
    this.params = params ?? new Float32Array(size);
    this.grads = new Float32Array(size);
    this.ob1 = dims.hidden * dims.input;
    this.ow2 = this.ob1 + dims.hidden;
    this.ob2 = this.ow2 + dims.hidden;
  }

  /** W1 ~ U(±√(3/F)), w2 ~ U(±1/√H), biases 0: seeded. */
  static init(dims: ProgressDims, rng: Rng): ProgressNetwork {
    const net = new ProgressNetwork(dims);
    const a = Math.sqrt(3 / dims.input);
    for (let i = 0; i < net.ob1; i++) net.params[i] = (2 * rng.next() - 1) * a;
    const b = 1 / Math.sqrt(dims.hidden);
    for (let j = 0; j < dims.hidden; j++) net.params[net.ow2 + j] = (2 * rng.next() - 1) * b;
    return net;
  }

  private check(x: Float32Array): void {
    if (x.length !== this.dims.input) throw new ProgressShapeError(`Feature vector must have length ${this.dims.input}`, x.length);
  }

  private hidden(x: Float32Array): Float64Array {
    const { input: F, hidden: H } = this.dims;
    const p = this.params;
    const h = new Float64Array(H);
    for (let j = 0; j < H; j++) {
      let z = p[this.ob1 + j]!;
      const w = j * F;
      for (let i = 0; i < F; i++) z += p[w + i]! * x[i]!;
      h[j] = Math.tanh(z);
    }
    return h;
  }

  private logitFrom(h: Float64Array): number {
    let z = this.params[this.ob2]!;
    for (let j = 0; j < h.length; j++) z += this.params[this.ow2 + j]! * h[j]!;
    return z;
  }

  logit(x: Float32Array): number {
    this.check(x);
    return this.logitFrom(this.hidden(x));
  }

  predict(x: Float32Array): number {
    return sigmoid(this.logit(x));
  }

  /** Adds scale · ∂BCE(x, y)/∂θ to grads and returns the loss (unscaled). */
  accumulate(x: Float32Array, y: number, scale = 1): number {
    this.check(x);
    const { input: F, hidden: H } = this.dims;
    const h = this.hidden(x);
    const z = this.logitFrom(h);
    const dz = (sigmoid(z) - y) * scale;
    const p = this.params;
    const g = this.grads;
    g[this.ob2]! += dz;
    for (let j = 0; j < H; j++) {
      g[this.ow2 + j]! += dz * h[j]!;
      const da = dz * p[this.ow2 + j]! * (1 - h[j]! * h[j]!);
      if (da === 0) continue;
      g[this.ob1 + j]! += da;
      const w = j * F;
      for (let i = 0; i < F; i++) g[w + i]! += da * x[i]!;
    }
    return bceWithLogit(z, y);
  }

  zeroGrad(): void {
    this.grads.fill(0);
  }
}
