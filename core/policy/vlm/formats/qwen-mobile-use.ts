import type { Action } from '../../../actions/schema.js';
import type { KeyName } from '../../../device/device.js';
import { assertNever } from '../../../util/errors.js';
import { balanced, lenientJsonValue, pointOf, tagged, unfence } from '../lenient.js';
import { fromScreen } from '../geometry.js';
import {
  devicePoint, fail, finishAction, finishWith, screenPoint,
  type ActionFormat, type ParseContext, type PromptContext, type RenderContext,
} from '../format.js';

const ID = 'qwen-mobile-use';

/** The published tool's actions (Qwen2.5-VL cookbook, utils/agent_function_call.py MobileUse). */
const PUBLISHED_ACTIONS = ['key', 'click', 'long_press', 'swipe', 'type', 'system_button', 'open', 'wait', 'terminate'] as const;

/**
 * `system_button`'s buttons. Menu is, in the tool's own words, "opening the application background
 * menu": the recent-apps screen, KEYCODE_APP_SWITCH.
 */
const BUTTONS: Record<string, Record<string, unknown>> = {
  back: { action_type: 'navigate_back' },
  home: { action_type: 'navigate_home' },
  menu: { action_type: 'press_key', key: 'APP_SWITCH' },
  enter: { action_type: 'keyboard_enter' },
};

/**
 * `key` takes adb's keyevent syntax: a KEYCODE_ name with or without the prefix, any case, or its
 * number. These are the keys a device here can press; any other (volume_up, power, camera, menu…)
 * is a format error that names it, never another key.
 */
const KEY_CODES: Record<string, number> = { home: 3, back: 4, enter: 66, del: 67, app_switch: 187, tab: 61, escape: 111, space: 62, move_home: 122, move_end: 123 };
const DEDICATED: Record<string, Record<string, unknown>> = { back: BUTTONS.back!, home: BUTTONS.home!, enter: BUTTONS.enter! };

function keyAction(raw: unknown, output: string): Record<string, unknown> {
  const name = typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim().toLowerCase().replace(/^keycode_/, '') : '';
  const byNumber = Object.entries(KEY_CODES).find(([, code]) => String(code) === name)?.[0];
  const key = byNumber ?? (name in KEY_CODES ? name : undefined);
  if (!key) fail(ID, output, `key ${JSON.stringify(raw)} cannot be pressed here (keys: ${Object.keys(KEY_CODES).join(', ')}, as names or keycodes)`);
  return DEDICATED[key] ?? { action_type: 'press_key', key: key.toUpperCase() as KeyName };
}

/**
 * The mobile_use tool as a function-calling schema: the published tool's actions and argument names
 * (action, coordinate, coordinate2, text, time, button, status). `answer` is our extension, offered
 * only on a task that asks a question: the published tool has no way to give an answer.
 */
function toolSchema(ctx: PromptContext) {
  const actions: string[] = [...PUBLISHED_ACTIONS];
  if (ctx.expectsAnswer === true) actions.push('answer');
  return {
    type: 'function',
    function: {
      name: 'mobile_use',
      description: `Operate a mobile device by touch and keys, and see its screenshots. The screen's resolution is ${ctx.frame.width}x${ctx.frame.height}; coordinates are pixels of that frame. Tap the centre of an element, not its edge. Apps may need time: wait, then look again.`,
      parameters: {
        type: 'object',
        required: ['action'],
        properties: {
          action: {
            type: 'string',
            enum: actions,
            description: 'key: send a key event in adb keyevent syntax (text). click: tap (x, y). long_press: press (x, y) for `time` seconds. '
              + 'swipe: from coordinate to coordinate2. type: type text into the focused input box. system_button: press a system button. '
              + 'open: open the app named in text. wait: wait `time` seconds. terminate: end the task with a status.'
              + (ctx.expectsAnswer === true ? " answer: reply to the user's question with text (ends the task)." : ''),
          },
          coordinate: { type: 'array', description: '(x, y) in pixels: for click, long_press and swipe' },
          coordinate2: { type: 'array', description: '(x, y) in pixels: where swipe ends' },
          text: { type: 'string', description: `for key, type and open${ctx.expectsAnswer === true ? ' and answer' : ''}` },
          time: { type: 'number', description: 'seconds: for long_press and wait' },
          button: { type: 'string', enum: ['Back', 'Home', 'Menu', 'Enter'], description: 'for system_button: Back goes to the previous screen, Home to the desktop, Menu opens the recent-apps view, Enter presses enter' },
          status: { type: 'string', enum: ['success', 'failure'], description: 'for terminate' },
        },
      },
    },
  };
}

