import { describe, expect, it } from 'vitest';
import { flattenUiTree, parseUiTree } from '../../core/a11y/ui-tree.js';
import type { Observation } from '../../core/device/observation.js';
import { VLM_FORMATS, VlmFormatError, type ParseContext } from '../../core/policy/vlm/index.js';
import type { PromptContext } from '../../core/policy/vlm/format.js';
import { modelFrame } from '../../core/policy/vlm/geometry.js';
import { planInput } from '../../core/actions/execute.js';

/** Each convention of issue 18 as the models' own code defines it, one test per rule. */
const screen = { width: 1080, height: 2400 };
const parse = (f: keyof typeof VLM_FORMATS, out: string, extra: Partial<ParseContext> = {}) =>
  VLM_FORMATS[f].parse(out, { screen, coordinates: VLM_FORMATS[f].defaultCoordinates, ...extra }).action;
const refused = (f: keyof typeof VLM_FORMATS, out: string, extra: Partial<ParseContext> = {}): string => {
  try {
    parse(f, out, extra);
  } catch (e) {
    expect(e).toBeInstanceOf(VlmFormatError);
    return (e as VlmFormatError).reason;
  }
  throw new Error(`parsed: ${out}`);
};
const aw = (obj: Record<string, unknown>) => `Action: ${JSON.stringify(obj)}`;

const node = (cls: string, b: string, attrs = '', children = '') =>
  `<node index="0" text="" resource-id="" class="android.widget.${cls}" package="com.android.contacts" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="${b}" ${attrs}>${children}</node>`;
/** A contact form: a layout (dropped), a title, a filled field, an empty one, a switch, a Save button, a 3-pixel dot (too small). */
const XML = `<hierarchy rotation="0">${node('FrameLayout', '[0,0][1080,2400]', '', [
  node('TextView', '[40,100][1040,200]', 'text="New contact"'),
  node('EditText', '[40,300][1040,420]', 'text="Alice" focusable="true" focused="true" clickable="true"'),
  node('EditText', '[40,450][1040,570]', 'focusable="true" clickable="true"'),
  node('Switch', '[40,600][1040,700]', 'text="Favourite" checkable="true" clickable="true"'),
  node('LinearLayout', '[0,2200][1080,2400]', 'clickable="true"', node('Button', '[800,2250][1040,2350]', 'text="Save" content-desc="Save contact" clickable="true"')),
  node('ImageView', '[5,5][8,8]', 'content-desc="dot"'),
].join(''))}</hierarchy>`.replace(/&/g, '&amp;');
const tree = parseUiTree(XML);
const obs: Observation = { screen: { ...screen, density: 420 }, tree, elements: flattenUiTree(tree), foreground: { package: 'com.android.contacts', activity: '.Edit' } };
const promptCtx = (coordinates: PromptContext['coordinates']): PromptContext => ({
  screen, coordinates, frame: modelFrame({ screen, coordinates }), withScreenshot: true, withElements: true,
});

