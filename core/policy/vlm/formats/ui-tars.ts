import { DIRECTIONS, type Action } from '../../../actions/schema.js';
import { assertNever } from '../../../util/errors.js';
import { tagged } from '../lenient.js';
import { readTarsCall, tarsKeys, tarsPoint, tarsTyped, type TarsCall } from './ui-tars-grammar.js';
import { fromScreen } from '../geometry.js';
import {
  devicePoint, fail, finishAction, finishWith, section, screenPoint,
  type ActionFormat, type ParseContext, type ParsedOutput, type PromptContext, type RenderContext,
} from '../format.js';

const ID = 'ui-tars';

/**
 * The calls of UI-TARS's mobile action space (and click's computer-use alias left_single), plus
 * hotkey for Enter. Computer-only calls (left_double, right_single, hover …) have no phone
 * equivalent and are refused rather than guessed.
 */
const CALLS = [
  'click', 'left_single', 'long_press', 'type', 'scroll', 'drag', 'open_app', 'press_home', 'press_back',
  'hotkey', 'wait', 'finished', 'call_user',
] as const;
type TarsCallName = (typeof CALLS)[number];
const COMPUTER_ONLY = new Set(['left_double', 'right_single', 'hover', 'select', 'mouse_down', 'mouse_up', 'move_to', 'press', 'keydown', 'release', 'keyup']);

/** UI-TARS's prompt says wait() sleeps 5 s. */
const WAIT_SECONDS = 5;

function frameWords(ctx: PromptContext): string {
  switch (ctx.coordinates) {
    case 'relative-1000':
    case 'relative-999':
      return `Coordinates are relative: x and y from 0 to ${ctx.frame.width} across the width and height of the screenshot.`;
    case 'screen':
      return `Coordinates are screen pixels (the screen is ${ctx.screen.width}x${ctx.screen.height}).`;
    case 'image':
    case 'smart-resize':
      return `Coordinates are pixels of the screenshot (${ctx.frame.width}x${ctx.frame.height}).`;
    default:
      return assertNever(ctx.coordinates, 'coordinate space');
  }
}

/** Our own wording of the action space, for when no official template is loaded (settings.promptTemplate). */
function systemPrompt(ctx: PromptContext): string {
  return [
    'You are a GUI agent operating an Android phone. You are given a task and your action history, with a screenshot of the current screen. Decide the next action to complete the task.',
    '',
    '## Output Format',
    '```',
    'Thought: ...',
    'Action: ...',
    '```',
    '',
    '## Action Space',
    "click(start_box='<|box_start|>(x1,y1)<|box_end|>')",
    "long_press(start_box='<|box_start|>(x1,y1)<|box_end|>')",
    "type(content='') # to submit the input, end content with \"\\n\"",
    "scroll(start_box='<|box_start|>(x1,y1)<|box_end|>', direction='down or up or right or left') # the direction the content moves to reveal",
    "drag(start_box='<|box_start|>(x1,y1)<|box_end|>', end_box='<|box_start|>(x2,y2)<|box_end|>')",
    "open_app(app_name='')",
    'press_home()',
    'press_back()',
    'wait() # sleeps 5 s',
    "finished(content='') # the task is done; put the answer in content when the task asks a question",
    'call_user() # the task cannot be done',
    '',
    '## Note',
    frameWords(ctx),
    '- Write a short plan in Thought, then exactly one action.',
    "- Escape quotes and newlines inside content with \\', \\\" and \\n.",
  ].join('\n');
}

function pointArg(call: TarsCall, key: 'start_box' | 'end_box', output: string, ctx: ParseContext): [number, number] {
  const v = call.kwargs.get(key);
  if (v === undefined) fail(ID, output, `${call.name}() needs ${key === 'start_box' ? "start_box= (or point=)" : 'end_box= (or end_point=)'}`);
  const p = tarsPoint(v);
  if (!p.ok) fail(ID, output, `${key}: ${p.reason}`);
  return screenPoint(ID, output, p.value, ctx);
}

