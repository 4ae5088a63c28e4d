import type { Action } from '../actions/schema.js';
import { boundsContain, type UiElement } from '../a11y/ui-tree.js';
import type { Observation } from '../device/observation.js';

/**
 * AndroidWorld's JSONAction (android_world/env/json_action.py), executed as its `actuation.execute_adb_action` does,
 * turned into the workbench's action that has the same effect on the device, so an AndroidWorld agent run here acts
 * as it would on AndroidWorld's own environment:
 *
 * - the fields and checks of JSONAction's constructor: the 14 action types, `index` as an int (a numeric string is
 *   taken) and never with `x`/`y`, `direction` one of left/right/down/up, `keycode` starting KEYCODE_, no other keys;
 * - click / double_tap / long_press at the element's centre (its pixel box's centre, truncated) or at int(x), int(y);
 * - input_text: tap the element or point first when one is named, select-all + delete when `clear_text`, type the
 *   text folded to ASCII (as adb types it: NFKD, the rest dropped; a text that folds to nothing only presses Enter),
 *   then Enter (AndroidWorld always presses Enter after typing); no text types nothing;
 * - scroll: a swipe from the centre of the element's box (clamped to the screen; the whole screen when `index` is
 *   absent — or 0, as AndroidWorld's `if action.index:` reads it) to the edge against the direction;
 * - swipe: edge to edge across the whole screen in the direction, 500 ms;
 * - answer / status / wait / open_app / navigate_* / keyboard_enter as their names say; `unknown` executes nothing.
 *
 * What cannot be carried out is returned as a reason (a recorded failed step), as AndroidWorld raises or skips.
 * Differences that remain: typing into an element that is not a text field is refused (AndroidWorld taps it and types
 * into whatever has focus), and edge points are clamped one pixel inside the screen.
 */
export type AwConversion = { ok: true; action: Action } | { ok: false; reason: string };

const TYPES = [
  'click', 'double_tap', 'scroll', 'swipe', 'input_text', 'navigate_home', 'navigate_back', 'keyboard_enter', 'open_app',
  'status', 'wait', 'long_press', 'answer', 'unknown',
] as const;
const FIELDS = new Set(['action_type', 'index', 'x', 'y', 'text', 'direction', 'goal_status', 'app_name', 'keycode', 'clear_text']);
const DIRECTIONS = ['left', 'right', 'down', 'up'] as const;
type Direction = (typeof DIRECTIONS)[number];

const no = (reason: string): AwConversion => ({ ok: false, reason });

/** Python's int() of a JSON number or numeric string (truncation); undefined when it is not one. */
function pyInt(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) return Number.parseInt(v, 10);
  return undefined;
}

function clampTo(obs: Observation, x: number, y: number): [number, number] {
  return [Math.min(Math.max(Math.trunc(x), 0), obs.screen.width - 1), Math.min(Math.max(Math.trunc(y), 0), obs.screen.height - 1)];
}

/** AndroidWorld's `_adb_text_format` without the shell escapes: NFKD, then only ASCII kept. */
function asciiFolded(text: string): string {
  return text.normalize('NFKD').replace(/[^\x00-\x7f]/g, '');
}

/** The deepest element under a point that is a text field, as a tap there would focus it. */
function fieldAt(obs: Observation, x: number, y: number): UiElement | undefined {
  let found: UiElement | undefined;
  for (const e of obs.elements) if (e.node.className === 'android.widget.EditText' && boundsContain(e.node.bounds, x, y)) found = e;
  return found;
}