describe('AndroidWorld JSONAction rules (android_world/env/json_action.py)', () => {
  it('action_type: its 14 names exactly; aliases, other cases and a missing type are refused', () => {
    for (const ok of ['answer', 'click', 'input_text', 'keyboard_enter', 'long_press', 'navigate_back', 'navigate_home', 'open_app', 'scroll', 'status', 'swipe', 'unknown', 'wait']) {
      const extra = { click: { index: 1 }, long_press: { index: 1 }, input_text: { text: 'a' }, open_app: { app_name: 'Clock' }, scroll: { direction: 'up' }, swipe: { direction: 'up' }, status: { goal_status: 'complete' } }[ok] ?? {};
      expect(() => parse('androidworld', aw({ action_type: ok, ...extra })), ok).not.toThrow();
    }
    expect(refused('androidworld', aw({ action_type: 'tap', index: 1 }))).toMatch(/unknown action_type "tap"/);
    expect(refused('androidworld', aw({ action_type: 'Click', index: 1 }))).toMatch(/unknown action_type "Click"/);
    expect(refused('androidworld', aw({ action_type: 'type', text: 'a' }))).toMatch(/unknown action_type "type"/);
    expect(refused('androidworld', aw({ action_type: null, index: 1 }))).toMatch(/no "action_type"/);
  });
  it('fields: only JSONAction\'s; any other is refused, even null, and our own field names too', () => {
    expect(refused('androidworld', aw({ action_type: 'navigate_back', foo: null }))).toMatch(/"foo" is not a JSONAction field/);
    expect(refused('androidworld', aw({ action: 'click', index: 1 }))).toMatch(/"action" is not a JSONAction field/);
    expect(refused('androidworld', aw({ action_type: 'input_text', text: 'a', clear: true }))).toMatch(/"clear" is not/);
    expect(refused('androidworld', aw({ action_type: 'wait', seconds: 2 }))).toMatch(/"seconds" is not/);
  });
  it('index: what int() reads (3, "3", 3.0, 3.7 → 3); not "3.5" or "three"', () => {
    expect(parse('androidworld', aw({ action_type: 'click', index: '3' }))).toEqual({ action_type: 'click', index: 3 });
    expect(parse('androidworld', aw({ action_type: 'click', index: 3.7 }))).toEqual({ action_type: 'click', index: 3 });
    expect(refused('androidworld', aw({ action_type: 'click', index: '3.5' }))).toMatch(/index "3.5" is not an integer/);
    expect(refused('androidworld', aw({ action_type: 'click', index: 'three' }))).toMatch(/not an integer/);
  });
  it('index and x/y: never both, even x alone beside an index; x without y is refused', () => {
    expect(refused('androidworld', aw({ action_type: 'click', index: 1, x: 5 }))).toMatch(/either an index or x and y/);
    expect(refused('androidworld', aw({ action_type: 'long_press', x: 5 }))).toMatch(/x and y must both be numbers/);
    expect(parse('androidworld', aw({ action_type: 'long_press', x: 5, y: 6 }))).toEqual({ action_type: 'long_press', x: 5, y: 6 });
  });
  it('direction: exactly up, down, left or right whenever given (even on a type that ignores it)', () => {
    expect(refused('androidworld', aw({ action_type: 'scroll', direction: 'UP' }))).toMatch(/direction "UP"/);
    expect(refused('androidworld', aw({ action_type: 'click', index: 1, direction: 'sideways' }))).toMatch(/direction "sideways"/);
    expect(parse('androidworld', aw({ action_type: 'click', index: 1, direction: 'left' }))).toEqual({ action_type: 'click', index: 1 });
  });
  it('text: a number or boolean becomes its text, as str() makes it', () => {
    expect(parse('androidworld', aw({ action_type: 'input_text', text: 42 }))).toEqual({ action_type: 'input_text', text: '42' });
    expect(parse('androidworld', aw({ action_type: 'answer', text: true }))).toEqual({ action_type: 'answer', text: 'True' });
  });
  it('keycode: must start with KEYCODE_; a valid one is accepted and used by nothing', () => {
    expect(refused('androidworld', aw({ action_type: 'keyboard_enter', keycode: 'ENTER' }))).toMatch(/KEYCODE_/);
    expect(parse('androidworld', aw({ action_type: 'keyboard_enter', keycode: 'KEYCODE_ENTER' }))).toEqual({ action_type: 'keyboard_enter' });
  });
  it('fields a type does not use are ignored, as its executor ignores them; clear_text is our clear', () => {
    expect(parse('androidworld', aw({ action_type: 'navigate_home', text: 'x', app_name: 'y' }))).toEqual({ action_type: 'navigate_home' });
    expect(parse('androidworld', aw({ action_type: 'click', index: 2, clear_text: true }))).toEqual({ action_type: 'click', index: 2 });
    expect(parse('androidworld', aw({ action_type: 'input_text', text: 'a', index: 2, clear_text: true }))).toEqual({ action_type: 'input_text', text: 'a', index: 2, clear: true });
  });
  it('scroll with index 0 scrolls the screen (its executor tests the index for truth); swipe is the opposite scroll of the screen', () => {
    expect(parse('androidworld', aw({ action_type: 'scroll', direction: 'down', index: 0 }))).toEqual({ action_type: 'scroll', direction: 'down' });
    expect(parse('androidworld', aw({ action_type: 'swipe', direction: 'up', index: 4 }))).toEqual({ action_type: 'scroll', direction: 'down' });
  });
  it('double_tap is refused with the reason; unknown executes nothing (a wait)', () => {
    expect(refused('androidworld', aw({ action_type: 'double_tap', index: 1 }))).toMatch(/cannot execute/);
    expect(parse('androidworld', aw({ action_type: 'unknown' }))).toEqual({ action_type: 'wait' });
  });
  it('render writes JSONAction fields only: clear_text, no seconds; a point-to-point swipe or key press cannot be said', () => {
    const say = (a: Parameters<typeof VLM_FORMATS.androidworld.render>[0]) => VLM_FORMATS.androidworld.render(a, { screen, coordinates: 'screen', obs });
    expect(say({ action_type: 'input_text', text: 'a', index: 2, clear: true })).toMatch(/"clear_text":true/);
    expect(say({ action_type: 'wait', seconds: 3 })).toMatch(/Action: \{"action_type":"wait"\}$/);
    expect(() => say({ action_type: 'swipe', start: [1, 1], end: [2, 2] })).toThrow(VlmFormatError);
    expect(() => say({ action_type: 'press_key', key: 'TAB' })).toThrow(VlmFormatError);
  });
});

