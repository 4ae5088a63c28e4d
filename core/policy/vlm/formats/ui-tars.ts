import type { Action } from '../../../actions/schema.js';
import { assertNever } from '../../../util/errors.js';
import { findCall, pointOf } from '../lenient.js';
import { fromScreen } from '../geometry.js';
import {
  devicePoint, fail, finishAction, finishWith, section, screenPoint,
  type ActionFormat, type ParseContext, type PromptContext, type RenderContext,
} from '../format.js';

const ID = 'ui-tars';

/** Function names UI-TARS's mobile and computer action spaces use, mapped to what they do here. */
const CALLS = [
  'click', 'left_single', 'tap', 'long_press', 'type', 'scroll', 'drag', 'swipe', 'open_app', 'press_home', 'press_back',
  'press_enter', 'hotkey', 'wait', 'finished', 'call_user', 'left_double', 'right_single',
] as const;

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
    "click(start_box='(x1,y1)')",
    "long_press(start_box='(x1,y1)')",
    "type(content='') # to submit the input, end content with \"\\n\"",
    "scroll(start_box='(x1,y1)', direction='down or up or right or left') # the direction the content moves to reveal",
    "drag(start_box='(x1,y1)', end_box='(x2,y2)')",
    "open_app(app_name='')",
    'press_home()',
    'press_back()',
    'wait()',
    "finished(content='') # the task is done; put the answer in content when the task asks a question",
    'call_user() # the task cannot be done',
    '',
    '## Note',
    frameWords(ctx),
    '- Write a short plan in Thought, then exactly one action.',
    "- Escape quotes and newlines inside content with \\', \\\" and \\n.",
  ].join('\n');
}

function pointArg(call: { kwargs: Record<string, unknown>; args: unknown[] }, key: string, output: string, ctx: ParseContext): [number, number] {
  const v = call.kwargs[key] ?? call.kwargs[key.replace('box', 'point')] ?? call.args[0];
  const p = pointOf(v);
  if (!p) fail(ID, output, `${key} must be a point "(x,y)" or a box, got ${JSON.stringify(v)}`);
  return screenPoint(ID, output, p, ctx);
}

function textArg(call: { kwargs: Record<string, unknown>; args: unknown[] }, keys: readonly string[]): string | undefined {
  for (const k of keys) if (typeof call.kwargs[k] === 'string') return call.kwargs[k] as string;
  return typeof call.args[0] === 'string' ? call.args[0] : undefined;
}

function parse(output: string, ctx: ParseContext) {
  const actionText = section(output, 'Action') ?? output;
  const found = findCall(actionText, CALLS);
  if (!found.ok) fail(ID, output, found.reason);
  const call = found.value;
  const name = call.name as (typeof CALLS)[number];
  let a: Record<string, unknown>;
  switch (name) {
    case 'click':
    case 'left_single':
    case 'tap': {
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
      const content = textArg(call, ['content', 'text']);
      if (content === undefined) fail(ID, output, 'type() needs content');
      // UI-TARS submits by ending the content with a newline; the action space has Enter as its own step.
      const text = content.replace(/\n+$/, '');
      a = text ? { action_type: 'input_text', text } : content ? { action_type: 'keyboard_enter' } : fail(ID, output, 'type() content is empty');
      break;
    }
    case 'scroll': {
      const direction = textArg(call, ['direction'])?.trim().toLowerCase();
      a = { action_type: 'scroll', direction };
      const hasPoint = call.kwargs.start_box !== undefined || call.kwargs.start_point !== undefined;
      if (hasPoint && ctx.obs) {
        const [x, y] = pointArg(call, 'start_box', output, ctx);
        const el = ctx.obs.elements.filter((e) => e.node.scrollable && x >= e.node.bounds.left && x < e.node.bounds.right && y >= e.node.bounds.top && y < e.node.bounds.bottom).pop();
        if (el) a.index = el.ordinal;
      }
      break;
    }
    case 'drag':
    case 'swipe': {
      const start = pointArg(call, 'start_box', output, ctx);
      const endValue = call.kwargs.end_box ?? call.kwargs.end_point ?? call.args[1];
      const end = pointOf(endValue);
      if (!end) fail(ID, output, `end_box must be a point "(x,y)", got ${JSON.stringify(endValue)}`);
      a = { action_type: 'swipe', start, end: screenPoint(ID, output, end, ctx) };
      break;
    }
    case 'open_app': {
      a = { action_type: 'open_app', app_name: textArg(call, ['app_name', 'name']) ?? '' };
      break;
    }
    case 'press_home':
      a = { action_type: 'navigate_home' };
      break;
    case 'press_back':
      a = { action_type: 'navigate_back' };
      break;
    case 'press_enter':
      a = { action_type: 'keyboard_enter' };
      break;
    case 'hotkey': {
      const key = (textArg(call, ['key']) ?? '').toLowerCase();
      if (key === 'enter' || key === 'return') a = { action_type: 'keyboard_enter' };
      else if (key === 'back') a = { action_type: 'navigate_back' };
      else if (key === 'home') a = { action_type: 'navigate_home' };
      else fail(ID, output, `hotkey ${JSON.stringify(key)} has no phone equivalent (enter, back, home)`);
      break;
    }
    case 'wait':
      a = { action_type: 'wait' };
      break;
    case 'finished':
      a = finishWith(textArg(call, ['content']), ctx);
      break;
    case 'call_user':
      a = { action_type: 'status', goal_status: 'infeasible' };
      break;
    case 'left_double':
    case 'right_single':
      fail(ID, output, `${name}() has no phone equivalent (use click or long_press)`);
      break;
    default:
      return assertNever(name, 'UI-TARS call');
  }
  const action = finishAction(ID, output, a);
  const thought = section(output, 'Thought', ['Action', 'Reflection']);
  return thought ? { action, thought } : { action };
}

const pyStr = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
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
    case 'input_text':
      // UI-TARS types into the focused field: a field given by index is tapped by the step before.
      call = `type(content=${pyStr(action.text)})`;
      break;
    case 'keyboard_enter':
      call = "type(content='\\n')";
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

/** UI-TARS's Thought/Action with function calls and start_box points (relative 0–1000 by default). */
export const uiTarsFormat: ActionFormat = {
  id: ID,
  title: 'UI-TARS',
  description: "Thought: … / Action: click(start_box='(x,y)'); points relative 0–1000 by default (UI-TARS), or pixels of the smart-resized screenshot (UI-TARS-1.5: coordinates smart-resize).",
  defaultCoordinates: 'relative-1000',
  defaultElements: false,
  systemPrompt,
  parse,
  render,
  samples: [
    { output: "Thought: I need to open the contact form, so I tap the + button.\nAction: click(start_box='(500,900)')", action: { action_type: 'click', x: 540, y: 2160 }, note: 'relative 0–1000' },
    { output: "Thought: Type the name.\nAction: type(content='Alice Smith\\n')", action: { action_type: 'input_text', text: 'Alice Smith' }, note: 'trailing newline = submit' },
    { output: "Thought: scroll\nAction: scroll(start_box='<|box_start|>(500,500)<|box_end|>', direction='down')", action: { action_type: 'scroll', direction: 'down' }, note: 'box tokens' },
    { output: "Thought: done\nAction: click(start_box='(1400,200)')", action: null, note: 'off screen: VlmCoordinateError' },
  ],
};
