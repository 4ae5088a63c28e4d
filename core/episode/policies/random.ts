import type { Observation } from '../../device/observation.js';
import { ACTION_KINDS } from '../../actions/kinds.js';
import type { ActionType } from '../../actions/schema.js';
import type { Rng } from '../../util/rng.js';
import type { Policy, PolicyDecision } from '../policy.js';

/**
 * Uniform-ish random agent, the floor every learned policy must beat. Kind weights favour taps and
 * scrolls, as a person exploring would; terminal actions are rare so episodes mostly run their
 * budget.
 */
export const RANDOM_WEIGHTS: Record<ActionType, number> = {
  click: 45, scroll: 12, input_text: 10, long_press: 4, navigate_back: 8, navigate_home: 3, open_app: 8,
  keyboard_enter: 4, swipe: 2, wait: 1, answer: 1, status: 2,
  // Weight 0: never drawn, so seeded random episodes stay as they were before press_key and double_tap existed.
  press_key: 0, double_tap: 0,
};

export class RandomPolicy implements Policy {
  readonly name = 'random';
  constructor(private readonly rng: Rng) {}

  act(obs: Observation): PolicyDecision {
    const kinds = Object.entries(RANDOM_WEIGHTS) as Array<[ActionType, number]>;
    const total = kinds.reduce((s, [, w]) => s + w, 0);
    for (let attempt = 0; attempt < 20; attempt++) {
      let r = this.rng.next() * total;
      let kind: ActionType = 'click';
      for (const [k, w] of kinds) {
        r -= w;
        if (r < 0) {
          kind = k;
          break;
        }
      }
      const action = ACTION_KINDS[kind].sample(this.rng, obs);
      if (action) return { action };
    }
    return { action: { action_type: 'navigate_back' } };
  }
}