function systemPrompt(ctx: PromptContext): string {
  return [
    'You are a helpful assistant operating an Android phone for the user, one action at a time.',
    '',
    '# Tools',
    '',
    'You may call one or more functions to assist with the user query.',
    '',
    'You are provided with function signatures within <tools></tools> XML tags:',
    '<tools>',
    JSON.stringify(toolSchema(ctx)),
    '</tools>',
    '',
    'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:',
    '<tool_call>',
    '{"name": <function-name>, "arguments": <args-json-object>}',
    '</tool_call>',
    '',
    'Before the call, say in one sentence what you are about to do. Make exactly one call per response.',
  ].join('\n');
}

function findToolCall(output: string): Record<string, unknown> {
  if (!output.trim()) fail(ID, output, 'the reply is empty');
  const calls = output.split('<tool_call>').length - 1;
  if (calls > 1) fail(ID, output, `${calls} tool calls in one reply (one action per step)`);
  const inTag = tagged(output, 'tool_call');
  const body = inTag ?? unfence(output);
  const span = balanced(body, 0, '{', '}');
  if (!span) {
    if (body.includes('{')) fail(ID, output, `the tool call is truncated (its {...} never closes): ${JSON.stringify(body.slice(body.indexOf('{'), body.indexOf('{') + 80))}`);
    fail(ID, output, inTag === undefined ? 'no <tool_call> and no {...} found' : 'the <tool_call> holds no {...}');
  }
  const r = lenientJsonValue(body.slice(span.start, span.end));
  if (!r.ok) fail(ID, output, r.reason);
  const call = r.value as Record<string, unknown>;
  if (call.name !== undefined && call.name !== 'mobile_use') fail(ID, output, `unknown function ${JSON.stringify(call.name)} (only mobile_use)`);
  let args: unknown = call.arguments ?? (call.action !== undefined ? call : undefined);
  // OpenAI-style tool calls carry arguments as a JSON string.
  if (typeof args === 'string') {
    const inner = lenientJsonValue(args);
    if (!inner.ok) fail(ID, output, `arguments: ${inner.reason}`);
    args = inner.value;
  }
  if (!args || typeof args !== 'object' || Array.isArray(args)) fail(ID, output, 'the call has no "arguments" object');
  return args as Record<string, unknown>;
}

function parse(output: string, ctx: ParseContext) {
  const args = findToolCall(output);
  const point = (key: string) => {
    const p = pointOf(args[key]);
    if (!p) fail(ID, output, `${key} must be [x, y], got ${JSON.stringify(args[key])}`);
    return screenPoint(ID, output, p, ctx);
  };
  const text = typeof args.text === 'string' ? args.text : undefined;
  const action = String(args.action ?? '').trim().toLowerCase();
  let a: Record<string, unknown>;
  switch (action) {
    case 'click': {
      const [x, y] = point('coordinate');
      a = { action_type: 'click', x, y };
      break;
    }
    case 'long_press': {
      // The hold is the device's long press (1 s); `time` is not a separate setting here.
      const [x, y] = point('coordinate');
      a = { action_type: 'long_press', x, y };
      break;
    }
    case 'swipe':
      a = { action_type: 'swipe', start: point('coordinate'), end: point('coordinate2') };
      break;
    case 'type':
      a = { action_type: 'input_text', text };
      break;
    case 'key':
      a = keyAction(args.text ?? args.key, output);
      break;
    case 'system_button': {
      const b = String(args.button ?? '').trim().toLowerCase();
      a = BUTTONS[b] ?? fail(ID, output, `system_button ${JSON.stringify(args.button)} is not Back, Home, Menu or Enter`);
      break;
    }
    case 'open':
      a = { action_type: 'open_app', app_name: text ?? '' };
      break;
    case 'wait': {
      const t = Number(args.time ?? 1);
      a = { action_type: 'wait', seconds: Number.isFinite(t) && t > 0 ? Math.min(60, t) : 1 };
      break;
    }
    case 'answer':
      // Our extension (docs/policy-vlm.md): the published tool has no answer action.
      a = { action_type: 'answer', text: text ?? '' };
      break;
    case 'terminate': {
      const status = String(args.status ?? 'success').toLowerCase();
      if (status === 'failure' || status === 'fail') a = { action_type: 'status', goal_status: 'infeasible' };
      else if (status === 'success') a = finishWith(text, { ...ctx, expectsAnswer: ctx.expectsAnswer ?? false });
      else fail(ID, output, `terminate status must be success or failure, got ${JSON.stringify(args.status)}`);
      break;
    }
    default:
      fail(ID, output, `unknown mobile_use action ${JSON.stringify(args.action)}`);
  }
  const parsed = finishAction(ID, output, a);
  const before = output.split('<tool_call>')[0]!.trim();
  return before && before !== output.trim() ? { action: parsed, thought: before } : { action: parsed };
}

