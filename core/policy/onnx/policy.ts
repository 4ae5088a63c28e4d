import type { Observation } from '../../device/observation.js';
import type { Policy, PolicyContext, PolicyDecision } from '../../episode/policy.js';
import { TemperatureError, type Selection } from '../builtin.js';
import { buildCandidates, type CandidateOptions } from '../candidates.js';
import { featurize } from '../features.js';
import type { OnnxPolicyModel } from './runtime.js';

/**
 * The builtin policy with its scorer in ONNX Runtime: candidates and features are built in
 * TypeScript exactly as BuiltinPolicy builds them (with the encoder the model's metadata names),
 * the n × F matrix goes through the ONNX graph, and the choice is the same greedy argmax or
 * softmax(s/T) sample. Decisions carry every candidate with its probability, as BuiltinPolicy's do.
 */
export class OnnxPolicy implements Policy {
  readonly name: string;

  constructor(
    readonly model: OnnxPolicyModel,
    readonly selection: Selection = { mode: 'greedy' },
    readonly opts: { name?: string; candidates?: CandidateOptions } = {},
  ) {
    if (selection.mode === 'sample' && !(Number.isFinite(selection.temperature) && selection.temperature > 0)) {
      throw new TemperatureError(selection.temperature);
    }
    this.name = opts.name ?? 'onnx';
  }

  async act(obs: Observation, ctx: PolicyContext): Promise<PolicyDecision> {
    const candidates = buildCandidates(obs, ctx.instruction, this.opts.candidates);
    const features = featurize(obs, ctx, candidates, this.model.encoder);
    const n = candidates.length;
    const temperature = this.selection.mode === 'sample' ? this.selection.temperature : 1;
    const { logProbs: lp } = await this.model.forward(features, n, temperature);
    const chosen = choose(lp, this.selection);
    const pick = candidates[chosen]!;
    const p = Math.exp(lp[chosen]!);
    return {
      action: pick.action,
      thought: `${pick.text} (p=${p.toFixed(2)} of ${n} candidates, ${this.selection.mode}, onnx)`,
      candidates: candidates.map((c, i) => ({ action: c.action, score: lp[i]!, probability: Math.exp(lp[i]!) })),
    };
  }
}

/**
 * An OnnxPolicy whose model is still loading: a rollout worker loads each model file once,
 * asynchronously, while its Policy objects are made synchronously per job. A file that fails to
 * load fails the first act() of each episode that uses it.
 */
export function pendingOnnxPolicy(model: Promise<OnnxPolicyModel>, selection?: Selection, name?: string): Policy {
  let ready: OnnxPolicy | null = null;
  return {
    name: name ?? 'onnx',
    act: async (obs, ctx) => {
      ready ??= new OnnxPolicy(await model, selection, name ? { name } : {});
      return ready.act(obs, ctx);
    },
  };
}

/** Greedy: the first index of the largest log π (BuiltinPolicy's tie rule). Sample: inverse CDF with one draw of the rng. */
export function choose(lp: ArrayLike<number>, selection: Selection): number {
  const n = lp.length;
  switch (selection.mode) {
    case 'greedy': {
      let best = 0;
      for (let i = 1; i < n; i++) if (lp[i]! > lp[best]!) best = i;
      return best;
    }
    case 'sample': {
      let u = selection.rng.next();
      for (let i = 0; i < n; i++) {
        u -= Math.exp(lp[i]!);
        if (u < 0) return i;
      }
      return n - 1;
    }
  }
}
