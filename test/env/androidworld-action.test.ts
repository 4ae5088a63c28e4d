import { describe, expect, it } from 'vitest';
import { observe } from '../../core/device/observation.js';
import { fromJsonAction } from '../../core/env/androidworld-action.js';
import { awUiElements } from '../../core/a11y/androidworld-elements.js';
import { device } from '../helpers/simdroid.js';

/**
 * AndroidWorld's JSONAction as its actuation.execute_adb_action carries it out (android_world/env/actuation.py and
 * json_action.py): the expected values below are what that code computes for the same screen.
 */
const d = device();
await d.shell('am start -n com.google.android.contacts/com.android.contacts.activities.PeopleActivity');
const obs = await observe(d);

describe("AndroidWorld's JSONAction", () => {
  it('keeps an index for click, double_tap and long_press (the element\'s centre, truncated, as AndroidWorld taps it) and int(x), int(y)', () => {
    expect(fromJsonAction({ action_type: 'click', index: '3' }, obs)).toEqual({ ok: true, action: { action_type: 'click', index: 3 } });
    expect(fromJsonAction({ action_type: 'double_tap', x: 10.9, y: 20.2 }, obs)).toEqual({ ok: true, action: { action_type: 'double_tap', x: 10, y: 20 } });
    expect(fromJsonAction({ action_type: 'long_press', index: 2, x: null, y: null }, obs)).toEqual({ ok: true, action: { action_type: 'long_press', index: 2 } });
    expect(fromJsonAction({ action_type: 'click' }, obs)).toMatchObject({ ok: false, reason: expect.stringContaining('Invalid click action') });
  });

  it('refuses what its constructor refuses: unknown types and fields, an index with x/y, a bad direction or keycode', () => {
    expect(fromJsonAction({ action_type: 'tap', index: 1 }, obs)).toMatchObject({ ok: false, reason: 'Invalid action type: "tap"' });
    expect(fromJsonAction({ action_type: 'click', index: 1, extra: 1 }, obs)).toMatchObject({ ok: false, reason: expect.stringContaining('"extra"') });
    expect(fromJsonAction({ action_type: 'click', index: 1, x: 3, y: 4 }, obs)).toMatchObject({ ok: false, reason: 'Either an index or a <x, y> should be provided.' });
    expect(fromJsonAction({ action_type: 'scroll', direction: 'sideways' }, obs)).toMatchObject({ ok: false, reason: expect.stringContaining('Invalid scroll direction') });
    expect(fromJsonAction({ action_type: 'wait', keycode: 'ENTER' }, obs)).toMatchObject({ ok: false, reason: expect.stringContaining('Invalid keycode') });
    expect(fromJsonAction([1], obs)).toMatchObject({ ok: false });
  });

  it('types then presses Enter, after tapping the named field and clearing when asked; no text types nothing', () => {
    expect(fromJsonAction({ action_type: 'input_text', text: 'Ana', index: 5, clear_text: true }, obs))
      .toEqual({ ok: true, action: { action_type: 'input_text', text: 'Ana', index: 5, clear: true, submit: true } });
    expect(fromJsonAction({ action_type: 'input_text', text: 42 }, obs)).toEqual({ ok: true, action: { action_type: 'input_text', text: '42', submit: true } });
    // adb types ASCII: AndroidWorld folds the text first (NFKD, the rest dropped); nothing left only presses Enter.
    expect(fromJsonAction({ action_type: 'input_text', text: 'Café déjà vu' }, obs)).toEqual({ ok: true, action: { action_type: 'input_text', text: 'Cafe deja vu', submit: true } });
    expect(fromJsonAction({ action_type: 'input_text', text: '東京' }, obs)).toEqual({ ok: true, action: { action_type: 'keyboard_enter' } });
    expect(fromJsonAction({ action_type: 'input_text', text: '' }, obs)).toMatchObject({ ok: false, reason: expect.stringContaining('nothing is typed') });
    expect(fromJsonAction({ action_type: 'input_text', text: 'x', x: 1, y: 1 }, obs)).toMatchObject({ ok: false, reason: expect.stringContaining('no text field') });
  });

  it('scrolls from the centre of the element (or the whole screen for no index, and for index 0) to the edge against the direction', () => {
    const { width: w, height: h } = obs.screen;
    expect(fromJsonAction({ action_type: 'scroll', direction: 'down' }, obs)).toEqual({ ok: true, action: { action_type: 'swipe', start: [w / 2, h / 2], end: [w / 2, 0] } });
    expect(fromJsonAction({ action_type: 'scroll', direction: 'up', index: 0 }, obs)).toEqual({ ok: true, action: { action_type: 'swipe', start: [w / 2, h / 2], end: [w / 2, h - 1] } });
    const el = obs.elements.find((e) => e.ordinal > 0 && e.node.scrollable) ?? obs.elements[1]!;
    const b = el.node.bounds;
    const cx = Math.floor((Math.max(b.left, 0) + Math.min(b.right, w)) / 2);
    const cy = Math.floor((Math.max(b.top, 0) + Math.min(b.bottom, h)) / 2);
    expect(fromJsonAction({ action_type: 'scroll', direction: 'right', index: el.ordinal }, obs))
      .toEqual({ ok: true, action: { action_type: 'swipe', start: [cx, cy], end: [Math.max(b.left, 0), cy] } });
    expect(fromJsonAction({ action_type: 'scroll', direction: 'left', index: 9999 }, obs)).toMatchObject({ ok: false, reason: expect.stringContaining('Invalid element index') });
  });

  it('swipes across the whole screen in 500 ms, and maps the rest by name', () => {
    const { width: w, height: h } = obs.screen;
    expect(fromJsonAction({ action_type: 'swipe', direction: 'left' }, obs)).toEqual({ ok: true, action: { action_type: 'swipe', start: [0, h / 2], end: [w - 1, h / 2], duration_ms: 500 } });
    expect(fromJsonAction({ action_type: 'answer', text: 'Friday' }, obs)).toEqual({ ok: true, action: { action_type: 'answer', text: 'Friday' } });
    expect(fromJsonAction({ action_type: 'status', goal_status: 'infeasible' }, obs)).toEqual({ ok: true, action: { action_type: 'status', goal_status: 'infeasible' } });
    expect(fromJsonAction({ action_type: 'status', goal_status: 'task_complete' }, obs)).toMatchObject({ ok: false });
    expect(fromJsonAction({ action_type: 'open_app', app_name: ' Clock ' }, obs)).toEqual({ ok: true, action: { action_type: 'open_app', app_name: 'Clock' } });
    expect(fromJsonAction({ action_type: 'open_app' }, obs)).toMatchObject({ ok: false, reason: 'No app name provided' });
    expect(fromJsonAction({ action_type: 'unknown' }, obs)).toMatchObject({ ok: false });
  });
});

describe("AndroidWorld's UI elements", () => {
  it('are every node of the dump in document order, with its attributes under AndroidWorld\'s names', () => {
    const els = awUiElements(obs.elements);
    expect(els).toHaveLength(obs.elements.length);
    const i = obs.elements.findIndex((e) => e.node.resourceId !== '' && e.node.text !== '');
    const n = obs.elements[i]!.node;
    expect(els[i]).toEqual({
      text: n.text, content_description: n.contentDesc, class_name: n.className,
      bbox: { x_min: n.bounds.left, x_max: n.bounds.right, y_min: n.bounds.top, y_max: n.bounds.bottom },
      bbox_pixels: { x_min: n.bounds.left, x_max: n.bounds.right, y_min: n.bounds.top, y_max: n.bounds.bottom },
      is_checked: n.checked, is_checkable: n.checkable, is_clickable: n.clickable, is_enabled: n.enabled, is_focused: n.focused,
      is_focusable: n.focusable, is_long_clickable: n.longClickable, is_scrollable: n.scrollable, is_selected: n.selected,
      package_name: n.packageName, resource_id: n.resourceId, is_visible: true,
    });
  });
});
