import type { Rng } from '../../util/rng.js';

/**
 * The builtin judge's classifier: logit = w2 · tanh(W1 x + b1) + b2 (hidden > 0), or the logistic
 * regression logit = w · x + b (hidden = 0). P(correct) = σ(logit). Trained with binary
 * cross-entropy, the paper's loss over its two label tokens (digest 002 §2.6, Eq. 2:
 * L = −log P_θ(y | I, s, a)), here L = −[y log σ(z) + (1−y) log(1−σ(z))], so dL/dz = σ(z) − y.
 * Backward is written by hand (checked against finite differences in the tests).
 */
export interface JudgeDims {
  input: number;
  /** 0 = logistic regression. */
  hidden: number;
}

export class JudgeShapeError extends Error {
  override name = 'JudgeShapeError';
  constructor(message: string, readonly got: unknown) {
    super(`${message} (got ${JSON.stringify(got)})`);
  }
}

export function judgeParameterCount(d: JudgeDims): number {
  return d.hidden === 0 ? d.input + 1 : d.hidden * d.input + 2 * d.hidden + 1;
}

export function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

/** log(1 + e^z) without overflow. */
function softplus(z: number): number {
  return z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z));
}

export class JudgeNetwork {
  readonly params: Float32Array;
  readonly grads: Float32Array;
  private readonly hiddenBuf: Float64Array;

  constructor(readonly dims: JudgeDims, params?: Float32Array) {
    if (!Number.isInteger(dims.input) || dims.input < 1 || !Number.isInteger(dims.hidden) || dims.hidden < 0) throw new JudgeShapeError('Bad judge network dims', dims);
    const size = judgeParameterCount(dims);
    if (params && params.length !== size) throw new JudgeShapeError(`Expected ${size} parameters for ${JSON.stringify(dims)}`, params.length);
    this.params = params ?? new Float32Array(size);
    this.grads = new Float32Array(size);
    this.hiddenBuf = new Float64Array(dims.hidden);
  }

  /** Seeded init: W1 ~ U(±√(3/F)) (unit-variance pre-activations), w2 ~ U(±0.1/√H), biases 0; logistic w = 0. */
  static init(dims: JudgeDims, rng: Rng): JudgeNetwork {
    const net = new JudgeNetwork(dims);
    if (dims.hidden === 0) return net;
    const { input: F, hidden: H } = dims;
    const a = Math.sqrt(3 / F);
    for (let i = 0; i < H * F; i++) net.params[i] = (2 * rng.next() - 1) * a;
    const b = 0.1 / Math.sqrt(H);
    for (let j = 0; j < H; j++) net.params[H * F + H + j] = (2 * rng.next() - 1) * b;
    return net;
  }

  /** The logit for row `r` of a row-major (rows × input) matrix. */
  logit(x: Float32Array, r = 0): number {
    const { input: F, hidden: H } = this.dims;
    const p = this.params;
    const o = r * F;
    if (H === 0) {
      let z = p[F]!;
      for (let i = 0; i < F; i++) z += p[i]! * x[o + i]!;
      return z;
    }
    let z = p[H * F + 2 * H]!;
    for (let j = 0; j < H; j++) {
      let a = p[H * F + j]!;
      const w = j * F;
      for (let i = 0; i < F; i++) a += p[w + i]! * x[o + i]!;
      const hj = Math.tanh(a);
      this.hiddenBuf[j] = hj;
      z += p[H * F + H + j]! * hj;
    }
    return z;
  }

  /**
   * Adds weight · dL/dθ of the BCE loss for row r with label y to `grads` and returns the
   * unweighted loss. dL/dz = σ(z) − y; through the MLP: dL/dw2_j = g h_j, dL/db2 = g,
   * dL/da_j = g w2_j (1 − h_j²), dL/dW1_ji = dL/da_j x_i, dL/db1_j = dL/da_j.
   */
  accumulate(x: Float32Array, r: number, y: 0 | 1, weight: number): number {
    const { input: F, hidden: H } = this.dims;
    const p = this.params;
    const gr = this.grads;
    const o = r * F;
    const z = this.logit(x, r);
    const g = (sigmoid(z) - y) * weight;
    if (H === 0) {
      for (let i = 0; i < F; i++) gr[i] = gr[i]! + g * x[o + i]!;
      gr[F] = gr[F]! + g;
    } else {
      const ob1 = H * F;
      const ow2 = ob1 + H;
      gr[ow2 + H] = gr[ow2 + H]! + g;
      for (let j = 0; j < H; j++) {
        const hj = this.hiddenBuf[j]!;
        gr[ow2 + j] = gr[ow2 + j]! + g * hj;
        const da = g * p[ow2 + j]! * (1 - hj * hj);
        gr[ob1 + j] = gr[ob1 + j]! + da;
        const w = j * F;
        for (let i = 0; i < F; i++) gr[w + i] = gr[w + i]! + da * x[o + i]!;
      }
    }
    return softplus(z) - y * z;
  }

  zeroGrad(): void {
    this.grads.fill(0);
  }
}
