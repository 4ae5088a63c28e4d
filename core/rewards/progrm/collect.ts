import { isTerminal, parseAction } from '../../actions/schema.js';
import type { Device } from '../../device/device.js';
import { OraclePolicy } from '../../episode/policies/oracle.js';
import { RandomPolicy } from '../../episode/policies/random.js';
import type { Policy } from '../../episode/policy.js';
import type { EpisodeRecorder, EpisodeResult, StepRecord } from '../../episode/record.js';
import { runEpisode } from '../../episode/runner.js';
import type { TaskInstance } from '../../tasks/instance.js';
import type { Rng } from '../../util/rng.js';
import type { RewardEpisode, RewardStep } from '../component.js';
import { SubgoalTracker } from '../episode.js';

/**
 * Episodes for ProgRM's annotation and its evaluation, collected on a live device with SimDroid's
 * ground truth captured as they run (core/rewards/episode.ts SubgoalTracker: after every step the
 * template's ordered subgoals are checked from a pointer that only moves forward, so `subgoalsDone`
 * is non-decreasing).
 */

/**
 * The oracle, except that with probability p a step is a random non-terminal action instead; the
 * oracle then carries on from wherever that left it. When the oracle's script cannot go on from the
 * screen it finds (it throws), the agent is lost: random non-terminal actions until the step budget,
 * which gives the failed trajectories with partial progress and useless repetition the paper labels.
 */
export class PerturbedOraclePolicy implements Policy {
  readonly name: string;
  private readonly oracle = new OraclePolicy();
  private readonly random: RandomPolicy;
  private lost = false;
  constructor(private readonly p: number, private readonly rng: Rng) {
    this.name = `oracle~${p}`;
    this.random = new RandomPolicy(rng.fork('random'));
  }

  start: Policy['start'] = (ctx) => {
    this.lost = false;
    return this.oracle.start(ctx);
  };

  act: Policy['act'] = (obs, ctx) => {
    if (!this.lost && !this.rng.chance(this.p)) {
      try {
        return this.oracle.act(obs, ctx);
      } catch {
        // The script found a screen it has no move for: from here on the agent wanders.
        this.lost = true;
      }
    }
    for (let attempt = 0; attempt < 10; attempt++) {
      const d = this.random.act(obs);
      let terminal = false;
      try {
        terminal = isTerminal(parseAction(d.action));
      } catch {
        // A random action that does not parse is a format error worth keeping; it is not terminal.
      }
      if (!terminal) return { ...d, thought: this.lost ? 'lost' : 'perturbation' };
    }
    return { action: { action_type: 'navigate_back' }, thought: 'perturbation' };
  };
}

/** Builds the reward view of a finished episode from the runner's records and the before-step trees. */
export function toRewardEpisode(
  instance: TaskInstance, result: EpisodeResult, trees: readonly string[], ground?: { done: readonly number[]; names: readonly string[] },
): RewardEpisode {
  const steps: RewardStep[] = result.steps.map((s: StepRecord, i) => {
    const r: RewardStep = { index: s.index, foreground: s.foreground };
    if (s.action) r.action = s.action;
    if (s.description !== undefined) r.description = s.description;
    if (s.error) r.error = s.error;
    if (trees[i] !== undefined) r.tree = trees[i];
    if (s.target) r.target = { label: s.target.label };
    return r;
  });
  const ep: RewardEpisode = {
    templateId: instance.template.id, seed: instance.seed, instruction: instance.instruction,
    params: instance.params as Record<string, unknown>, steps, success: result.status === 'error' ? null : result.success,
  };
  if (result.status === 'error') {
    ep.verdictNote = `episode error, ended by ${result.terminatedBy}${result.error ? ` (${result.error.name}: ${result.error.message})` : ''}`;
  }
  if (ground) {
    ep.subgoalsDone = ground.done;
    ep.subgoalNames = ground.names;
  }
  return ep;
}

/** Runs one episode and returns it with its ground-truth subgoal progress (the framework's SubgoalTracker). */
export async function collectEpisode(device: Device, instance: TaskInstance, policy: Policy): Promise<RewardEpisode> {
  const tracker = new SubgoalTracker(device, instance);
  const trees: string[] = [];
  const recorder: EpisodeRecorder = {
    begin() {},
    step(_step, before) {
      trees.push(before.xml);
    },
    end() {},
  };
  const result = await runEpisode({ device, instance, policy, recorder, onStepDone: tracker.onStepDone });
  const { done, names } = tracker.progress();
  return toRewardEpisode(instance, result, trees, { done, names });
}

export interface CollectPlan {
  /** Perturbation probabilities; each instance is run once per entry (0 = the plain oracle). */
  perturbations: readonly number[];
  rng: Rng;
}

/** Each instance once per perturbation level, in order. */
export async function collectEpisodes(device: Device, instances: readonly TaskInstance[], plan: CollectPlan): Promise<RewardEpisode[]> {
  const out: RewardEpisode[] = [];
  for (const instance of instances) {
    for (const p of plan.perturbations) {
      const policy = p === 0 ? new OraclePolicy() : new PerturbedOraclePolicy(p, plan.rng.fork(`${instance.template.id}/${instance.seed}/${p}`));
      out.push(await collectEpisode(device, instance, policy));
    }
  }
  return out;
}
