import type { Action } from '../../../actions/schema.js';
import { balanced, findJsonObject, unfence } from '../lenient.js';
import { fromScreen } from '../geometry.js';
import { fail, finishAction, section, screenPoint, type ActionFormat, type ParseContext, type PromptContext, type RenderContext } from '../format.js';

const ID = 'androidworld';

/**
 * AndroidWorld's JSONAction (android_world/env/json_action.py): its action types and fields, and the
 * rules its constructor enforces; ours accepts what it accepts and refuses what it refuses.
 * - action_type: one of these, spelled exactly (no aliases, no other case);
 * - fields: only these (any other is a TypeError there); null means not given;
 * - index: anything int() reads (3, "3", 3.0); never together with x or y;
 * - direction: when given, exactly up, down, left or right;
 * - text: a number or boolean becomes its text (str());
 * - keycode: when given, starts with KEYCODE_ (no action type uses it: it is checked, then dropped).
 * A field the type does not use is ignored, as AndroidWorld's executor ignores it.
 */
const AW_TYPES = [
  'answer', 'click', 'double_tap', 'input_text', 'keyboard_enter', 'long_press', 'navigate_back', 'navigate_home',
  'open_app', 'scroll', 'status', 'swipe', 'unknown', 'wait',
] as const;
const AW_FIELDS = ['action_type', 'index', 'x', 'y', 'text', 'direction', 'goal_status', 'app_name', 'keycode', 'clear_text'] as const;
const AW_DIRECTIONS = ['left', 'right', 'down', 'up'] as const;
const OPPOSITE = { up: 'down', down: 'up', left: 'right', right: 'left' } as const;
/** The fields each type reads in AndroidWorld's executor (actuation.py). */
const USES: Record<(typeof AW_TYPES)[number], readonly string[]> = {
  click: ['index', 'x', 'y'], long_press: ['index', 'x', 'y'], double_tap: ['index', 'x', 'y'],
  input_text: ['text', 'index', 'x', 'y', 'clear_text'], scroll: ['direction', 'index'], swipe: ['direction'],
  open_app: ['app_name'], status: ['goal_status'], answer: ['text'],
  keyboard_enter: [], navigate_back: [], navigate_home: [], wait: [], unknown: [],
};

/** Python's int() of an index: an integer, a float (truncated) or a string of digits; undefined when it raises. */
function pyInt(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) return Number(v.trim());
  return undefined;
}

/** The object's fields as AndroidWorld's constructor would take them, or the reason it refuses them. */
function jsonAction(raw: Record<string, unknown>, output: string): { type: (typeof AW_TYPES)[number]; f: Record<string, unknown> } {
  const f: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (!(AW_FIELDS as readonly string[]).includes(k)) fail(ID, output, `"${k}" is not a JSONAction field (fields: ${AW_FIELDS.join(', ')})`);
    if (v !== null) f[k] = v;
  }
  const type = f.action_type;
  if (type === undefined) fail(ID, output, 'the object has no "action_type"');
  if (!(AW_TYPES as readonly unknown[]).includes(type)) fail(ID, output, `unknown action_type ${JSON.stringify(type)} (AndroidWorld's: ${AW_TYPES.join(', ')})`);
  if (f.index !== undefined) {
    const i = pyInt(f.index);
    if (i === undefined) fail(ID, output, `index ${JSON.stringify(f.index)} is not an integer`);
    f.index = i;
    if (f.x !== undefined || f.y !== undefined) fail(ID, output, 'give either an index or x and y, not both');
  }
  if (f.direction !== undefined && f.direction !== '' && !(AW_DIRECTIONS as readonly unknown[]).includes(f.direction)) {
    fail(ID, output, `direction ${JSON.stringify(f.direction)} is not up, down, left or right`);
  }
  if (typeof f.text === 'number' || typeof f.text === 'boolean') f.text = typeof f.text === 'boolean' ? (f.text ? 'True' : 'False') : String(f.text);
  if (f.text !== undefined && typeof f.text !== 'string') fail(ID, output, `text must be a string, got ${JSON.stringify(f.text)}`);
  if (f.keycode !== undefined && !(typeof f.keycode === 'string' && f.keycode.startsWith('KEYCODE_'))) fail(ID, output, `keycode ${JSON.stringify(f.keycode)} does not start with KEYCODE_`);
  return { type: type as (typeof AW_TYPES)[number], f };
}

function systemPrompt(ctx: PromptContext): string {
  const coords = ctx.coordinates === 'screen'
    ? `x and y are screen pixels (the screen is ${ctx.screen.width}x${ctx.screen.height})`
    : `x and y are in a ${ctx.frame.width}x${ctx.frame.height} frame over the screen`;
  return [
    'You are an agent who can operate an Android phone on behalf of a user. Based on the user\'s goal, you do one action at a time until the goal is reached.',
    '',
    'At each step you are given the goal, a history of what you did so far' + (ctx.withScreenshot ? ', a screenshot of the current screen' : '')
      + (ctx.withElements ? ' and the list of UI elements on it, each with its index' : '') + '.',
    '',
    'Your action must be one JSON object, one of:',
    '- Tap an element: {"action_type": "click", "index": <element index>}',
    `- Tap a point: {"action_type": "click", "x": <x>, "y": <y>} (${coords})`,
    '- Long-press an element: {"action_type": "long_press", "index": <element index>}',
    '- Type into a text field (it is tapped first): {"action_type": "input_text", "text": <text>, "index": <element index>}',
    '- Press Enter: {"action_type": "keyboard_enter"}',
    '- Scroll the screen or an element: {"action_type": "scroll", "direction": <"up"|"down"|"left"|"right">, "index": <optional element index>} ("down" shows what is below)',
    '- Go back: {"action_type": "navigate_back"}',
    '- Go to the home screen: {"action_type": "navigate_home"}',
    '- Open an app: {"action_type": "open_app", "app_name": <name>}',
    '- Wait for the screen to update: {"action_type": "wait"}',
    '- Answer the user\'s question: {"action_type": "answer", "text": <answer>}',
    '- Finish: {"action_type": "status", "goal_status": "complete"} when the goal is reached, or "infeasible" when it cannot be.',
    '',
    'Answer in this format and nothing else:',
    'Reason: <one or two sentences on why this action moves toward the goal>',
    'Action: <the JSON object>',
  ].join('\n');
}