function render(action: Action, ctx: RenderContext): string {
  const at = (a: { index?: number | undefined; x?: number | undefined; y?: number | undefined }) => fromScreen(devicePoint(a, ctx.obs, ID), ctx);
  let args: Record<string, unknown>;
  switch (action.action_type) {
    case 'click':
      args = { action: 'click', coordinate: at(action) };
      break;
    case 'long_press':
      args = { action: 'long_press', coordinate: at(action), time: 1 };
      break;
    case 'double_tap':
      return fail(ID, JSON.stringify(action), 'the mobile_use tool has no double tap');
    case 'input_text':
      args = { action: 'type', text: action.text };
      break;
    case 'keyboard_enter':
      args = { action: 'system_button', button: 'Enter' };
      break;
    case 'press_key':
      args = action.key === 'APP_SWITCH' ? { action: 'system_button', button: 'Menu' } : { action: 'key', text: action.key.toLowerCase() };
      break;
    case 'scroll': {
      // A scroll is a swipe against the content's direction, across the middle of the screen.
      const { width: w, height: h } = ctx.screen;
      const v = { up: [0, 1], down: [0, -1], left: [1, 0], right: [-1, 0] }[action.direction];
      const from: [number, number] = [Math.round(w / 2 - (v[0]! * w) / 4), Math.round(h / 2 - (v[1]! * h) / 4)];
      const to: [number, number] = [Math.round(w / 2 + (v[0]! * w) / 4), Math.round(h / 2 + (v[1]! * h) / 4)];
      args = { action: 'swipe', coordinate: fromScreen(from, ctx), coordinate2: fromScreen(to, ctx) };
      break;
    }
    case 'swipe':
      args = { action: 'swipe', coordinate: fromScreen(action.start, ctx), coordinate2: fromScreen(action.end, ctx) };
      break;
    case 'open_app':
      args = { action: 'open', text: action.app_name };
      break;
    case 'navigate_back':
      args = { action: 'system_button', button: 'Back' };
      break;
    case 'navigate_home':
      args = { action: 'system_button', button: 'Home' };
      break;
    case 'wait':
      args = { action: 'wait', time: action.seconds ?? 1 };
      break;
    case 'answer':
      args = { action: 'answer', text: action.text };
      break;
    case 'status':
      args = { action: 'terminate', status: action.goal_status === 'complete' ? 'success' : 'failure' };
      break;
    default:
      return assertNever(action, 'action');
  }
  return `${ctx.thought ?? 'Next step.'}\n<tool_call>\n${JSON.stringify({ name: 'mobile_use', arguments: args })}\n</tool_call>`;
}

/** Qwen2.5-VL's mobile_use function call in <tool_call> tags; coordinates in the smart-resized screenshot's pixels. */
export const qwenMobileUseFormat: ActionFormat = {
  id: ID,
  title: 'Qwen2.5-VL mobile_use',
  description: '<tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [x, y]}}</tool_call>; coordinates are pixels of the screenshot after Qwen2.5-VL\'s smart_resize (coordinates smart-resize).',
  defaultCoordinates: 'smart-resize',
  defaultElements: false,
  systemPrompt,
  parse,
  render,
  samples: [
    { output: 'I will tap the Save button.\n<tool_call>\n{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [546, 1204]}}\n</tool_call>', action: { action_type: 'click', x: 540, y: 1200 }, note: 'a 1080x2400 screenshot smart-resizes to 1092x2408' },
    { output: '<tool_call>{"name": "mobile_use", "arguments": "{\\"action\\": \\"type\\", \\"text\\": \\"Alice\\"}"}</tool_call>', action: { action_type: 'input_text', text: 'Alice' }, note: 'arguments as a JSON string' },
    { output: '<tool_call>\n{"name": "mobile_use", "arguments": {"action": "system_button", "button": "Menu"}}\n</tool_call>', action: { action_type: 'press_key', key: 'APP_SWITCH' }, note: 'Menu opens the recent apps' },
    { output: '<tool_call>\n{"name": "computer_use", "arguments": {"action": "click"}}\n</tool_call>', action: null, note: 'wrong tool: a format error' },
  ],
};
