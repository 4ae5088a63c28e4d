import { z } from 'zod';
import { ActionParseError } from '../actions/schema.js';
import { assertNever } from '../util/errors.js';
import type { RewardComponent, RewardEpisode, RewardStep, StepRewardValue } from './component.js';

/**
 * The format reward: a penalty on a step whose output was not a valid action. This is the usual
 * "format reward" of R1-style RL for LLM agents (a malformed answer is punished directly rather than
 * only through the outcome), applied per step. Two kinds of bad step, as the runner records them:
 *
 * - unparseable: the policy's output did not parse (ActionParseError);
 * - impossible: it parsed but could not be carried out (an element index out of range, typing with
 *   no focused field, an unknown app), so the device was left unchanged.
 *
 * Value: −penalty on a bad step (default penalty 1, so −1), 0 on a good one. `impossible: false`
 * penalises only unparseable output, for policies whose impossible actions the outcome already costs.
 */
export const FormatOptions = z.strictObject({
  penalty: z.number().finite().nonnegative().default(1).describe('Penalty for a bad step; the step is rewarded −penalty'),
  impossible: z.boolean().default(true).describe('Also penalise actions that parsed but could not be carried out'),
});
export type FormatOptions = z.infer<typeof FormatOptions>;

export type StepFormat = 'ok' | 'unparseable' | 'impossible';

/** How a recorded step's output fared: its error's name tells a parse failure from an impossible action. */
export function stepFormat(step: RewardStep): StepFormat {
  if (!step.error) return 'ok';
  return step.error.name === ActionParseError.name ? 'unparseable' : 'impossible';
}

export function formatComponent(options: Partial<FormatOptions> = {}): RewardComponent {
  const o = FormatOptions.parse(options);
  return {
    kind: 'format',
    compute: async (episode) => formatValues(episode, o),
  };
}

function formatValues(episode: RewardEpisode, o: FormatOptions): StepRewardValue[] {
  return episode.steps.map((s) => {
    const why = s.error ? `${s.error.name}: ${s.error.message.slice(0, 120)}` : '';
    const f = stepFormat(s);
    switch (f) {
      case 'ok':
        return { step: s.index, value: 0, explanation: 'valid action' };
      case 'unparseable':
        return { step: s.index, value: -o.penalty, explanation: `unparseable output (${why})` };
      case 'impossible':
        return o.impossible
          ? { step: s.index, value: -o.penalty, explanation: `impossible action (${why})` }
          : { step: s.index, value: 0, explanation: `impossible action, not penalised (impossible: false) (${why})` };
      default:
        return assertNever(f, 'step format');
    }
  });
}
