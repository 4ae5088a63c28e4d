import { describe, expect, it } from 'vitest';
import { ACTION_TYPES, ActionParseError, parseAction, type Action } from '../../core/actions/schema.js';
import { ACTION_KINDS, describeAction } from '../../core/actions/kinds.js';
import { executeAction, NoFocusedFieldError, NotEditableError, planInput } from '../../core/actions/execute.js';
import { ElementIndexError, OutOfScreenError } from '../../core/actions/target.js';
import { UnknownAppError } from '../../core/device/app-catalog.js';
import { observe } from '../../core/device/observation.js';
import { findFirst } from '../../core/a11y/ui-tree.js';
import { createRng } from '../../core/util/rng.js';
import { device, tap } from '../helpers/simdroid.js';

describe('parseAction', () => {
  it('accepts every kind in its JSON form', () => {
    for (const type of ACTION_TYPES) {
      const example = ACTION_KINDS[type].example;
      expect(parseAction(JSON.stringify(example))).toEqual(example);
    }
  });

  it.each([
    ['not json', 'not JSON'],
    ['{"action_type":"fly"}', 'action_type'],
    ['{"action_type":"click"}', 'either "index" or both'],
    ['{"action_type":"click","x":3}', '"x" and "y" go together'],
    ['{"action_type":"click","index":-1}', 'index'],
    ['{"action_type":"click","index":2,"x":1,"y":1}', 'either "index"'],
    ['{"action_type":"scroll","direction":"sideways"}', 'direction'],
    ['{"action_type":"input_text","text":""}', 'text must not be empty'],
    ['{"action_type":"open_app"}', 'app_name'],
    ['{"action_type":"status","goal_status":"done"}', 'goal_status'],
    ['{"action_type":"navigate_back","extra":1}', 'Unrecognized key'],
    ['{"action_type":"wait","seconds":0}', 'seconds'],
    ['[1,2]', 'expected object'],
  ])('rejects %s with a typed error', (input, message) => {
    let err: unknown;
    try {
      parseAction(input);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ActionParseError);
    expect((err as ActionParseError).input).toBe(input);
    expect((err as Error).message).toContain(message);
  });

  // Issue 16, found by test/fuzz/parsers.test.ts: the error's message showed the input with JSON.stringify,
  // which throws for a BigInt or a cycle (an action from IPC is structured-cloned, so it may hold either)
  // and for nesting deeper than the stack; parseAction threw that TypeError or RangeError instead.
  it('refuses inputs JSON cannot show (BigInt, a cycle, deep nesting) with ActionParseError', () => {
    const cycle: Record<string, unknown> = { action_type: 'click' };
    cycle.self = cycle;
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = [deep];
    for (const input of [{ action_type: 'click', index: 1n }, 5n, cycle, { action_type: 'wait', seconds: deep }]) {
      expect(() => parseAction(input)).toThrow(ActionParseError);
    }
  });
});

