import { parseAction } from '../../actions/schema.js';
import type { Device } from '../../device/device.js';
import { OraclePolicy } from '../../episode/policies/oracle.js';
import type { Policy } from '../../episode/policy.js';
import { runEpisode } from '../../episode/runner.js';
import { buildCandidates, matchCandidate, type PolicyCandidate } from '../../policy/candidates.js';
import type { TaskInstance } from '../../tasks/instance.js';
import type { Rng } from '../../util/rng.js';
import type { LabelledStep } from './builtin.js';
import { inputFromObservation } from './judge.js';

/**
 * Labelled steps for the builtin judge, from SimDroid (the analogue of GUI-Shepherd's online
 * rollout pipeline, digest 002 §2.4, with the oracle standing in for the human annotators):
 *
 * - positives: every step of the oracle's episode (the scripted solution's action on its screen);
 * - negatives: episodes that follow the oracle up to step t, then replace its action by another
 *   candidate from buildCandidates (not matching the oracle's action by matchCandidate), carry it
 *   out and end. A step is labelled correct iff it equals the oracle's next action.
 *
 * Why a deviating episode ends at the deviation: the scripted oracle's generator has moved past
 * the action it proposed, so after a replaced step it has no trustworthy "next action" to label
 * against; the negative's screen is still one the episode really reached. This is the paper's
 * one-step-rollout construction (a state, an alternative action, a label).
 *
 * The replacement is drawn uniformly over candidate kinds, then uniformly within the kind, so the
 * many open_app and answer candidates do not make every negative an app launch.
 */
export interface CollectOptions {
  rng: Rng;
  /** Deviating episodes per instance, at distinct steps (default: one per oracle step, giving 1:1 data). */
  deviationsPerEpisode?: number;
}

export interface LabelledSet {
  steps: LabelledStep[];
  /** Oracle episodes run (one clean episode per instance). */
  episodes: number;
  /** Oracle episodes that did not succeed (their steps are still the reference). */
  oracleFailures: number;
  /** Steps where the screen offered no candidate other than the oracle's (no negative drawn). */
  noAlternative: number;
}

function pickDeviation(candidates: readonly PolicyCandidate[], oracleIndex: number, rng: Rng): PolicyCandidate | undefined {
  const others = candidates.filter((_, i) => i !== oracleIndex);
  if (!others.length) return undefined;
  const kinds = [...new Set(others.map((c) => c.kind))];
  const kind = rng.pick(kinds);
  return rng.pick(others.filter((c) => c.kind === kind));
}

export async function collectLabelledSteps(device: Device, instances: readonly TaskInstance[], opts: CollectOptions): Promise<LabelledSet> {
  const set: LabelledSet = { steps: [], episodes: 0, oracleFailures: 0, noAlternative: 0 };
  for (const instance of instances) {
    const meta = { templateId: instance.template.id, seed: instance.seed };
    // 1) The oracle's own episode: every step is a positive.
    const oracle = new OraclePolicy();
    let length = 0;
    const clean: Policy = {
      name: 'oracle',
      start: (ctx) => oracle.start(ctx),
      act(obs, ctx) {
        const decision = oracle.act(obs, ctx);
        const action = parseAction(decision.action);
        set.steps.push({ input: inputFromObservation(obs, ctx, action), label: 1, ...meta });
        length++;
        return decision;
      },
    };
    const r = await runEpisode({ device, instance, policy: clean });
    set.episodes++;
    if (!r.success) set.oracleFailures++;

    // 2) Deviating episodes: the oracle until step t, another candidate at t, then stop.
    const k = Math.min(length, opts.deviationsPerEpisode ?? length);
    const at = opts.rng.fork(`${meta.templateId}/${meta.seed}`).sample([...Array(length).keys()], k);
    for (const t of at) {
      const rng = opts.rng.fork(`${meta.templateId}/${meta.seed}/${t}`);
      const o = new OraclePolicy();
      const deviating: Policy = {
        name: 'oracle-deviating',
        start: (ctx) => o.start(ctx),
        act(obs, ctx) {
          if (ctx.step > t) return null;
          const decision = o.act(obs, ctx);
          if (ctx.step < t) return decision;
          const action = parseAction(decision.action);
          const candidates = buildCandidates(obs, ctx.instruction);
          const dev = pickDeviation(candidates, matchCandidate(candidates, action, obs), rng);
          if (!dev) {
            set.noAlternative++;
            return null;
          }
          set.steps.push({ input: inputFromObservation(obs, ctx, dev.action), label: 0, ...meta });
          return { action: dev.action, thought: `deviation from the oracle's ${action.action_type}` };
        },
      };
      await runEpisode({ device, instance, policy: deviating });
    }
  }
  return set;
}
