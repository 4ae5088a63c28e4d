import type { Policy, PolicyDecision } from '../policy.js';

/**
 * A person drives the episode from the step-through view: each step proposes `wait` and holds, and
 * the person overrides it (clicks an element, picks an action) before stepping on. Unlike
 * HumanPolicy (a terminal that supplies actions), it never blocks the runner.
 */
export class ManualPolicy implements Policy {
  readonly name = 'manual';

  act(): PolicyDecision {
    // A handover, so Run holds here for the person instead of recording a page of waits.
    return {
      action: { action_type: 'wait' }, thought: 'Waiting for you: click an element on the screen or choose an action, then Step.',
      handover: 'the manual policy waits for you to choose each action',
    };
  }
}