export function fromJsonAction(value: unknown, obs: Observation): AwConversion {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return no(`a JSONAction is an object, got ${JSON.stringify(value)?.slice(0, 80)}`);
  const a = value as Record<string, unknown>;
  const extra = Object.keys(a).filter((k) => !FIELDS.has(k));
  if (extra.length) return no(`JSONAction has no field ${extra.map((k) => JSON.stringify(k)).join(', ')}`);
  const type = a.action_type;
  if (!(TYPES as readonly unknown[]).includes(type)) return no(`Invalid action type: ${JSON.stringify(type)}`);
  const none = (k: string) => a[k] === undefined || a[k] === null;
  let index: number | undefined;
  if (!none('index')) {
    index = pyInt(a.index);
    if (index === undefined) return no(`index must be an integer, got ${JSON.stringify(a.index)}`);
    if (!none('x') || !none('y')) return no('Either an index or a <x, y> should be provided.');
  }
  if (!none('direction') && !(DIRECTIONS as readonly unknown[]).includes(a.direction)) return no(`Invalid scroll direction: ${JSON.stringify(a.direction)}`);
  if (!none('keycode') && !(typeof a.keycode === 'string' && a.keycode.startsWith('KEYCODE_'))) return no(`Invalid keycode: ${JSON.stringify(a.keycode)}`);
  const text = none('text') ? undefined : typeof a.text === 'string' ? a.text : JSON.stringify(a.text);
  const x = none('x') ? undefined : pyInt(a.x);
  const y = none('y') ? undefined : pyInt(a.y);
  if ((!none('x') && x === undefined) || (!none('y') && y === undefined)) return no(`x and y must be numbers, got ${JSON.stringify(a.x)}, ${JSON.stringify(a.y)}`);
  const point = x !== undefined && y !== undefined ? { x, y } : undefined;

  switch (type as (typeof TYPES)[number]) {
    case 'click':
    case 'double_tap':
    case 'long_press': {
      const t = type as 'click' | 'double_tap' | 'long_press';
      if (index !== undefined) return { ok: true, action: { action_type: t, index } };
      if (point) return { ok: true, action: { action_type: t, ...point } };
      return no(`Invalid click action: ${JSON.stringify(a)}`);
    }
    case 'input_text': {
      if (!text) return no('input_text without text: nothing is typed (AndroidWorld logs a warning and executes nothing)');
      const clear = a.clear_text === true ? { clear: true } : {};
      // What adb's `input text` can type: AndroidWorld folds the text to ASCII (NFKD, the rest dropped) before typing it.
      const typed = asciiFolded(text);
      if (!typed) return { ok: true, action: { action_type: 'keyboard_enter' } };
      if (index !== undefined) return { ok: true, action: { action_type: 'input_text', text: typed, index, ...clear, submit: true } };
      if (point) {
        const field = fieldAt(obs, point.x, point.y);
        if (!field) return no(`input_text at (${point.x}, ${point.y}): no text field there to tap and type into`);
        return { ok: true, action: { action_type: 'input_text', text: typed, index: field.ordinal, ...clear, submit: true } };
      }
      return { ok: true, action: { action_type: 'input_text', text: typed, ...clear, submit: true } };
    }
    case 'keyboard_enter':
      return { ok: true, action: { action_type: 'keyboard_enter' } };
    case 'navigate_home':
      return { ok: true, action: { action_type: 'navigate_home' } };
    case 'navigate_back':
      return { ok: true, action: { action_type: 'navigate_back' } };
    case 'scroll': {
      const dir = a.direction as Direction | undefined;
      if (!dir) return no('Invalid direction: a scroll needs "direction" (up, down, left or right)');
      const { width, height } = obs.screen;
      let [x0, y0, x1, y1] = [0, 0, width, height];
      // AndroidWorld's own test: an index of 0 scrolls the whole screen.
      if (index) {
        const el = obs.elements[index];
        if (!el) return no(`Invalid element index: ${index}, must be between 0 and ${obs.elements.length - 1}.`);
        const b = el.node.bounds;
        [x0, y0, x1, y1] = [Math.max(b.left, 0), Math.max(b.top, 0), Math.min(b.right, width), Math.min(b.bottom, height)];
      }
      const cx = Math.floor((x0 + x1) / 2);
      const cy = Math.floor((y0 + y1) / 2);
      const end: [number, number] = dir === 'down' ? [cx, y0] : dir === 'up' ? [cx, y1] : dir === 'right' ? [x0, cy] : [x1, cy];
      return { ok: true, action: { action_type: 'swipe', start: clampTo(obs, cx, cy), end: clampTo(obs, ...end) } };
    }
    case 'swipe': {
      const dir = a.direction as Direction | undefined;
      if (!dir) return no('Invalid direction: a swipe needs "direction" (up, down, left or right)');
      const { width: w, height: h } = obs.screen;
      const [mx, my] = [0.5 * w, 0.5 * h];
      const [s, e]: [[number, number], [number, number]] = dir === 'down' ? [[mx, 0], [mx, h]] : dir === 'up' ? [[mx, h], [mx, 0]]
        : dir === 'left' ? [[0, my], [w, my]] : [[w, my], [0, my]];
      return { ok: true, action: { action_type: 'swipe', start: clampTo(obs, ...s), end: clampTo(obs, ...e), duration_ms: 500 } };
    }
    case 'open_app': {
      const app = typeof a.app_name === 'string' ? a.app_name.trim() : '';
      if (!app) return no('No app name provided');
      return { ok: true, action: { action_type: 'open_app', app_name: app } };
    }
    case 'wait':
      return { ok: true, action: { action_type: 'wait' } };
    case 'answer':
      return { ok: true, action: { action_type: 'answer', text: text ?? '' } };
    case 'status': {
      const g = a.goal_status;
      if (g !== 'complete' && g !== 'infeasible') return no(`goal_status must be "complete" or "infeasible", got ${JSON.stringify(g)}`);
      return { ok: true, action: { action_type: 'status', goal_status: g } };
    }
    case 'unknown':
      return no('AndroidWorld\'s unknown action: nothing is executed');
  }
}