describe('MobileRL conventions (THUDM/MobileRL android_lab)', () => {
  it('the element list is its compressed one-line-per-node form with 0–999 bounds, functional nodes only', () => {
    expect(VLM_FORMATS.mobilerl.elementsText!(obs, promptCtx('relative-999')).split('\n')).toEqual([
      "The screenshot's size is 999x999. The value in bounds is relative to the screenshot's size.",
      'The tree structure description of the current screenshot is shown:',
      // ⌊x·999/1080⌋, ⌊y·999/2400⌋: 40 → 37, 1040 → 962, 2250 → 936; "focusable" only where no other action is.
      '    TextView;;New contact;[37,41,962,83]',
      '    EditText;click;Alice;[37,124,962,174]',
      '    EditText;click;;[37,187,962,237]',
      '    Switch;click check unchecked;Favourite;[37,249,962,291]',
      '    LinearLayout;click;;[0,915,999,999]',
      '        Button;click;Save Save contact;[740,936,962,978]',
    ]);
  });
  it('in screen coordinates the list carries pixel bounds', () => {
    expect(VLM_FORMATS.mobilerl.elementsText!(obs, promptCtx('screen'))).toMatch(/^ {4}EditText;click;Alice;\[40,300,1040,420\]$/m);
  });
  it('the prompt sends that list, not the index list', async () => {
    const { buildMessages } = await import('../../core/policy/vlm/prompt.js');
    const msgs = buildMessages(VLM_FORMATS.mobilerl, promptCtx('relative-999'), obs, { instruction: 'Add Alice', step: 0, history: [] } as never, {
      withScreenshot: false, withElements: true, historySteps: 0, historyStyle: 'summary', historyImages: 0,
    });
    const user = JSON.stringify(msgs[1]!.content);
    expect(user).toContain('Button;click;Save Save contact;[740,936,962,978]');
    expect(user).not.toContain('[0] ');
  });
  it('Type types without Enter (the released executor); with text in a field on screen it clears first, as its evaluation adds clear=True', () => {
    expect(parse('mobilerl', '<answer>do(action="Type", text="Bob")</answer>')).toEqual({ action_type: 'input_text', text: 'Bob' });
    const typed = parse('mobilerl', '<answer>do(action="Type", text="Bob")</answer>', { obs });
    expect(typed).toEqual({ action_type: 'input_text', text: 'Bob', clear: true });
    expect(planInput(typed, obs)).toEqual([{ kind: 'key', key: 'MOVE_END' }, ...Array(5).fill({ kind: 'key', key: 'DEL' }), { kind: 'text', text: 'Bob' }]);
  });
});

describe('Qwen2.5-VL mobile_use (cookbooks/utils/agent_function_call.py)', () => {
  const tool = (ctx: PromptContext) => JSON.parse(/<tools>\n(.*)\n<\/tools>/.exec(VLM_FORMATS['qwen-mobile-use'].systemPrompt(ctx))![1]!);
  it('the prompt declares the published schema: 9 actions, buttons Back/Home/Menu/Enter, status success/failure; answer only on a question task', () => {
    const props = tool(promptCtx('smart-resize')).function.parameters.properties;
    expect(props.action.enum).toEqual(['key', 'click', 'long_press', 'swipe', 'type', 'system_button', 'open', 'wait', 'terminate']);
    expect(props.button.enum).toEqual(['Back', 'Home', 'Menu', 'Enter']);
    expect(props.status.enum).toEqual(['success', 'failure']);
    expect(Object.keys(props)).toEqual(['action', 'coordinate', 'coordinate2', 'text', 'time', 'button', 'status']);
    expect(tool({ ...promptCtx('smart-resize'), expectsAnswer: true }).function.parameters.properties.action.enum).toContain('answer');
  });
  it('Menu presses the app switcher on the device; key names other than Back/Home/Enter press their key', () => {
    const call = (args: object) => `<tool_call>${JSON.stringify({ name: 'mobile_use', arguments: args })}</tool_call>`;
    const menu = parse('qwen-mobile-use', call({ action: 'system_button', button: 'Menu' }));
    expect(planInput(menu, obs)).toEqual([{ kind: 'key', key: 'APP_SWITCH' }]);
    expect(planInput(parse('qwen-mobile-use', call({ action: 'key', text: 'KEYCODE_ESCAPE' })), obs)).toEqual([{ kind: 'key', key: 'ESCAPE' }]);
    expect(refused('qwen-mobile-use', call({ action: 'key', text: 'power' }))).toMatch(/key "power" cannot be pressed here/);
  });
});
