import { parseAction, type Action } from '../../actions/schema.js';
import type { Observation } from '../../device/observation.js';
import type { Policy, PolicyContext, PolicyDecision } from '../../episode/policy.js';
import type { TaskInstance } from '../../tasks/instance.js';
import { inputFromObservation, type JudgeVerdict, type StepJudge } from './judge.js';

/**
 * GUI-Shepherd as an inference-time verifier (digest 002 §4, Alg. 2, Eq. 6):
 *   sample a_1..a_n ~ π(· | I, s_t);  a* = argmax_i L_pos(I, s_t, a_i)
 * with L_pos the positive token's logit; here the judge's P(correct), which is monotone in it.
 * Identical samples are judged once. Unjudged samples (a judge endpoint down) rank below every
 * judged one; when none is judged the verifier acts on the first sample (the base policy alone)
 * and says so in the thought. n = 3 by default (the paper's AndroidWorld setting).
 *
 * The base policy must sample (BuiltinPolicy with selection 'sample'): a greedy one gives n equal
 * samples and the verifier changes nothing. Do not wrap a recording BuiltinPolicy (record: true):
 * it would keep n records per step.
 */
export class VerifierPolicy implements Policy {
  readonly name: string;
  constructor(readonly base: Policy, readonly judge: StepJudge, readonly n = 3) {
    if (!Number.isInteger(n) || n < 1) throw new VerifierSizeError(n);
    this.name = `${base.name}+verifier(${judge.name}, n=${n})`;
  }

  start(ctx: { instruction: string; instance?: TaskInstance }): void | Promise<void> {
    return this.base.start?.(ctx);
  }

  async act(obs: Observation, ctx: PolicyContext): Promise<PolicyDecision | null> {
    const samples: { decision: PolicyDecision; action: Action; key: string }[] = [];
    let first: PolicyDecision | null = null;
    for (let i = 0; i < this.n; i++) {
      const d = await this.base.act(obs, ctx);
      if (!d) continue;
      first ??= d;
      let action: Action;
      try {
        action = parseAction(d.action);
      } catch {
        // An unparseable sample cannot be judged or carried out; the others compete.
        continue;
      }
      const key = JSON.stringify(action);
      if (!samples.some((s) => s.key === key)) samples.push({ decision: d, action, key });
    }
    if (!samples.length) return first;
    const verdicts = await this.judge.judge(samples.map((s) => inputFromObservation(obs, ctx, s.action)));
    const rank = (v: JudgeVerdict) => (v.p === null ? -1 : v.p);
    let best = 0;
    for (let i = 1; i < samples.length; i++) if (rank(verdicts[i]!) > rank(verdicts[best]!)) best = i;
    const summary = samples.map((s, i) => {
      const v = verdicts[i]!;
      return `${s.key} ${v.p === null ? 'unjudged' : `P=${v.p.toFixed(2)}`}`;
    }).join('; ');
    const pick = samples[best]!;
    const noneJudged = verdicts.every((v) => v.p === null);
    return {
      action: pick.action,
      thought: `${noneJudged ? 'verifier: no sample judged, acting on the first' : `verifier picked ${best + 1} of ${samples.length} distinct samples`} [${summary}]${pick.decision.thought ? ` | ${pick.decision.thought}` : ''}`,
      ...(pick.decision.candidates ? { candidates: pick.decision.candidates } : {}),
    };
  }
}

export class VerifierSizeError extends Error {
  override name = 'VerifierSizeError';
  constructor(readonly n: unknown) {
    super(`Verifier n must be an integer >= 1, got ${JSON.stringify(n)}`);
  }
}
