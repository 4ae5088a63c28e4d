import type { Action } from '../../core/actions/schema.js';
import type { RewardEpisode, RewardStep } from '../../core/rewards/component.js';

/** Hand-made episodes for the ProgRM tests: steps written as short strings. */
export type StepSpec = string;

/**
 * 'tap:Save' → click on "Save"; 'type:Name=Alice' → input "Alice" into "Name"; 'back'; 'wait';
 * 'open:Contacts'; 'scroll:down'; 'done'; 'answer:42'; 'bad' (an unparseable step).
 */
export function step(spec: StepSpec, index: number, activity = 'Main'): RewardStep {
  const [kind, arg = ''] = spec.split(/:(.*)/s);
  const base: RewardStep = { index, foreground: { package: 'com.example', activity } };
  const act = (action: Action, label?: string): RewardStep => ({ ...base, action, ...(label ? { target: { label } } : {}), description: spec });
  switch (kind) {
    case 'tap':
      return act({ action_type: 'click', index: 0 }, arg);
    case 'long':
      return act({ action_type: 'long_press', index: 0 }, arg);
    case 'type': {
      const [label, text] = arg.split('=');
      return act({ action_type: 'input_text', text: text!, index: 0 }, label);
    }
    case 'back':
      return act({ action_type: 'navigate_back' });
    case 'wait':
      return act({ action_type: 'wait' });
    case 'open':
      return act({ action_type: 'open_app', app_name: arg });
    case 'scroll':
      return act({ action_type: 'scroll', direction: arg as 'down' });
    case 'done':
      return act({ action_type: 'status', goal_status: 'complete' });
    case 'answer':
      return act({ action_type: 'answer', text: arg });
    case 'bad':
      return { ...base, error: { name: 'ActionParseError', message: 'not JSON' } };
    default:
      throw new Error(`unknown step spec ${spec}`);
  }
}

export function episode(
  specs: readonly StepSpec[], opts: Partial<Omit<RewardEpisode, 'steps'>> & { screens?: readonly string[] } = {},
): RewardEpisode {
  const { screens, ...rest } = opts;
  return {
    templateId: 'T', seed: 0, instruction: 'Do the thing', params: {}, success: true,
    ...rest,
    steps: specs.map((s, i) => {
      const st = step(s, i, screens?.[i] ?? 'Main');
      return screens?.[i] ? { ...st, tree: `<node text="${screens[i]}" content-desc="" />` } : st;
    }),
  };
}
