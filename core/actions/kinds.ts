import type { Rng } from '../util/rng.js';
import type { Observation } from '../device/observation.js';
import { focusedField } from '../device/observation.js';
import { APP_CATALOG, appByPackage } from '../device/app-catalog.js';
import { clickableAncestor, elementLabel, type UiElement } from '../a11y/ui-tree.js';
import { DIRECTIONS, type Action, type ActionOf, type ActionType } from './schema.js';
import { actionElement, elementAt } from './target.js';

/**
 * One entry per action kind: what it does (for prompts and docs), how to say what a given action
 * did on a given screen, and a sample drawn from a screen (the random policy, docs, tests).
 * Parsing reads the zod schema in schema.ts; everything else reads this table.
 */
export interface ActionKind<K extends ActionType> {
  readonly type: K;
  readonly summary: string;
  readonly example: ActionOf<K>;
  describe(action: ActionOf<K>, obs: Observation): string;
  /** A plausible action of this kind on this screen, or null when the screen offers none. */
  sample(rng: Rng, obs: Observation): ActionOf<K> | null;
}

const LAUNCHER_PACKAGES = new Set(['com.google.android.apps.nexuslauncher']);

/** " in Contacts", " on the home screen", or "" when the app is unknown. */
function where(obs: Observation): string {
  const pkg = obs.foreground.package;
  if (LAUNCHER_PACKAGES.has(pkg)) return ' on the home screen';
  const app = appByPackage(pkg);
  return app ? ` in ${app.name}` : pkg ? ` in ${pkg}` : '';
}