describe('actions on a screen', () => {
  it('describes actions in one line, naming the element and the app', async () => {
    const d = device();
    await d.shell('am start -n com.android.settings/.Settings');
    const obs = await observe(d);
    const display = findFirst(obs.elements, { text: 'Display' })!;
    expect(describeAction({ action_type: 'click', index: display.ordinal }, obs)).toBe('Tap "Display" in Settings');
    expect(describeAction({ action_type: 'scroll', direction: 'down' }, obs)).toBe('Scroll down in Settings');
    expect(describeAction({ action_type: 'open_app', app_name: 'Contacts' }, obs)).toBe('Open Contacts');
    expect(describeAction({ action_type: 'navigate_back' }, obs)).toBe('Go back in Settings');
    expect(describeAction({ action_type: 'answer', text: '42' }, obs)).toBe('Answer "42"');
    expect(describeAction({ action_type: 'status', goal_status: 'infeasible' }, obs)).toBe('Declare the task infeasible');
    const b = display.node.bounds;
    expect(describeAction({ action_type: 'long_press', x: b.left + 5, y: b.top + 5 }, obs)).toBe('Long-press "Display" in Settings');
    d.close();
  });

  it('describes typing into a named field', async () => {
    const d = device();
    d.shellBytes('am start -n com.android.settings/.SubSettings --es page about');
    tap(d, { text: 'Device name' });
    const obs = await observe(d);
    const field = findFirst(obs.elements, { className: 'android.widget.EditText' })!;
    expect(describeAction({ action_type: 'input_text', text: 'Lab phone', index: field.ordinal }, obs)).toBe('Type "Lab phone" into "edittext" in Settings');
    // Issue 18: UI-TARS's type(content='…\n') types and then presses Enter.
    const submit = { action_type: 'input_text', text: 'Lab phone', index: field.ordinal, submit: true } as const;
    expect(describeAction(submit, obs)).toBe('Type "Lab phone" into "edittext" and press Enter in Settings');
    expect((planInput(submit, obs) as Array<{ kind: string; key?: string }>).slice(-2)).toEqual([{ kind: 'text', text: 'Lab phone' }, { kind: 'key', key: 'ENTER' }]);
    expect((planInput({ ...submit, submit: false }, obs) as Array<{ kind: string }>).at(-1)).toEqual({ kind: 'text', text: 'Lab phone' });
    d.close();
  });

  it('refuses impossible actions before touching the device', async () => {
    const d = device();
    await d.shell('am start -n com.android.settings/.Settings');
    const obs = await observe(d);
    const before = d.uiXml();
    const bad: Array<[Action, new (...a: never[]) => Error]> = [
      [{ action_type: 'click', x: 5000, y: 10 }, OutOfScreenError],
      [{ action_type: 'click', x: -1, y: 10 }, OutOfScreenError],
      [{ action_type: 'click', index: 10_000 }, ElementIndexError],
      [{ action_type: 'input_text', text: 'hello' }, NoFocusedFieldError],
      [{ action_type: 'input_text', text: 'hello', index: findFirst(obs.elements, { text: 'Display' })!.ordinal }, NotEditableError],
      [{ action_type: 'open_app', app_name: 'Snapchat' }, UnknownAppError],
      [{ action_type: 'swipe', start: [10, 10], end: [10, 99_999] }, OutOfScreenError],
    ];
    for (const [action, type] of bad) {
      await expect(executeAction(d, action, obs)).rejects.toBeInstanceOf(type);
    }
    expect(d.uiXml()).toBe(before);
    // Issue 16: the message quoted all of a 100 KB text (in the terminal and in the episode's error_message).
    const long = await executeAction(d, { action_type: 'input_text', text: 'x'.repeat(100_000) }, obs).catch((e: Error) => e);
    expect(long).toBeInstanceOf(NoFocusedFieldError);
    expect((long as Error).message.length).toBeLessThan(250);
    expect((long as Error).message).toContain('(100000 characters)');
    expect((long as NoFocusedFieldError).text.length).toBe(100_000);
    d.close();
  });

  it('scrolls "down" by dragging the finger up', async () => {
    const d = device();
    await d.shell('am start -n com.android.settings/.Settings');
    const obs = await observe(d);
    const plan = planInput({ action_type: 'scroll', direction: 'down' }, obs) as Array<{ kind: string; y1: number; y2: number }>;
    expect(plan[0]!.kind).toBe('swipe');
    expect(plan[0]!.y2).toBeLessThan(plan[0]!.y1);
    const first = findFirst(obs.elements, { text: 'Network & internet' })!.node.bounds.top;
    await executeAction(d, { action_type: 'scroll', direction: 'down' }, obs);
    const after = findFirst((await observe(d)).elements, { text: 'Network & internet' });
    expect(after === undefined || after.node.bounds.top < first).toBe(true);
    d.close();
  });

  it('samples valid actions of every kind from a screen', async () => {
    const d = device();
    const obs = await observe(d);
    const rng = createRng(7);
    for (const type of ACTION_TYPES) {
      const a = ACTION_KINDS[type].sample(rng, obs);
      if (a) expect(parseAction(a)).toEqual(a);
    }
    d.close();
  });
});
