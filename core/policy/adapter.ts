import type { Rng } from '../util/rng.js';
import { assertNever } from '../util/errors.js';
import { NetworkShapeError, ScorerNetwork, type NetworkDims } from './network.js';
import type { PolicyModel } from './builtin.js';

/**
 * A per-app adapter: a small delta on a frozen builtin ScorerNetwork (core/policy/network.ts),
 *
 *   s(x) = (w2 + Δw2) · tanh((W1 + ΔW1) x + b1 + Δb1) + (wl + Δwl) · x
 *
 * Two kinds, a closed union:
 *   - 'head':    Δb1, Δw2, Δwl (ΔW1 = 0): 2H + F numbers.
 *   - 'lowrank': the head deltas plus ΔW1 = A · B with A ∈ R^{H×r}, B ∈ R^{r×F} (LoRA, Hu et al. 2021,
 *                Eq. 3: h = W0 x + B A x with one factor initialised to zero so training starts from W0).
 *                Here A (the factor next to the hidden units) starts at 0 and B ~ U(±1/√F), so the
 *                adapter starts as the identity: H·r + r·F + 2H + F numbers. No α/r scaling: the
 *                optimizer's learning rate plays that role for one fixed rank.
 *
 * Forward and backward go through the *merged* network θ_eff = θ_base + Δ(φ): scores, log π and
 * dL/dθ_eff come from ScorerNetwork as they are, then dL/dφ follows by the chain rule,
 *
 *   dL/dΔb1 = dL/db1,  dL/dΔw2 = dL/dw2,  dL/dΔwl = dL/dwl,
 *   dL/dA = (dL/dW1) · Bᵀ,  dL/dB = Aᵀ · (dL/dW1),
 *
 * so the base parameters are read, never written. Adapter parameters live in one flat Float32Array:
 * [A (H×r, row-major) | B (r×F, row-major) | Δb1 (H) | Δw2 (H) | Δwl (F)], A and B only for 'lowrank'.
 */
export const ADAPTER_KINDS = ['head', 'lowrank'] as const;
export type AdapterKind = (typeof ADAPTER_KINDS)[number];

export type AdapterSpec = { kind: 'head' } | { kind: 'lowrank'; rank: number };

/** Ranks beyond this are no longer "low" for the builtin scorer (H is 24 by default). */
export const MAX_ADAPTER_RANK = 64;

export class AdapterSpecError extends Error {
  override name = 'AdapterSpecError';
  constructor(message: string, readonly got: unknown) {
    super(`${message} (got ${JSON.stringify(got)})`);
  }
}

export function checkAdapterSpec(spec: AdapterSpec): void {
  switch (spec.kind) {
    case 'head':
      return;
    case 'lowrank':
      if (!Number.isInteger(spec.rank) || spec.rank < 1 || spec.rank > MAX_ADAPTER_RANK) {
        throw new AdapterSpecError(`Low-rank adapter rank must be an integer in 1..${MAX_ADAPTER_RANK}`, spec.rank);
      }
      return;
    default:
      return assertNever(spec, 'adapter kind');
  }
}

/** The rank of ΔW1 (0 for a head-only adapter). */
export function adapterRank(spec: AdapterSpec): number {
  switch (spec.kind) {
    case 'head':
      return 0;
    case 'lowrank':
      return spec.rank;
    default:
      return assertNever(spec, 'adapter kind');
  }
}

export function adapterParameterCount(spec: AdapterSpec, d: NetworkDims): number {
  const r = adapterRank(spec);
  return d.hidden * r + r * d.input + 2 * d.hidden + d.input;
}

export class ScorerAdapter {
  readonly params: Float32Array;
  readonly grads: Float32Array;
  readonly rank: number;
  private readonly oB: number;
  private readonly ob1: number;
  private readonly ow2: number;
  private readonly owl: number;

  constructor(readonly spec: AdapterSpec, readonly dims: NetworkDims, params?: Float32Array) {
    checkAdapterSpec(spec);
    const size = adapterParameterCount(spec, dims);
    if (params && params.length !== size) throw new NetworkShapeError(`Expected ${size} adapter parameters for ${JSON.stringify({ spec, dims })}`, params.length);
    this.params = params ?? new Float32Array(size);
    this.grads = new Float32Array(size);
    this.rank = adapterRank(spec);
    const { input: F, hidden: H } = dims;
    this.oB = H * this.rank;
    this.ob1 = this.oB + this.rank * F;
    this.ow2 = this.ob1 + H;
    this.owl = this.ow2 + H;
  }

