import type { Action } from '../../../actions/schema.js';
import { assertNever } from '../../../util/errors.js';
import { balanced, lenientJsonValue, pointOf, tagged, unfence } from '../lenient.js';
import { fromScreen } from '../geometry.js';
import {
  devicePoint, fail, finishAction, finishWith, screenPoint,
  type ActionFormat, type ParseContext, type PromptContext, type RenderContext,
} from '../format.js';

const ID = 'qwen-mobile-use';

/** The mobile_use tool as a function-calling schema (the shape of Qwen2.5-VL's mobile agent tool). */
function toolSchema(ctx: PromptContext) {
  return {
    type: 'function',
    function: {
      name: 'mobile_use',
      description: `Use a touchscreen to interact with a mobile device. The screen's resolution is ${ctx.frame.width}x${ctx.frame.height}; coordinates are pixels of that frame.`,
      parameters: {
        type: 'object',
        required: ['action'],
        properties: {
          action: {
            type: 'string',
            enum: ['key', 'click', 'long_press', 'swipe', 'type', 'system_button', 'open', 'wait', 'answer', 'terminate'],
            description: 'click: tap (x, y). long_press: press and hold (x, y) for `time` s. swipe: from coordinate to coordinate2. type: type into the focused field. '
              + 'key: press a key (Enter). system_button: Back, Home or Enter. open: open the app named in text. wait: wait `time` s. '
              + 'answer: answer the user\'s question with text. terminate: end the task with status success or failure.',
          },
          coordinate: { type: 'array', description: '(x, y): for click, long_press and the start of swipe' },
          coordinate2: { type: 'array', description: '(x, y): the end of swipe' },
          text: { type: 'string', description: 'for type, key, open and answer' },
          time: { type: 'number', description: 'seconds, for long_press and wait' },
          button: { type: 'string', enum: ['Back', 'Home', 'Enter'], description: 'for system_button' },
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
  const inTag = tagged(output, 'tool_call');
  const body = inTag ?? unfence(output);
  const span = balanced(body, 0, '{', '}');
  if (!span) fail(ID, output, inTag === undefined ? 'no <tool_call> and no {...} found' : 'the <tool_call> holds no {...}');
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
    case 'system_button': {
      const key = String(args.button ?? text ?? '').trim().toLowerCase().replace(/^keycode_/, '');
      const map: Record<string, Record<string, unknown>> = {
        back: { action_type: 'navigate_back' }, home: { action_type: 'navigate_home' }, enter: { action_type: 'keyboard_enter' },
      };
      a = map[key] ?? fail(ID, output, `${action} ${JSON.stringify(args.button ?? text)} is not Back, Home or Enter`);
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
      a = { action_type: 'answer', text: text ?? '' };
      break;
    case 'terminate': {
      const status = String(args.status ?? 'success').toLowerCase();
      if (status === 'failure') a = { action_type: 'status', goal_status: 'infeasible' };
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
    case 'input_text':
      args = { action: 'type', text: action.text };
      break;
    case 'keyboard_enter':
      args = { action: 'system_button', button: 'Enter' };
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
    { output: '<tool_call>\n{"name": "mobile_use", "arguments": {"action": "system_button", "button": "Back"}}\n</tool_call>', action: { action_type: 'navigate_back' }, note: 'system button' },
    { output: '<tool_call>\n{"name": "computer_use", "arguments": {"action": "click"}}\n</tool_call>', action: null, note: 'wrong tool: a format error' },
  ],
};
