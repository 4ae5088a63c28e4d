import type { Action } from '../../../actions/schema.js';
import { assertNever } from '../../../util/errors.js';
import { findCall, numbersIn, tagged, unfence } from '../lenient.js';
import { mobileRlElementsText, mobileRlNodes, nodeText } from './mobilerl-elements.js';
import { fromScreen, modelFrame } from '../geometry.js';
import { VlmCoordinateError } from '../errors.js';
import {
  deviceBox, fail, finishAction, finishWith, screenPoint,
  type ActionFormat, type ParseContext, type PromptContext, type RenderContext,
} from '../format.js';

const ID = 'mobilerl';

/**
 * MobileRL's Swipe (android_lab and_controller.swipe): a unit of ⌊W/10⌋ pixels, times 10 for "long",
 * 2 for "medium" (the default), 1 for "short"; the finger moves 2 units up or down, 2.5 left or right,
 * from the element's centre or the screen's. Where that runs off the screen, the end stops at its edge.
 */
const UNITS = { long: 10, medium: 2, short: 1 } as const;
const FINGER = { up: [0, -2], down: [0, 2], left: [-2.5, 0], right: [2.5, 0] } as const;

function systemPrompt(ctx: PromptContext): string {
  const coords = ctx.coordinates === 'screen'
    ? `in screen pixels (the screen is ${ctx.screen.width}x${ctx.screen.height}), as in the element bounds`
    : `in a ${ctx.frame.width}x${ctx.frame.height} frame over the screen`;
  return [
    '# Setup',
    'You are an Android operation agent that fulfils the user\'s instructions. At each step you get a screenshot of the phone'
      + (ctx.withElements ? ' and its UI elements with their bounds' : '') + '; you analyse it and return one line of Python-style code that operates the phone.',
    '',
    '# Response format',
    '<think>',
    '[your analysis of the screen and the plan]',
    '</think>',
    '<answer>',
    '[one line of code]',
    '</answer>',
    '',
    '# Operations',
    `An element is a list of 4 integers [x1, y1, x2, y2]: the top-left and bottom-right corners of a rectangle, ${coords}. Choose it from the current screen.`,
    '- do(action="Tap", element=[x1, y1, x2, y2]) — tap the rectangle',
    '- do(action="Long Press", element=[x1, y1, x2, y2]) — press and hold it',
    '- do(action="Type", text="...") — type into the focused input field',
    '- do(action="Swipe", direction="up|down|left|right", dist="long|medium|short", element=[x1, y1, x2, y2]) — move a finger in that direction (dist defaults to medium; element optional)',
    '- do(action="Launch", app="...") — open an app by name',
    '- do(action="Back") — the Back button',
    '- do(action="Home") — the Home button',
    '- do(action="Enter") — the Enter key',
    '- do(action="Wait") — wait for the screen to update',
    '- finish(message="...") — end the task; the message is the answer when the task asks a question',
    '',
    'Only one line of code in <answer> per response.',
  ].join('\n');
}

/** A box; a 2-number element is the point [x, y, x, y], as MobileRL's evaluation rewrites it. */
function boxArg(value: unknown, output: string, what: string): [number, number, number, number] {
  const n = numbersIn(value);
  if (n?.length === 2) return [n[0]!, n[1]!, n[0]!, n[1]!];
  if (!n || n.length !== 4) fail(ID, output, `${what} must be [x1, y1, x2, y2], got ${JSON.stringify(value)}`);
  return [n[0]!, n[1]!, n[2]!, n[3]!];
}

/**
 * MobileRL's executor reads `text="…")` and `message="…")` up to the closing `")`, so quotes inside
 * are part of the text (`text="say "hi"")`); they are escaped here before the code is read.
 */
function escapeInnerQuotes(code: string): string {
  return code.replace(/\b(text|message)="([\s\S]*?)"\)/, (_m, k: string, body: string) => `${k}="${body.replace(/(?<!\\)"/g, '\\"')}")`);
}

/** Whether MobileRL's evaluation would add clear=True to a Type: some text field on screen shows text. */
function someFieldHasText(ctx: ParseContext): boolean {
  return ctx.obs ? mobileRlNodes(ctx.obs).some(({ el }) => el.node.className.includes('EditText') && nodeText(el) !== '') : false;
}