  /** The identity adapter: every delta 0 except B ~ U(±1/√F) (LoRA's Kaiming-uniform bound), seeded. */
  static init(spec: AdapterSpec, dims: NetworkDims, rng: Rng): ScorerAdapter {
    const a = new ScorerAdapter(spec, dims);
    const bound = 1 / Math.sqrt(dims.input);
    for (let i = a.oB; i < a.ob1; i++) a.params[i] = (2 * rng.next() - 1) * bound;
    return a;
  }

  clone(): ScorerAdapter {
    return new ScorerAdapter(this.spec, { ...this.dims }, this.params.slice());
  }

  zeroGrad(): void {
    this.grads.fill(0);
  }

  private checkBase(base: ScorerNetwork): void {
    if (base.dims.input !== this.dims.input || base.dims.hidden !== this.dims.hidden) {
      throw new NetworkShapeError(`Adapter built for ${JSON.stringify(this.dims)} applied to a network of`, base.dims);
    }
  }

  /**
   * θ_eff = θ_base + Δ written into `into` (a network of the same shape, reused across calls) or a
   * new network. Sums run in float64 and are stored as float32, as the base's own parameters are.
   */
  merge(base: ScorerNetwork, into?: ScorerNetwork): ScorerNetwork {
    this.checkBase(base);
    const out = into ?? new ScorerNetwork({ ...base.dims });
    if (into) this.checkBase(into);
    const { input: F, hidden: H } = this.dims;
    const r = this.rank;
    const p = this.params;
    const b = base.params;
    const o = out.params;
    for (let j = 0; j < H; j++) {
      const w = j * F;
      if (r === 0) {
        for (let i = 0; i < F; i++) o[w + i] = b[w + i]!;
        continue;
      }
      for (let i = 0; i < F; i++) {
        let d = 0;
        for (let k = 0; k < r; k++) d += p[j * r + k]! * p[this.oB + k * F + i]!;
        o[w + i] = b[w + i]! + d;
      }
    }
    const ob1 = H * F;
    for (let j = 0; j < H; j++) o[ob1 + j] = b[ob1 + j]! + p[this.ob1 + j]!;
    for (let j = 0; j < H; j++) o[ob1 + H + j] = b[ob1 + H + j]! + p[this.ow2 + j]!;
    for (let i = 0; i < F; i++) o[ob1 + 2 * H + i] = b[ob1 + 2 * H + i]! + p[this.owl + i]!;
    return out;
  }

  /** A policy model scoring with base + this adapter (the base model is left untouched). */
  mergeModel(base: PolicyModel): PolicyModel {
    return { encoder: base.encoder, net: this.merge(base.net) };
  }

  /**
   * Adds dL/dφ to grads, given dL/dθ_eff (the `grads` of the merged network, laid out as
   * ScorerNetwork.params): the chain rule in the module comment.
   */
  accumulateFromMerged(mergedGrads: Float32Array): void {
    const { input: F, hidden: H } = this.dims;
    if (mergedGrads.length !== H * F + 2 * H + F) throw new NetworkShapeError('Merged gradient has the wrong length', mergedGrads.length);
    const r = this.rank;
    const p = this.params;
    const g = this.grads;
    if (r > 0) {
      for (let j = 0; j < H; j++) {
        const w = j * F;
        for (let k = 0; k < r; k++) {
          // dA[j,k] = Σ_i gW1[j,i] B[k,i];  dB[k,i] += A[j,k] gW1[j,i]
          const a = p[j * r + k]!;
          const bo = this.oB + k * F;
          let s = 0;
          for (let i = 0; i < F; i++) {
            const gw = mergedGrads[w + i]!;
            s += gw * p[bo + i]!;
            if (a !== 0) g[bo + i]! += a * gw;
          }
          g[j * r + k]! += s;
        }
      }
    }
    const ob1 = H * F;
    for (let j = 0; j < H; j++) g[this.ob1 + j]! += mergedGrads[ob1 + j]!;
    for (let j = 0; j < H; j++) g[this.ow2 + j]! += mergedGrads[ob1 + H + j]!;
    for (let i = 0; i < F; i++) g[this.owl + i]! += mergedGrads[ob1 + 2 * H + i]!;
  }

  /**
   * Accumulates dLogp · ∂ log π(chosen)/∂φ into grads and returns log π(chosen) under `merged`,
   * which must be merge(base) with the current parameters (its own grads are overwritten).
   */
  accumulateLogProb(merged: ScorerNetwork, x: Float32Array, n: number, chosen: number, dLogp: number, temperature = 1): number {
    merged.zeroGrad();
    const lp = merged.accumulateLogProb(x, n, chosen, dLogp, temperature);
    this.accumulateFromMerged(merged.grads);
    return lp;
  }
}
