import { condition, verdictOf } from './verdict.js';
import { z } from 'zod';
import type { TaskInstance } from './instance.js';
import { defineTask } from './task.js';

/**
 * A free-form instruction typed in the step-through view ("open the clock and add an alarm at
 * 6"): an episode without a template. There is no state to verify, so success is the agent's own
 * claim — it ends with `status: complete` — and the template id `FreeForm` keeps such episodes
 * apart in the store (filter them out of training data unless a person judged them). Not in the
 * registry: suites and splits never draw it.
 */
export const FREE_FORM_ID = 'FreeForm';

export class FreeFormOracleError extends Error {
  override name = 'FreeFormOracleError';
  constructor(readonly instruction: string) {
    super(`A free-form instruction has no scripted solution: choose the random or manual policy for ${JSON.stringify(instruction)}`);
  }
}

const Params = z.strictObject({ instruction: z.string().trim().min(1).max(2000) });
type Params = z.infer<typeof Params>;

export const FREE_FORM = defineTask<Params>({
  id: FREE_FORM_ID,
  apps: ['Settings'],
  difficulty: 'medium',
  tags: [],
  kind: 'completion',
  template: '{instruction}',
  params: Params,
  generate: () => {
    throw new FreeFormOracleError('(no instruction)');
  },
  instruction: (p) => p.instruction,
  // The device starts from its boot snapshot, as for every episode; nothing else is set up.
  initialize: async () => {},
  check: async (_device, _p, episode) => verdictOf([condition('the agent declared the task complete', 'complete', episode.status ?? 'no status')]),
  subgoals: () => [],
  oracle: (p) => {
    throw new FreeFormOracleError(p.instruction);
  },
});

export function freeFormInstance(instruction: string): TaskInstance<Params> {
  const params = Params.parse({ instruction });
  return { template: FREE_FORM, seed: 0, params, instruction: params.instruction };
}