/** A {...} after the action's own object (after the last Action: label, else the first object), if any. */
function secondObject(output: string): string | undefined {
  const body = unfence(output);
  const labels = [...body.matchAll(/Action\s*[:：]/gi)];
  const from = labels.length ? labels[labels.length - 1]!.index! : 0;
  const first = balanced(body, from, '{', '}');
  const next = first && balanced(body, first.end, '{', '}');
  return next ? body.slice(next.start, next.end) : undefined;
}

function parse(output: string, ctx: ParseContext) {
  if (!output.trim()) fail(ID, output, 'the reply is empty');
  const labels = [...output.matchAll(/(^|\n)[^\S\n]*\**Action\**\s*[:：]\s*\S/gi)].length;
  if (labels > 1) fail(ID, output, `${labels} Action: lines in one reply (one action per step)`);
  const found = findJsonObject(output, /Action\s*[:：]/i);
  if (!found.ok) fail(ID, output, found.reason);
  const second = secondObject(output);
  if (second) fail(ID, output, `a second action ${JSON.stringify(second.slice(0, 80))} follows the first (one action per step)`);
  const { type, f } = jsonAction(found.value, output);
  const a: Record<string, unknown> = { action_type: type };
  for (const k of USES[type]) if (f[k] !== undefined) a[k === 'clear_text' ? 'clear' : k] = f[k];
  switch (type) {
    case 'double_tap':
      fail(ID, output, 'double_tap is an AndroidWorld action this workbench cannot execute (no double tap on its devices)');
      break;
    case 'unknown':
      // AndroidWorld executes nothing for it and the episode goes on: here, a wait.
      a.action_type = 'wait';
      break;
    case 'swipe': {
      // AndroidWorld's swipe names the finger's direction across the whole screen: a finger moving up scrolls down.
      const d = a.direction as keyof typeof OPPOSITE | undefined;
      if (!d) fail(ID, output, 'swipe needs a direction');
      a.action_type = 'scroll';
      a.direction = OPPOSITE[d];
      break;
    }
    case 'scroll':
      // The executor scrolls the element only for a truthy index: index 0 scrolls the screen.
      if (a.index === 0) delete a.index;
      break;
    case 'input_text':
      a.clear = a.clear ? true : undefined;
      if (a.clear === undefined) delete a.clear;
      break;
    case 'answer':
      a.text ??= '';
      break;
    default:
      break;
  }
  if (a.x !== undefined || a.y !== undefined) {
    const x = Number(a.x);
    const y = Number(a.y);
    if (a.x === undefined || a.y === undefined || !Number.isFinite(x) || !Number.isFinite(y)) fail(ID, output, `x and y must both be numbers, got ${JSON.stringify([a.x, a.y])}`);
    [a.x, a.y] = screenPoint(ID, output, [x, y], ctx);
  }
  const action = finishAction(ID, output, a);
  const thought = section(output, 'Reason', ['Action']);
  return thought ? { action, thought } : { action };
}

function render(action: Action, ctx: RenderContext): string {
  const out: Record<string, unknown> = { ...action };
  if ('x' in action && action.x !== undefined && action.y !== undefined) [out.x, out.y] = fromScreen([action.x, action.y], ctx);
  switch (action.action_type) {
    case 'swipe':
    case 'press_key':
      return fail(ID, JSON.stringify(action), `AndroidWorld's JSONAction has no ${action.action_type === 'swipe' ? 'swipe between two points' : 'key press'}`);
    case 'input_text':
      delete out.clear;
      if (action.clear) out.clear_text = true;
      break;
    case 'wait':
      delete out.seconds;
      break;
    default:
      break;
  }
  return `Reason: ${ctx.thought ?? 'This is the next step toward the goal.'}\nAction: ${JSON.stringify(out)}`;
}

/** AndroidWorld's JSON actions, in the Reason/Action shape of its M3A and T3A agents. */
export const androidWorldFormat: ActionFormat = {
  id: ID,
  title: 'AndroidWorld JSON actions',
  description: 'Reason/Action with one AndroidWorld JSONAction object ({"action_type": "click", "index": 3}); elements by index from the listed UI elements, points in screen pixels.',
  defaultCoordinates: 'screen',
  defaultElements: true,
  systemPrompt,
  parse,
  render,
  samples: [
    { output: 'Reason: The Save button stores the contact.\nAction: {"action_type": "click", "index": 12}', action: { action_type: 'click', index: 12 }, note: 'M3A shape' },
    { output: "Reason: type the name\nAction: ```json\n{'action_type': 'input_text', 'text': 'Alice', 'index': 5,}\n```", action: { action_type: 'input_text', text: 'Alice', index: 5 }, note: 'fenced, single quotes, trailing comma' },
    { output: 'Action: {"action_type": "swipe", "direction": "up"}', action: { action_type: 'scroll', direction: 'down' }, note: "AndroidWorld's swipe names the finger direction" },
    { output: 'Action: {"action_type": "tap", "index": 3}', action: null, note: 'not an AndroidWorld action type: a format error' },
    { output: 'I think we are done.', action: null, note: 'no JSON object: a format error' },
  ],
};