function parse(output: string, ctx: ParseContext): ParsedOutput {
  const read = readTarsCall(output);
  if (!read.ok) fail(ID, output, read.reason);
  const call = read.value;
  if (COMPUTER_ONLY.has(call.name)) fail(ID, output, `${call.name}() is a computer action with no phone equivalent (use click or long_press)`);
  if (!(CALLS as readonly string[]).includes(call.name)) fail(ID, output, `unknown action ${call.name}() (UI-TARS's mobile actions: ${CALLS.join(', ')})`);
  const name = call.name as TarsCallName;
  const arg = (k: string) => call.kwargs.get(k);
  let a: Record<string, unknown>;
  switch (name) {
    case 'click':
    case 'left_single': {
      const [x, y] = pointArg(call, 'start_box', output, ctx);
      a = { action_type: 'click', x, y };
      break;
    }
    case 'long_press': {
      const [x, y] = pointArg(call, 'start_box', output, ctx);
      a = { action_type: 'long_press', x, y };
      break;
    }
    case 'type': {
      // The official parser left-strips content, and types nothing when that leaves it empty.
      const content = arg('content');
      if (content === undefined) fail(ID, output, 'type() content is empty: nothing to type');
      // A trailing newline submits: UI-TARS types, then presses Enter.
      const { text, submit } = tarsTyped(content);
      a = text ? { action_type: 'input_text', text, ...(submit ? { submit: true } : {}) } : { action_type: 'keyboard_enter' };
      break;
    }
    case 'scroll': {
      const raw = arg('direction');
      const direction = raw?.trim().toLowerCase();
      if (!direction || !(DIRECTIONS as readonly string[]).includes(direction)) fail(ID, output, `scroll direction must be up, down, left or right, got ${JSON.stringify(raw ?? '')}`);
      a = { action_type: 'scroll', direction };
      if (call.kwargs.has('start_box')) {
        // The point picks the scrolled element; it is checked against the screen either way.
        const [x, y] = pointArg(call, 'start_box', output, ctx);
        const el = ctx.obs?.elements.filter((e) => e.node.scrollable && x >= e.node.bounds.left && x < e.node.bounds.right && y >= e.node.bounds.top && y < e.node.bounds.bottom).pop();
        if (el) a.index = el.ordinal;
      }
      break;
    }
    case 'drag': {
      const start = pointArg(call, 'start_box', output, ctx);
      const end = pointArg(call, 'end_box', output, ctx);
      a = { action_type: 'swipe', start, end };
      break;
    }
    case 'open_app': {
      const app = arg('app_name');
      if (app === undefined) fail(ID, output, 'open_app() needs app_name');
      a = { action_type: 'open_app', app_name: app };
      break;
    }
    case 'press_home':
      a = { action_type: 'navigate_home' };
      break;
    case 'press_back':
      a = { action_type: 'navigate_back' };
      break;
    case 'hotkey': {
      const keys = tarsKeys(arg('key') ?? arg('hotkey') ?? '');
      if (keys.length === 1 && (keys[0] === 'enter' || keys[0] === 'return')) a = { action_type: 'keyboard_enter' };
      else fail(ID, output, `hotkey ${JSON.stringify(keys.join(' '))} has no key on the phone (only enter; use press_home() and press_back())`);
      break;
    }
    case 'wait':
      a = { action_type: 'wait', seconds: WAIT_SECONDS };
      break;
    case 'finished':
      a = finishWith(arg('content'), ctx);
      break;
    case 'call_user':
      a = { action_type: 'status', goal_status: 'infeasible' };
      break;
    default:
      return assertNever(name, 'UI-TARS call');
  }
  const action = finishAction(ID, output, a);
  const thought = section(output, 'Thought', ['Action', 'Reflection', 'Action_Summary']) ?? tagged(output, 'think');
  return thought ? { action, thought } : { action };
}

