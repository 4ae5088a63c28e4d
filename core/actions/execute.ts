import type { Device, InputEvent } from '../device/device.js';
import { focusedField, type Observation } from '../device/observation.js';
import { requireApp } from '../device/app-catalog.js';
import { boundsCenter } from '../a11y/ui-tree.js';
import { assertNever } from '../util/errors.js';
import type { Action } from './schema.js';
import { elementAt, scrollRegion, targetPoint, validateAgainst } from './target.js';

/** Text quoted in an error message: a policy can emit 100 KB of it, which the terminal and the store need not repeat. */
const QUOTED_MAX = 80;

export class NoFocusedFieldError extends Error {
  override name = 'NoFocusedFieldError';
  constructor(readonly text: string) {
    const quoted = text.length <= QUOTED_MAX ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, QUOTED_MAX))}… (${text.length} characters)`;
    super(`Cannot type ${quoted}: no text field is focused and no element index was given`);
  }
}

export class NotEditableError extends Error {
  override name = 'NotEditableError';
  constructor(readonly index: number, readonly className: string) {
    super(`Element ${index} (${className}) is not a text field`);
  }
}

/** Durations AndroidWorld's adb actions use: a long press is held ~1 s, a scroll drag takes 300 ms. */
const LONG_PRESS_MS = 1000;
const SCROLL_MS = 300;
const SWIPE_MS = 300;

/**
 * The input events an action becomes on a given screen. Pure: validates the action against the
 * screen first (throws ElementIndexError, OutOfScreenError, NoFocusedFieldError…) so a bad action
 * never reaches the device half-done.
 */
export function planInput(action: Action, obs: Observation): InputEvent[] | { launch: string } | null {
  validateAgainst(action, obs);
  switch (action.action_type) {
    case 'click': {
      const p = targetPoint(obs, action);
      return [{ kind: 'tap', x: p.x, y: p.y }];
    }
    case 'long_press': {
      const p = targetPoint(obs, action);
      return [{ kind: 'long_press', x: p.x, y: p.y, durationMs: LONG_PRESS_MS }];
    }
    case 'double_tap': {
      // Two taps, as AndroidWorld's adb_utils.double_tap sends them (`input tap x y` twice).
      const p = targetPoint(obs, action);
      return [{ kind: 'tap', x: p.x, y: p.y }, { kind: 'tap', x: p.x, y: p.y }];
    }
    case 'scroll': {
      // Scrolling "down" reveals content below, so the finger moves up (AndroidWorld's convention).
      const b = scrollRegion(obs, action.index);
      const { x, y } = boundsCenter(b);
      const dx = Math.round((b.right - b.left) * 0.3);
      const dy = Math.round((b.bottom - b.top) * 0.3);
      const [x1, y1, x2, y2] =
        action.direction === 'down' ? [x, y + dy, x, y - dy]
        : action.direction === 'up' ? [x, y - dy, x, y + dy]
        : action.direction === 'right' ? [x + dx, y, x - dx, y]
        : [x - dx, y, x + dx, y];
      return [{ kind: 'swipe', x1, y1, x2, y2, durationMs: SCROLL_MS }];
    }
    case 'swipe':
      return [{
        kind: 'swipe',
        x1: Math.round(action.start[0]), y1: Math.round(action.start[1]),
        x2: Math.round(action.end[0]), y2: Math.round(action.end[1]),
        durationMs: action.duration_ms ?? SWIPE_MS,
      }];
    case 'input_text': {
      const events: InputEvent[] = [];
      let field;
      if (action.index !== undefined) {
        field = elementAt(obs, action.index);
        if (field.node.className !== 'android.widget.EditText') {
          throw new NotEditableError(action.index, field.node.className);
        }
        const c = boundsCenter(field.node.bounds);
        events.push({ kind: 'tap', x: c.x, y: c.y });
      } else {
        field = focusedField(obs);
        if (!field) throw new NoFocusedFieldError(action.text);
      }
      if (action.clear) {
        // The field's accessibility text is its hint when empty, so clear by its length either way:
        // extra deletes on an empty field are harmless.
        events.push({ kind: 'key', key: 'MOVE_END' });
        for (let i = 0; i < field.node.text.length; i++) events.push({ kind: 'key', key: 'DEL' });
      }
      events.push({ kind: 'text', text: action.text });
      if (action.submit) events.push({ kind: 'key', key: 'ENTER' });
      return events;
    }
    case 'keyboard_enter':
      return [{ kind: 'key', key: 'ENTER' }];
    case 'press_key':
      return [{ kind: 'key', key: action.key }];
    case 'navigate_back':
      return [{ kind: 'key', key: 'BACK' }];
    case 'navigate_home':
      return [{ kind: 'key', key: 'HOME' }];
    case 'open_app': {
      const app = requireApp(action.app_name);
      return { launch: `${app.package}/${app.activity}` };
    }
    case 'wait':
    case 'answer':
    case 'status':
      return null;
    default:
      return assertNever(action, 'action');
  }
}

export class AppLaunchError extends Error {
  override name = 'AppLaunchError';
  constructor(readonly component: string, readonly output: string) {
    super(`Could not start ${component}: ${output.trim()}`);
  }
}

/** Carries out an action on a device. Terminal actions (answer, status) do nothing on the device. */
export async function executeAction(device: Device, action: Action, obs: Observation): Promise<void> {
  await performPlan(device, action, planInput(action, obs));
}

export type InputPlan = ReturnType<typeof planInput>;

/**
 * Sends a validated plan to the device. Failures here are the device's (disconnected, adb gone),
 * except AppLaunchError, which means the app is not installed there.
 */
export async function performPlan(device: Device, action: Action, plan: InputPlan): Promise<void> {
  if (plan === null) {
    if (action.action_type === 'wait') await device.idle(Math.round((action.seconds ?? 1) * 1000));
    return;
  }
  if ('launch' in plan) {
    const r = await device.shell(`am start -n ${plan.launch}`);
    if (r.exitCode !== 0 || /Error/.test(r.stdout)) throw new AppLaunchError(plan.launch, r.stdout + r.stderr);
    return;
  }
  for (const e of plan) await device.input(e);
}
