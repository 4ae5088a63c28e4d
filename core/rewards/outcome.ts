import { z } from 'zod';
import type { RewardComponent, RewardEpisode, StepRewardValue } from './component.js';

/**
 * The task checker's verdict as a reward (AndroidWorld's binary success; MobileRL §2.1 "rewards are
 * binary and terminal"): the verdict belongs to the last action, every earlier step gets 0. An
 * episode without a verdict (it ended in an environment error, the policy crashed, it was stopped)
 * is unscored on every step — null with the reason — never a 0 that reads as "failed".
 * With placement 'every' the verdict is given to every step instead (ADMIRE writes R_outcome(t) and
 * z-scores rewards over all steps of a group, digest 000 §2.7–2.8).
 */
export const OutcomeOptions = z.strictObject({
  success: z.number().finite().default(1).describe('Reward on the last step of a successful episode (binary: 1)'),
  failure: z.number().finite().default(0).describe('Reward on the last step of a failed episode (binary: 0)'),
  placement: z.enum(['last', 'every']).default('last')
    .describe("'last': on the final step only (terminal reward; GUI-Shepherd's ORM baseline); 'every': broadcast to every step (ADMIRE's R_outcome(t), needed by its step-level advantage)"),
});
export type OutcomeOptions = z.infer<typeof OutcomeOptions>;

export function outcomeComponent(options: Partial<OutcomeOptions> = {}): RewardComponent {
  const o = OutcomeOptions.parse(options);
  return {
    kind: 'outcome',
    compute: async (episode) => outcomeValues(episode, o),
  };
}

function outcomeValues(episode: RewardEpisode, o: OutcomeOptions): StepRewardValue[] {
  const last = episode.steps.length - 1;
  return episode.steps.map((_, step) => {
    if (episode.success === null) return { step, value: null, explanation: `no checker verdict: ${episode.verdictNote ?? 'the episode ended in an error'}` };
    if (step < last && o.placement === 'last') return { step, value: 0, explanation: 'outcome is given on the last step' };
    const where = step < last ? ' (broadcast to every step)' : '';
    return episode.success
      ? { step, value: o.success, explanation: `checker: success${where}` }
      : { step, value: o.failure, explanation: `checker: failure${where}` };
  });
}