const pyStr = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`;
const box = (p: readonly [number, number]) => `'(${p[0]},${p[1]})'`;

function render(action: Action, ctx: RenderContext): string {
  const at = (a: { index?: number | undefined; x?: number | undefined; y?: number | undefined }) => box(fromScreen(devicePoint(a, ctx.obs, ID), ctx));
  let call: string;
  switch (action.action_type) {
    case 'click':
      call = `click(start_box=${at(action)})`;
      break;
    case 'long_press':
      call = `long_press(start_box=${at(action)})`;
      break;
    case 'double_tap':
      return fail(ID, JSON.stringify(action), 'the mobile action space has no double tap');
    case 'input_text':
      // UI-TARS types into the focused field: a field given by index is tapped by the step before.
      call = `type(content=${pyStr(action.submit ? `${action.text}\n` : action.text)})`;
      break;
    case 'keyboard_enter':
      // type(content='\n') types nothing there (content is left-stripped to empty).
      call = "hotkey(key='enter')";
      break;
    case 'press_key':
      call = `hotkey(key='${action.key.toLowerCase()}')`;
      break;
    case 'scroll':
      call = action.index !== undefined ? `scroll(start_box=${at({ index: action.index })}, direction='${action.direction}')` : `scroll(direction='${action.direction}')`;
      break;
    case 'swipe':
      call = `drag(start_box=${box(fromScreen(action.start, ctx))}, end_box=${box(fromScreen(action.end, ctx))})`;
      break;
    case 'open_app':
      call = `open_app(app_name=${pyStr(action.app_name)})`;
      break;
    case 'navigate_home':
      call = 'press_home()';
      break;
    case 'navigate_back':
      call = 'press_back()';
      break;
    case 'wait':
      call = 'wait()';
      break;
    case 'answer':
      call = `finished(content=${pyStr(action.text)})`;
      break;
    case 'status':
      call = action.goal_status === 'complete' ? "finished(content='')" : 'call_user()';
      break;
    default:
      return assertNever(action, 'action');
  }
  return `Thought: ${ctx.thought ?? 'Next step.'}\nAction: ${call}`;
}

/**
 * UI-TARS's Thought/Action with function calls, read as its official parser reads them (ui-tars-grammar.ts).
 * Coordinates: relative 0–1000 (UI-TARS v1, and the Doubao-style `point='<point>x y</point>'`
 * templates) by default; UI-TARS-1.5 answers in pixels of the smart-resized screenshot (`coordinates: smart-resize`).
 */
export const uiTarsFormat: ActionFormat = {
  id: ID,
  title: 'UI-TARS',
  description: "Thought: … / Action: click(start_box='(x,y)') or click(point='<point>x y</point>'); points relative 0–1000 by default (UI-TARS v1), or pixels of the smart-resized screenshot (UI-TARS-1.5: coordinates smart-resize).",
  defaultCoordinates: 'relative-1000',
  defaultElements: false,
  systemPrompt,
  parse,
  render,
  samples: [
    { output: "Thought: I need to open the contact form, so I tap the + button.\nAction: click(start_box='(500,900)')", action: { action_type: 'click', x: 540, y: 2160 }, note: 'relative 0–1000' },
    { output: "Thought: Tap the field.\nAction: click(point='<point>500 900</point>')", action: { action_type: 'click', x: 540, y: 2160 }, note: 'point= is start_box=' },
    { output: "Thought: Search for it.\nAction: type(content='weather\\n')", action: { action_type: 'input_text', text: 'weather', submit: true }, note: 'trailing newline: type, then Enter' },
    { output: "Thought: scroll\nAction: scroll(start_box='<|box_start|>(500,500)<|box_end|>', direction='down')", action: { action_type: 'scroll', direction: 'down' }, note: 'box tokens' },
    { output: "Thought: done\nAction: click(start_box='(1400,200)')", action: null, note: 'off screen: VlmCoordinateError' },
    { output: "Thought: two\nAction: click(start_box='(1,2)')\n\nclick(start_box='(3,4)')", action: null, note: 'two actions in one reply' },
  ],
};
