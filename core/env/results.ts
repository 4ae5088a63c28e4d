import type { EpisodeResult, StepRecord, Termination } from '../episode/record.js';
import type { StoreRecorder } from '../store/index.js';
import type { TaskInstance } from '../tasks/instance.js';
import type { Settled, StepValues } from './rewards.js';

/**
 * The results of `reset` and `step` as docs/env-protocol.md writes them: JSON (with `{"$bin": i}` where bytes go)
 * and the attachments.
 */
export interface EnvResult {
  value: Record<string, unknown>;
  blobs: Uint8Array[];
}

interface EpisodeView {
  instance: TaskInstance;
  recorder: StoreRecorder;
  steps: readonly StepRecord[];
  delivered: number;
  given: number;
}

/** How an episode's end reads in Gymnasium's terms: the agent ended it (terminated), or something cut it short. */
const TERMINATED: Record<Termination, boolean> = {
  answer: true, status: true, malformed_action: true, policy_done: true, policy_error: true,
  max_steps: false, stopped: false, aborted: false, environment_error: false,
};

export function resetResult(ep: EpisodeView, maxSteps: number, observation: Record<string, unknown>, blobs: Uint8Array[]): EnvResult {
  const { instance } = ep;
  return {
    value: {
      observation,
      info: {
        episode_id: ep.recorder.episodeId, template: instance.template.id, seed: instance.seed, goal: instance.instruction,
        params: instance.params, max_steps: maxSteps, app: instance.template.apps[0],
      },
    },
    blobs,
  };
}

/** The agent's step (the first of `steps`) and any a person took after it, before the agent's turn came back. */
function stepInfo(steps: readonly StepRecord[], values: StepValues): Record<string, unknown> {
  const own = steps[0];
  const info: Record<string, unknown> = {
    step: own?.index ?? null, action: own?.action ?? null, description: own?.description ?? null, error: own?.error ?? null,
    overridden: own?.overridden ?? false, person_steps: Math.max(0, steps.length - 1), rewards: values.byKind,
  };
  if (Object.keys(values.unscored).length) info.unscored = values.unscored;
  return info;
}

export function stepResult(steps: readonly StepRecord[], observation: Record<string, unknown>, blobs: Uint8Array[], values: StepValues): EnvResult {
  return { value: { observation, reward: values.total, terminated: false, truncated: false, info: stepInfo(steps, values) }, blobs };
}

/**
 * The result that ends an episode: the last steps' info, the checker's verdict, and the settled rewards. The reward is
 * the stored return minus what the agent was already given, so its rewards sum to the return.
 */
export function finalStepResult(
  ep: EpisodeView, result: EpisodeResult, observation: Record<string, unknown> | null, blobs: Uint8Array[], provisional: StepValues, settled: Settled | null,
): EnvResult {
  const reward = settled ? settled.episodeReturn - ep.given : provisional.total;
  const judged = result.status === 'success' || result.status === 'failure';
  const info: Record<string, unknown> = {
    ...stepInfo(ep.steps.slice(ep.delivered), provisional),
    episode_id: ep.recorder.episodeId,
    success: judged ? result.success : null,
    status: result.status,
    terminated_by: result.terminatedBy,
    verdict: result.verdict ?? null,
    answer: result.outcome.answer ?? null,
    episode_error: result.error ?? null,
    episode_rewards: settled?.byKind ?? null,
    episode_return: settled?.episodeReturn ?? null,
    reward_correction: reward - provisional.total,
  };
  if (settled && Object.keys(settled.unscored).length) info.unscored = settled.unscored;
  const terminated = TERMINATED[result.terminatedBy];
  return { value: { observation, reward, terminated, truncated: !terminated, info }, blobs };
}
