import { z } from 'zod';
import { issueLines } from '../util/zod-issues.js';
import { KEYS } from '../device/device.js';

/**
 * The workbench's action space, as JSON. It follows AndroidWorld's JSONAction (`action_type`,
 * `index` into the element list, `x`/`y` in screen pixels, `direction`, `text`, `app_name`,
 * `goal_status`) so recorded trajectories read like AndroidWorld's, plus an explicit swipe.
 */
const coord = z.number().finite();
const index = z.int().nonnegative().describe('Element index into the observation\'s elements (document order)');

/** A target is an element index or a point; exactly one of the two. */
function targeted<K extends string>(kind: K) {
  return z
    .strictObject({
      action_type: z.literal(kind),
      index: index.optional(),
      x: coord.optional(),
      y: coord.optional(),
    })
    .refine((a) => (a.index !== undefined) !== (a.x !== undefined || a.y !== undefined), {
      message: 'give either "index" or both "x" and "y"',
    })
    .refine((a) => a.index !== undefined || (a.x === undefined) === (a.y === undefined), {
      message: '"x" and "y" go together',
    });
}

export const DIRECTIONS = ['up', 'down', 'left', 'right'] as const;
export type Direction = (typeof DIRECTIONS)[number];

export const ActionSchema = z.discriminatedUnion('action_type', [
  targeted('click'),
  targeted('long_press'),
  targeted('double_tap'),
  z.strictObject({ action_type: z.literal('scroll'), direction: z.enum(DIRECTIONS), index: index.optional() }),
  z.strictObject({
    action_type: z.literal('swipe'),
    start: z.tuple([coord, coord]),
    end: z.tuple([coord, coord]),
    duration_ms: z.int().min(1).max(10_000).optional(),
  }),
  z.strictObject({
    action_type: z.literal('input_text'),
    text: z.string().min(1, 'text must not be empty'),
    index: index.optional(),
    clear: z.boolean().optional(),
    submit: z.boolean().optional().describe('Press Enter after typing (UI-TARS ends content with "\\n" for this)'),
  }),
  z.strictObject({ action_type: z.literal('keyboard_enter') }),
  // Any other key the device takes (`input keyevent`): app switcher, delete, tab, escape… (Qwen2.5-VL's `key`/`system_button Menu`).
  z.strictObject({ action_type: z.literal('press_key'), key: z.enum(KEYS) }),
  z.strictObject({ action_type: z.literal('navigate_back') }),
  z.strictObject({ action_type: z.literal('navigate_home') }),
  z.strictObject({ action_type: z.literal('open_app'), app_name: z.string().trim().min(1, 'app_name must not be empty') }),
  z.strictObject({ action_type: z.literal('wait'), seconds: z.number().positive().max(60).optional() }),
  z.strictObject({ action_type: z.literal('answer'), text: z.string() }),
  z.strictObject({ action_type: z.literal('status'), goal_status: z.enum(['complete', 'infeasible']) }),
]);

export type Action = z.infer<typeof ActionSchema>;
export type ActionType = Action['action_type'];
export type ActionOf<K extends ActionType> = Extract<Action, { action_type: K }>;

export const ACTION_TYPES = [
  'click', 'long_press', 'double_tap', 'scroll', 'swipe', 'input_text', 'keyboard_enter', 'navigate_back',
  'navigate_home', 'open_app', 'wait', 'answer', 'status', 'press_key',
] as const satisfies readonly ActionType[];

/** The input as the error's message shows it. JSON cannot show a BigInt, a cycle or nesting deeper than the stack (an action from IPC is structured-cloned): the error must still be this one. */
function shownInput(input: unknown): string {
  if (typeof input === 'string') return input;
  try {
    return String(JSON.stringify(input));
  } catch {
    return Object.prototype.toString.call(input);
  }
}

/** A malformed action: bad JSON, unknown type, missing or extra fields. Carries the raw input. */
export class ActionParseError extends Error {
  override name = 'ActionParseError';
  constructor(readonly input: unknown, readonly issues: string[]) {
    super(`Malformed action ${shownInput(input).slice(0, 200)}: ${issues.join('; ')}`);
  }
}

/** Parses an action from JSON text or a plain object; throws ActionParseError. */
export function parseAction(input: unknown): Action {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (e) {
      throw new ActionParseError(input, [`not JSON (${(e as Error).message})`]);
    }
  }
  const r = ActionSchema.safeParse(value);
  if (!r.success) {
    throw new ActionParseError(
      input,
      issueLines(r.error.issues, { root: null }),
    );
  }
  return r.data;
}

/** Terminal actions end an episode. */
export function isTerminal(a: Action): a is ActionOf<'answer'> | ActionOf<'status'> {
  return a.action_type === 'answer' || a.action_type === 'status';
}
