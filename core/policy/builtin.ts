import type { Action } from '../actions/schema.js';
import type { Observation } from '../device/observation.js';
import type { Policy, PolicyContext, PolicyDecision } from '../episode/policy.js';
import type { Rng } from '../util/rng.js';
import { buildCandidates, type CandidateOptions, type PolicyCandidate } from './candidates.js';
import { createEncoder, DEFAULT_ENCODER, type EncoderConfig, type TextEncoder } from './encoder.js';
import { featureDim, featurize } from './features.js';
import { logSoftmax, ScorerNetwork, type NetworkDims } from './network.js';

/** What a trainer needs of one decision, without recomputing features: the matrix, the choice, log π. */
export interface PolicyStepRecord {
  /** Row-major candidates × featureDim. */
  features: Float32Array;
  /** Number of candidates (rows). */
  n: number;
  /** Index of the chosen candidate. */
  chosen: number;
  /** log π(chosen) under the parameters and temperature that chose it. */
  logProb: number;
  temperature: number;
  action: Action;
}

/** How the policy picks among candidates: sample from softmax(s/T), or take the argmax. */
export type Selection = { mode: 'greedy' } | { mode: 'sample'; temperature: number; rng: Rng };

export class TemperatureError extends Error {
  override name = 'TemperatureError';
  constructor(readonly temperature: unknown) {
    super(`Sampling temperature must be a finite number > 0, got ${JSON.stringify(temperature)}`);
  }
}

export const DEFAULT_HIDDEN = 24;

/** A network together with the encoder its features were built for. */
export interface PolicyModel {
  encoder: TextEncoder;
  net: ScorerNetwork;
}

export function createModel(rng: Rng, encoder: EncoderConfig = DEFAULT_ENCODER, hidden = DEFAULT_HIDDEN): PolicyModel {
  const enc = createEncoder(encoder);
  const dims: NetworkDims = { input: featureDim(enc.dim), hidden };
  return { encoder: enc, net: ScorerNetwork.init(dims, rng) };
}

export interface StepInputs {
  candidates: PolicyCandidate[];
  features: Float32Array;
}

/** Candidates and their feature matrix for one observation (what act() and SFT both use). */
export function stepInputs(model: PolicyModel, obs: Observation, ctx: Pick<PolicyContext, 'instruction' | 'step' | 'history'>, opts?: CandidateOptions): StepInputs {
  const candidates = buildCandidates(obs, ctx.instruction, opts);
  return { candidates, features: featurize(obs, ctx, candidates, model.encoder) };
}

/**
 * The builtin trainable policy. act() builds the candidate set, scores it, and picks greedily or
 * samples with temperature; the decision carries every candidate with its probability (shown in
 * the Agent view) and a one-line thought. With `record: true` each decision's features, choice and
 * log π are kept for a trainer (`takeRecords()`).
 */
export class BuiltinPolicy implements Policy {
  readonly name: string;
  private records: PolicyStepRecord[] = [];

  constructor(
    readonly model: PolicyModel,
    readonly selection: Selection = { mode: 'greedy' },
    readonly opts: { record?: boolean; name?: string; candidates?: CandidateOptions } = {},
  ) {
    if (selection.mode === 'sample' && !(Number.isFinite(selection.temperature) && selection.temperature > 0)) {
      throw new TemperatureError(selection.temperature);
    }
    this.name = opts.name ?? 'builtin';
  }

  act(obs: Observation, ctx: PolicyContext): PolicyDecision {
    const { candidates, features } = stepInputs(this.model, obs, ctx, this.opts.candidates);
    const n = candidates.length;
    const temperature = this.selection.mode === 'sample' ? this.selection.temperature : 1;
    const lp = logSoftmax(this.model.net.scores(features, n), temperature);
    let chosen = 0;
    if (this.selection.mode === 'greedy') {
      for (let i = 1; i < n; i++) if (lp[i]! > lp[chosen]!) chosen = i;
    } else {
      let u = this.selection.rng.next();
      chosen = n - 1;
      for (let i = 0; i < n; i++) {
        u -= Math.exp(lp[i]!);
        if (u < 0) {
          chosen = i;
          break;
        }
      }
    }
    const pick = candidates[chosen]!;
    if (this.opts.record) this.records.push({ features, n, chosen, logProb: lp[chosen]!, temperature, action: pick.action });
    const p = Math.exp(lp[chosen]!);
    return {
      action: pick.action,
      thought: `${pick.text} (p=${p.toFixed(2)} of ${n} candidates, ${this.selection.mode})`,
      candidates: candidates.map((c, i) => ({ action: c.action, score: lp[i]!, probability: Math.exp(lp[i]!) })),
    };
  }

  /** The recorded decisions since the last call, oldest first; clears them. */
  takeRecords(): PolicyStepRecord[] {
    const out = this.records;
    this.records = [];
    return out;
  }
}