function humanizeId(resourceId: string): string {
  const name = resourceId.split(':id/')[1] ?? resourceId;
  return name.replace(/[_-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().trim();
}

function shortClass(className: string): string {
  return (className.split('.').pop() ?? className).replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

function quote(text: string, max = 60): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return `"${oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine}"`;
}

/** How a person would name what was touched: the label of the clickable thing under the finger. */
export function touchedName(el: UiElement | undefined): string {
  if (!el) return 'the screen';
  const target = clickableAncestor(el) ?? el;
  const label = elementLabel(target) || elementLabel(el);
  if (label) return quote(label);
  if (target.node.resourceId) return `the ${humanizeId(target.node.resourceId)} ${shortClass(target.node.className)}`;
  return `the ${shortClass(target.node.className)}`;
}

/** The name of an editable field: its description, its id, then its text (which is the hint when empty). */
export function fieldName(el: UiElement): string {
  const n = el.node;
  if (n.contentDesc.trim()) return quote(n.contentDesc);
  if (n.resourceId) return quote(humanizeId(n.resourceId));
  if (n.text.trim()) return quote(n.text);
  return 'the text field';
}

function clickable(obs: Observation): UiElement[] {
  return obs.elements.filter((e) => e.node.clickable && e.node.enabled && e.node.bounds.right > e.node.bounds.left);
}

const WORDS = ['hello', 'test', 'Alice', 'meeting', '42', 'groceries', 'note', 'tomorrow', '555-0100', 'done'];

type ActionTable = { [K in ActionType]: ActionKind<K> };

export const ACTION_KINDS: ActionTable = {
  click: {
    type: 'click',
    summary: 'Tap an element (by index) or a point (x, y in screen pixels).',
    example: { action_type: 'click', index: 4 },
    describe: (a, obs) => `Tap ${touchedName(actionElement(a, obs))}${where(obs)}`,
    sample: (rng, obs) => {
      const items = clickable(obs);
      if (items.length === 0 || rng.chance(0.05)) {
        return { action_type: 'click', x: rng.int(0, obs.screen.width - 1), y: rng.int(0, obs.screen.height - 1) };
      }
      return { action_type: 'click', index: rng.pick(items).ordinal };
    },
  },
  long_press: {
    type: 'long_press',
    summary: 'Touch and hold an element or a point (opens context menus, selects items).',
    example: { action_type: 'long_press', index: 7 },
    describe: (a, obs) => `Long-press ${touchedName(actionElement(a, obs))}${where(obs)}`,
    sample: (rng, obs) => {
      const items = obs.elements.filter((e) => e.node.longClickable);
      const pool = items.length ? items : clickable(obs);
      return pool.length ? { action_type: 'long_press', index: rng.pick(pool).ordinal } : null;
    },
  },
  double_tap: {
    type: 'double_tap',
    summary: 'Tap an element or a point twice in quick succession (AndroidWorld\'s double_tap: zoom, select a word).',
    example: { action_type: 'double_tap', index: 4 },
    describe: (a, obs) => `Double-tap ${touchedName(actionElement(a, obs))}${where(obs)}`,
    sample: (rng, obs) => {
      const items = clickable(obs);
      return items.length ? { action_type: 'double_tap', index: rng.pick(items).ordinal } : null;
    },
  },
  scroll: {
    type: 'scroll',
    summary: 'Scroll the content (or the indexed element) in a direction; "down" reveals what is below.',
    example: { action_type: 'scroll', direction: 'down' },
    describe: (a, obs) => {
      const el = a.index === undefined ? undefined : elementAt(obs, a.index);
      const what = el && elementLabel(el) ? ` ${quote(elementLabel(el), 30)}` : '';
      return `Scroll${what} ${a.direction}${where(obs)}`;
    },
    sample: (rng) => ({ action_type: 'scroll', direction: rng.pick(DIRECTIONS) }),
  },
  swipe: {
    type: 'swipe',
    summary: 'Drag a finger from start to end (screen pixels).',
    example: { action_type: 'swipe', start: [540, 1800], end: [540, 600] },
    describe: (a, obs) => {
      const [x1, y1] = a.start.map(Math.round) as [number, number];
      const [x2, y2] = a.end.map(Math.round) as [number, number];
      const dx = x2 - x1;
      const dy = y2 - y1;
      const dir = Math.abs(dy) >= Math.abs(dx) ? (dy < 0 ? 'up' : 'down') : dx < 0 ? 'left' : 'right';
      return `Swipe ${dir} from (${x1}, ${y1}) to (${x2}, ${y2})${where(obs)}`;
    },
    sample: (rng, obs) => ({
      action_type: 'swipe',
      start: [rng.int(0, obs.screen.width - 1), rng.int(0, obs.screen.height - 1)],
      end: [rng.int(0, obs.screen.width - 1), rng.int(0, obs.screen.height - 1)],
    }),
  },
  input_text: {
    type: 'input_text',
    summary: 'Type text into the indexed field (tapping it first), or into the focused field; submit: true presses Enter after.',
    example: { action_type: 'input_text', text: 'Alice', index: 5 },
    describe: (a, obs) => {
      const el = a.index !== undefined ? elementAt(obs, a.index) : focusedField(obs);
      return `Type ${quote(a.text)}${el ? ` into ${fieldName(el)}` : ''}${a.submit ? ' and press Enter' : ''}${where(obs)}`;
    },
    sample: (rng, obs) => {
      const fields = obs.elements.filter((e) => e.node.className === 'android.widget.EditText' && e.node.enabled);
      if (fields.length === 0) return null;
      return { action_type: 'input_text', text: rng.pick(WORDS), index: rng.pick(fields).ordinal };
    },
  },
  keyboard_enter: {
    type: 'keyboard_enter',
    summary: 'Press the Enter key (submits searches and single-line fields).',
    example: { action_type: 'keyboard_enter' },
    describe: (_a, obs) => `Press Enter${where(obs)}`,
    sample: () => ({ action_type: 'keyboard_enter' }),
  },
  press_key: {
    type: 'press_key',
    summary: 'Press a device key other than Enter, Back and Home (APP_SWITCH: recent apps; DEL, TAB, ESCAPE, SPACE…).',
    example: { action_type: 'press_key', key: 'APP_SWITCH' },
    describe: (a, obs) => `Press ${a.key === 'APP_SWITCH' ? 'the recent-apps key' : a.key}${where(obs)}`,
    sample: () => null,
  },
  navigate_back: {
    type: 'navigate_back',
    summary: 'Press Back (closes the keyboard, a dialog, or the current screen).',
    example: { action_type: 'navigate_back' },
    describe: (_a, obs) => `Go back${where(obs)}`,
    sample: () => ({ action_type: 'navigate_back' }),
  },
  navigate_home: {
    type: 'navigate_home',
    summary: 'Press Home (go to the launcher).',
    example: { action_type: 'navigate_home' },
    describe: () => 'Go to the home screen',
    sample: () => ({ action_type: 'navigate_home' }),
  },
  open_app: {
    type: 'open_app',
    summary: 'Launch an app by name.',
    example: { action_type: 'open_app', app_name: 'Contacts' },
    describe: (a) => `Open ${a.app_name.trim()}`,
    sample: (rng) => ({ action_type: 'open_app', app_name: rng.pick(APP_CATALOG.filter((x) => x.simulated)).name }),
  },
  wait: {
    type: 'wait',
    summary: 'Wait for the screen to change (default 1 s).',
    example: { action_type: 'wait', seconds: 2 },
    describe: (a) => `Wait ${a.seconds ?? 1} s`,
    sample: () => ({ action_type: 'wait' }),
  },
  answer: {
    type: 'answer',
    summary: "Answer the user's question (information-retrieval tasks); ends the episode.",
    example: { action_type: 'answer', text: 'Alice Smith' },
    describe: (a) => `Answer ${quote(a.text, 80)}`,
    sample: (rng, obs) => {
      const texts = obs.elements.map((e) => e.node.text).filter((t) => t.trim());
      return { action_type: 'answer', text: texts.length ? rng.pick(texts) : '' };
    },
  },
  status: {
    type: 'status',
    summary: 'Declare the task complete or infeasible; ends the episode.',
    example: { action_type: 'status', goal_status: 'complete' },
    describe: (a) => (a.goal_status === 'complete' ? 'Declare the task complete' : 'Declare the task infeasible'),
    sample: () => ({ action_type: 'status', goal_status: 'complete' }),
  },
};

/** A one-line natural-language description of an action on a screen, e.g. `Tap "Save" in Contacts`. */
export function describeAction(action: Action, obs: Observation): string {
  // TypeScript cannot correlate the table entry with the action's own type (the union is not
  // narrowed through the index), so the entry is called through its widest signature.
  const kind = ACTION_KINDS[action.action_type] as ActionKind<ActionType>;
  return kind.describe(action as never, obs);
}