function parse(output: string, ctx: ParseContext) {
  if (!output.trim()) fail(ID, output, 'the reply is empty');
  const answer = escapeInnerQuotes(tagged(output, 'answer') ?? unfence(output));
  const calls = [...answer.matchAll(/(?<![\w.])(do|finish)\s*\(/g)].length;
  if (calls > 1) fail(ID, output, `${calls} calls in one <answer> (one action per step)`);
  const found = findCall(answer, ['do', 'finish']);
  if (!found.ok) fail(ID, output, found.reason);
  const call = found.value;
  const thinkRaw = tagged(output, 'think');
  const thought = thinkRaw || undefined;
  const done = (a: Record<string, unknown>) => {
    const action = finishAction(ID, output, a);
    return thought ? { action, thought } : { action };
  };
  if (call.name === 'finish') {
    const m = call.kwargs.message ?? call.args[0];
    return done(finishWith(typeof m === 'string' ? m : undefined, ctx));
  }
  const kind = String(call.kwargs.action ?? call.args[0] ?? '').trim().toLowerCase().replace(/[\s_-]+/g, ' ');
  const centre = (what: string) => {
    const [x1, y1, x2, y2] = boxArg(call.kwargs.element, output, what);
    // Every corner in the frame (a box's right/bottom may touch its edge): MobileRL's executor reads a
    // relative box with a number over 999 as pixels instead, which would be another tap; here it is an error.
    const frame = modelFrame(ctx);
    for (const [x, y] of [[x1, y1], [x2, y2]] as const) {
      if (x < 0 || y < 0 || x > frame.width || y > frame.height) throw new VlmCoordinateError(ID, output, [x1, y1, x2, y2], ctx.screen);
    }
    return screenPoint(ID, output, [(x1 + x2) / 2, (y1 + y2) / 2], ctx);
  };
  switch (kind) {
    case 'tap':
    case 'click': {
      const [x, y] = centre('element');
      return done({ action_type: 'click', x, y });
    }
    case 'long press':
    case 'long pres':
    case 'longpress': {
      const [x, y] = centre('element');
      return done({ action_type: 'long_press', x, y });
    }
    case 'type':
      // The released AndroidWorld executor types without pressing Enter (TextOnlyExecutor_android_world.type).
      return done({ action_type: 'input_text', text: call.kwargs.text, ...(someFieldHasText(ctx) ? { clear: true } : {}) });
    case 'swipe': {
      // The released AndroidWorld executor's precise form (TextOnlyExecutor_android_world.do → swipe_precise): start
      // and end go to `adb shell input swipe` as they are, device pixels whatever the element boxes' frame.
      if (call.kwargs.start !== undefined || call.kwargs.end !== undefined) {
        const at = (key: 'start' | 'end'): [number, number] => {
          const n = numbersIn(call.kwargs[key]);
          if (n?.length !== 2) fail(ID, output, `Swipe ${key} must be [x, y] in screen pixels, got ${JSON.stringify(call.kwargs[key])}`);
          const [x, y] = [Math.round(n[0]!), Math.round(n[1]!)];
          if (x < 0 || y < 0 || x >= ctx.screen.width || y >= ctx.screen.height) throw new VlmCoordinateError(ID, output, [n[0]!, n[1]!], ctx.screen);
          return [x, y];
        };
        return done({ action_type: 'swipe', start: at('start'), end: at('end') });
      }
      const dir = String(call.kwargs.direction ?? '').toLowerCase() as keyof typeof FINGER;
      if (!(dir in FINGER)) fail(ID, output, `Swipe direction must be up, down, left or right, got ${JSON.stringify(call.kwargs.direction)}`);
      const distWord = String(call.kwargs.dist ?? 'medium').toLowerCase() as keyof typeof UNITS;
      if (!(distWord in UNITS)) fail(ID, output, `Swipe dist must be long, medium or short, got ${JSON.stringify(call.kwargs.dist)}`);
      const { width: w, height: h } = ctx.screen;
      const start = call.kwargs.element !== undefined ? centre('element') : [Math.floor(w / 2), Math.floor(h / 2)] as [number, number];
      const unit = Math.floor(w / 10) * UNITS[distWord];
      const [fx, fy] = FINGER[dir];
      const clamp = (v: number, max: number) => Math.min(max - 1, Math.max(0, Math.round(v)));
      return done({ action_type: 'swipe', start, end: [clamp(start[0] + fx * unit, w), clamp(start[1] + fy * unit, h)] });
    }
    case 'launch':
      return done({ action_type: 'open_app', app_name: call.kwargs.app ?? call.args[1] });
    case 'back':
    case 'press back':
      return done({ action_type: 'navigate_back' });
    case 'home':
      return done({ action_type: 'navigate_home' });
    case 'enter':
      return done({ action_type: 'keyboard_enter' });
    case 'wait':
      return done({ action_type: 'wait' });
    default:
      return fail(ID, output, `unknown do(action=${JSON.stringify(call.kwargs.action ?? call.args[0])})`);
  }
}

const q = (s: string) => JSON.stringify(s);

function render(action: Action, ctx: RenderContext): string {
  const el = (a: { index?: number | undefined; x?: number | undefined; y?: number | undefined }) => {
    const b = deviceBox(a, ctx.obs, ID);
    const [x1, y1] = fromScreen([b.left, b.top], ctx);
    const [x2, y2] = fromScreen([b.right, b.bottom], ctx);
    return `[${x1}, ${y1}, ${x2}, ${y2}]`;
  };
  let code: string;
  switch (action.action_type) {
    case 'click':
      code = `do(action="Tap", element=${el(action)})`;
      break;
    case 'long_press':
      code = `do(action="Long Press", element=${el(action)})`;
      break;
    case 'double_tap':
      return fail(ID, JSON.stringify(action), 'MobileRL\'s executor has no double tap');
    case 'input_text':
      code = `do(action="Type", text=${q(action.text)})`;
      break;
    case 'keyboard_enter':
      code = 'do(action="Enter")';
      break;
    case 'press_key':
      return fail(ID, JSON.stringify(action), `MobileRL has no key press for ${action.key}`);
    case 'scroll': {
      // Content moving down means the finger moves up.
      const finger = { up: 'down', down: 'up', left: 'right', right: 'left' }[action.direction];
      code = action.index !== undefined ? `do(action="Swipe", direction="${finger}", dist="medium", element=${el({ index: action.index })})` : `do(action="Swipe", direction="${finger}", dist="medium")`;
      break;
    }
    case 'swipe': {
      const [dx, dy] = [action.end[0] - action.start[0], action.end[1] - action.start[1]];
      const dir = Math.abs(dy) >= Math.abs(dx) ? (dy < 0 ? 'up' : 'down') : dx < 0 ? 'left' : 'right';
      code = `do(action="Swipe", direction="${dir}", dist="medium", element=${el({ x: action.start[0], y: action.start[1] })})`;
      break;
    }
    case 'open_app':
      code = `do(action="Launch", app=${q(action.app_name)})`;
      break;
    case 'navigate_back':
      code = 'do(action="Back")';
      break;
    case 'navigate_home':
      code = 'do(action="Home")';
      break;
    case 'wait':
      code = 'do(action="Wait")';
      break;
    case 'answer':
      code = `finish(message=${q(action.text)})`;
      break;
    case 'status':
      if (action.goal_status === 'infeasible') fail(ID, JSON.stringify(action), 'MobileRL has no way to declare a task infeasible');
      code = 'finish(message="")';
      break;
    default:
      return assertNever(action, 'action');
  }
  return `<think>\n${ctx.thought ?? 'Next step.'}\n</think>\n<answer>\n${code}\n</answer>`;
}

/** MobileRL (AndroidLab) pseudo-code: <think>…</think><answer>do(action="Tap", element=[x1,y1,x2,y2])</answer>. */
export const mobileRlFormat: ActionFormat = {
  id: ID,
  title: 'MobileRL do(...)',
  description: 'MobileRL / AndroidLab: <think>…</think><answer>do(action="Tap", element=[x1,y1,x2,y2])</answer> or finish(message=…); element boxes relative 0–999 by default (its released AndroidWorld configuration, is_relative_bbox), screen pixels for checkpoints trained on raw bounds.',
  defaultCoordinates: 'relative-999',
  defaultElements: true,
  systemPrompt,
  elementsText: mobileRlElementsText,
  parse,
  render,
  samples: [
    { output: '<think>\nThe + button adds a contact.\n</think>\n<answer>\ndo(action="Tap", element=[833, 875, 963, 933])\n</answer>', action: { action_type: 'click', x: 971, y: 2172 }, note: 'box centre, relative 0–999: (898, 904)·(1080, 2400)/999' },
    { output: '<answer>do(action="Type", text="Alice")</answer>', action: { action_type: 'input_text', text: 'Alice' }, note: 'no think block' },
    { output: '<think>done</think><answer>finish(message="The meeting is at 3 pm")</answer>', action: { action_type: 'answer', text: 'The meeting is at 3 pm' }, note: 'finish with a message' },
    { output: '<answer>do(action="Fly")</answer>', action: null, note: 'unknown action: a format error' },
  ],
};
