import type { Action } from '../../../actions/schema.js';
import { findJsonObject } from '../lenient.js';
import { fromScreen } from '../geometry.js';
import { fail, finishAction, section, screenPoint, type ActionFormat, type ParseContext, type PromptContext, type RenderContext } from '../format.js';

const ID = 'androidworld';

/** AndroidWorld's action_type names and the spellings models use for them. */
const TYPE_ALIASES: Record<string, string> = {
  click: 'click', tap: 'click', long_press: 'long_press', longpress: 'long_press', scroll: 'scroll', swipe: 'swipe',
  input_text: 'input_text', type: 'input_text', input: 'input_text', keyboard_enter: 'keyboard_enter', enter: 'keyboard_enter',
  navigate_back: 'navigate_back', back: 'navigate_back', navigate_home: 'navigate_home', home: 'navigate_home',
  open_app: 'open_app', wait: 'wait', answer: 'answer', status: 'status',
};
const OPPOSITE = { up: 'down', down: 'up', left: 'right', right: 'left' } as const;

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

function parse(output: string, ctx: ParseContext) {
  const found = findJsonObject(output, /Action\s*[:：]/i);
  if (!found.ok) fail(ID, output, found.reason);
  const raw = found.value;
  const typeName = typeof raw.action_type === 'string' ? raw.action_type.trim().toLowerCase() : typeof raw.action === 'string' ? raw.action.trim().toLowerCase() : undefined;
  if (!typeName) fail(ID, output, 'the object has no "action_type"');
  const type = TYPE_ALIASES[typeName];
  if (!type) fail(ID, output, `unknown action_type ${JSON.stringify(typeName)}`);
  // Nulls mean "not given" in AndroidWorld's JSONAction; clear_text is its name for clearing a field.
  const a: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === null || k === 'action' || k === 'action_type') continue;
    a[k === 'clear_text' ? 'clear' : k] = v;
  }
  a.action_type = type;
  if (typeof a.index === 'string' && /^\d+$/.test(a.index)) a.index = Number(a.index);
  if (type === 'swipe' && typeof a.direction === 'string' && a.start === undefined) {
    // AndroidWorld's swipe names the finger's direction; a finger moving up scrolls down.
    const d = a.direction.toLowerCase() as keyof typeof OPPOSITE;
    if (!(d in OPPOSITE)) fail(ID, output, `unknown swipe direction ${JSON.stringify(a.direction)}`);
    a.action_type = 'scroll';
    a.direction = OPPOSITE[d];
  }
  if (typeof a.direction === 'string') a.direction = a.direction.toLowerCase();
  if (a.x !== undefined || a.y !== undefined) {
    const x = Number(a.x);
    const y = Number(a.y);
    if (!Number.isFinite(x) || !Number.isFinite(y)) fail(ID, output, `x and y must be numbers, got ${JSON.stringify([a.x, a.y])}`);
    [a.x, a.y] = screenPoint(ID, output, [x, y], ctx);
  }
  for (const k of ['start', 'end'] as const) {
    const p = a[k];
    if (Array.isArray(p) && p.length === 2) a[k] = screenPoint(ID, output, [Number(p[0]), Number(p[1])], ctx);
  }
  const action = finishAction(ID, output, a);
  const thought = section(output, 'Reason', ['Action']);
  return thought ? { action, thought } : { action };
}

function render(action: Action, ctx: RenderContext): string {
  const out: Record<string, unknown> = { ...action };
  if ('x' in action && action.x !== undefined && action.y !== undefined) [out.x, out.y] = fromScreen([action.x, action.y], ctx);
  if (action.action_type === 'swipe') {
    out.start = fromScreen(action.start, ctx);
    out.end = fromScreen(action.end, ctx);
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
    { output: 'I think we are done.', action: null, note: 'no JSON object: a format error' },
  ],
};
