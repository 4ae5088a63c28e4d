import { describe, expect, it } from 'vitest';
import { VLM_FORMATS, VLM_FORMAT_IDS, vlmFormat, VlmCoordinateError, VlmFormatError, UnknownVlmFormatError, type ParseContext } from '../../core/policy/vlm/index.js';

const screen = { width: 1080, height: 2400 };
const ctx = (f: keyof typeof VLM_FORMATS, extra: Partial<ParseContext> = {}): ParseContext => ({
  screen, coordinates: VLM_FORMATS[f].defaultCoordinates, image: { width: 540, height: 1200 }, ...extra,
});
const parse = (f: keyof typeof VLM_FORMATS, out: string, extra: Partial<ParseContext> = {}) => VLM_FORMATS[f].parse(out, ctx(f, extra));
const formatError = (f: keyof typeof VLM_FORMATS, out: string, extra: Partial<ParseContext> = {}) => {
  try {
    parse(f, out, extra);
  } catch (e) {
    expect(e).toBeInstanceOf(VlmFormatError);
    return e as VlmFormatError;
  }
  throw new Error(`parsed: ${out}`);
};

describe('format registry', () => {
  it('has one entry per format id, each with a prompt and samples that parse as documented', () => {
    expect(Object.keys(VLM_FORMATS).sort()).toEqual([...VLM_FORMAT_IDS].sort());
    for (const id of VLM_FORMAT_IDS) {
      const f = VLM_FORMATS[id];
      expect(f.id).toBe(id);
      expect(f.systemPrompt({ screen, coordinates: f.defaultCoordinates, frame: screen, withScreenshot: true, withElements: true }).length).toBeGreaterThan(200);
      for (const s of f.samples) {
        // Samples are documented on a 1080x2400 screen sent at full size.
        const c: ParseContext = { screen, coordinates: f.defaultCoordinates, image: screen };
        if (s.action === null) expect(() => f.parse(s.output, c), s.note).toThrow(VlmFormatError);
        else expect(f.parse(s.output, c).action, s.note).toEqual(s.action);
      }
    }
  });

  it('an unknown format id is a named error listing the known ones', () => {
    expect(() => vlmFormat('seeact')).toThrow(UnknownVlmFormatError);
    expect(() => vlmFormat('seeact')).toThrow(/androidworld, ui-tars, mobilerl, qwen-mobile-use/);
  });
});

describe('androidworld format', () => {
  it('reads the M3A Reason/Action shape, keeping the reason as the thought', () => {
    const r = parse('androidworld', 'Reason: The "Add contact" button opens the form.\nAction: {"action_type": "click", "index": 7}');
    expect(r).toEqual({ action: { action_type: 'click', index: 7 }, thought: 'The "Add contact" button opens the form.' });
  });
  it('reads JSON inside a code fence with prose around it', () => {
    const out = 'Sure! Here is my next action.\n```json\n{"action_type": "input_text", "text": "Bob", "index": 4}\n```\nLet me know.';
    expect(parse('androidworld', out).action).toEqual({ action_type: 'input_text', text: 'Bob', index: 4 });
  });
  it('reads single quotes, Python booleans, nulls and trailing commas', () => {
    const out = "Action: {'action_type': 'input_text', 'text': \"Bob's phone\", 'index': 4, 'clear_text': True, 'x': None,}";
    expect(parse('androidworld', out).action).toEqual({ action_type: 'input_text', text: "Bob's phone", index: 4, clear: true });
  });
  it('takes the object after the last Action: when the reasoning quotes another', () => {
    const out = 'Reason: last time {"action_type": "navigate_back"} did nothing.\nAction: {"action_type": "navigate_home"}';
    expect(parse('androidworld', out).action).toEqual({ action_type: 'navigate_home' });
  });
  it('turns a swipe direction (the finger) into the opposite scroll; an index string is read as int() reads it', () => {
    expect(parse('androidworld', 'Action: {"action_type": "click", "index": "3"}').action).toEqual({ action_type: 'click', index: 3 });
    expect(parse('androidworld', 'Action: {"action_type": "swipe", "direction": "up"}').action).toEqual({ action_type: 'scroll', direction: 'down' });
  });
  it('scales points from the screenshot frame when coordinates are image pixels', () => {
    expect(parse('androidworld', 'Action: {"action_type": "click", "x": 270, "y": 600}', { coordinates: 'image' }).action).toEqual({ action_type: 'click', x: 540, y: 1200 });
  });
  it('an off-screen point is a VlmCoordinateError', () => {
    const e = formatError('androidworld', 'Action: {"action_type": "click", "x": 1500, "y": 20}');
    expect(e).toBeInstanceOf(VlmCoordinateError);
    expect(e.message).toMatch(/outside the 1080x2400 screen/);
  });
  it('an unknown action type, missing fields, extra fields and prose are format errors that say why', () => {
    expect(formatError('androidworld', 'Action: {"action_type": "double_tap", "index": 2}').reason).toMatch(/double_tap is an AndroidWorld action this workbench cannot execute/);
    expect(formatError('androidworld', 'Action: {"action_type": "input_text", "index": 2}').reason).toMatch(/not a valid action/);
    expect(formatError('androidworld', 'Action: {"action_type": "click", "index": 2, "speed": 3}').reason).toMatch(/"speed" is not a JSONAction field/);
    expect(formatError('androidworld', 'I would tap the Save button.').reason).toMatch(/no \{\.\.\.\} object/);
    expect(formatError('androidworld', 'Action: {"action_type": "click", "index": 2').reason).toMatch(/no \{\.\.\.\} object/);
    expect(formatError('androidworld', 'Action: {"index": 2}').reason).toMatch(/no "action_type"/);
  });
});

describe('ui-tars format', () => {
  it('reads Thought/Action with a relative 0–1000 point', () => {
    const r = parse('ui-tars', "Thought: The search box is at the top.\nAction: click(start_box='(500,100)')");
    expect(r).toEqual({ action: { action_type: 'click', x: 540, y: 240 }, thought: 'The search box is at the top.' });
  });
  it('reads the <|box_start|> tokens and a 4-number box (its centre); brackets are refused as the official parser refuses them', () => {
    expect(parse('ui-tars', "Action: long_press(start_box='<|box_start|>(100,200)<|box_end|>')").action).toEqual({ action_type: 'long_press', x: 108, y: 480 });
    expect(parse('ui-tars', "Action: click(start_box='(100,200,300,400)')").action).toEqual({ action_type: 'click', x: 216, y: 720 });
    expect(formatError('ui-tars', "Action: click(start_box='[100,200,300,400]')").reason).toMatch(/not a point/);
  });
  it('1000 is the last pixel, not one past it', () => {
    expect(parse('ui-tars', "Action: click(start_box='(1000,1000)')").action).toEqual({ action_type: 'click', x: 1079, y: 2399 });
  });
  // Issue 18 (review against the official parser): the trailing newline was dropped, so the search was never submitted.
  it("type(content='weather\\n') types weather and then presses Enter; escapes are decoded", () => {
    expect(parse('ui-tars', "Thought: t\nAction: type(content='weather\\n')").action).toEqual({ action_type: 'input_text', text: 'weather', submit: true });
    expect(parse('ui-tars', "Thought: t\nAction: type(content='It\\'s 5 o\\'clock')").action).toEqual({ action_type: 'input_text', text: "It's 5 o'clock" });
    expect(parse('ui-tars', "Action: hotkey(key='enter')").action).toEqual({ action_type: 'keyboard_enter' });
    // The official parser left-strips content: a lone newline types nothing and presses nothing.
    expect(formatError('ui-tars', "Action: type(content='\\n')").reason).toMatch(/empty/);
  });
  // Issue 18: point= was a format error; the official parser rewrites it to start_box=.
  it("click(point='<point>546 1204</point>') parses: point= is start_box=, <point>x y</point> is (x,y)", () => {
    const tars15 = { coordinates: 'smart-resize' as const, image: screen, minPixels: 78_400 };
    expect(parse('ui-tars', "Action: click(point='<point>546 1204</point>')", tars15).action).toEqual({ action_type: 'click', x: 540, y: 1200 });
    expect(parse('ui-tars', "Action: drag(start_point='<point>500 100</point>', end_point='<point>500 900</point>')").action).toEqual({ action_type: 'swipe', start: [540, 240], end: [540, 2160] });
  });
  it('the coordinate mode switches v1 (relative 0–1000) and 1.5 (pixels of the smart-resized screenshot)', () => {
    const reply = "Action: click(start_box='(546,904)')";
    expect(parse('ui-tars', reply, { image: screen }).action).toEqual({ action_type: 'click', x: 590, y: 2170 });
    // 1080x2400 smart-resizes to 1092x2408.
    expect(parse('ui-tars', reply, { image: screen, coordinates: 'smart-resize' }).action).toEqual({ action_type: 'click', x: 540, y: 901 });
    expect(formatError('ui-tars', "Action: click(start_box='(1100,100)')", { image: screen, coordinates: 'smart-resize' })).toBeInstanceOf(VlmCoordinateError);
  });
  it('drag, scroll, open_app, press_back, press_home, wait (5 s, as its prompt says)', () => {
    expect(parse('ui-tars', "Action: drag(start_box='(500,800)', end_box='(500,200)')").action).toEqual({ action_type: 'swipe', start: [540, 1920], end: [540, 480] });
    expect(parse('ui-tars', "Action: scroll(direction='DOWN')").action).toEqual({ action_type: 'scroll', direction: 'down' });
    expect(parse('ui-tars', "Action: open_app(app_name='Contacts')").action).toEqual({ action_type: 'open_app', app_name: 'Contacts' });
    expect(parse('ui-tars', 'Action: press_back()').action).toEqual({ action_type: 'navigate_back' });
    expect(parse('ui-tars', 'Action: press_home()').action).toEqual({ action_type: 'navigate_home' });
    expect(parse('ui-tars', 'Action: wait()').action).toEqual({ action_type: 'wait', seconds: 5 });
  });
  it('finished() answers a question task and completes the others; call_user() is infeasible', () => {
    expect(parse('ui-tars', "Action: finished(content='3 contacts')", { expectsAnswer: true }).action).toEqual({ action_type: 'answer', text: '3 contacts' });
    expect(parse('ui-tars', "Action: finished(content='Added the contact.')", { expectsAnswer: false }).action).toEqual({ action_type: 'status', goal_status: 'complete' });
    expect(parse('ui-tars', 'Action: call_user()').action).toEqual({ action_type: 'status', goal_status: 'infeasible' });
  });
  it('smart-resize coordinates (UI-TARS-1.5) scale from the resized screenshot', () => {
    // 540x1200 smart-resizes to 532x1204 (multiples of 28).
    expect(parse('ui-tars', "Action: click(start_box='(266,602)')", { coordinates: 'smart-resize' }).action).toEqual({ action_type: 'click', x: 540, y: 1200 });
  });
  it('bad replies are format errors naming the fragment: no action, two actions, truncated, bad point, unknown call or key, off screen, empty, another format', () => {
    expect(formatError('ui-tars', 'Thought: I am not sure what to do.').reason).toMatch(/no "Action:"/);
    expect(formatError('ui-tars', '').reason).toMatch(/no "Action:"/);
    expect(formatError('ui-tars', "Action: click(start_box='(1,2)')\n\nclick(start_box='(3,4)')").reason).toMatch(/more than one action.*click\(start_box='\(3,4\)'\)/);
    expect(formatError('ui-tars', "Action: click(start_box='(10,20)'").reason).toMatch(/not closed/);
    expect(formatError('ui-tars', "Action: type(content='hello wor").reason).toMatch(/not closed.*hello wor/);
    expect(formatError('ui-tars', "Action: click(start_box='here')").reason).toMatch(/not a point.*here/);
    expect(formatError('ui-tars', "Action: left_double(start_box='(10,20)')").reason).toMatch(/no phone equivalent/);
    expect(formatError('ui-tars', "Action: tap(start_box='(10,20)')").reason).toMatch(/unknown action tap\(\)/);
    expect(formatError('ui-tars', "Action: hotkey(key='ctrl c')").reason).toMatch(/hotkey "ctrl c"/);
    expect(formatError('ui-tars', "Action: click(start_box='(-5,20)')")).toBeInstanceOf(VlmCoordinateError);
    expect(formatError('ui-tars', "Action: type(content='')").reason).toMatch(/empty/);
    expect(formatError('ui-tars', 'Action: {"action_type": "click", "index": 3}').reason).toMatch(/not a call: "\{/);
    expect(formatError('ui-tars', '<tool_call>{"name": "mobile_use", "arguments": {"action": "click"}}</tool_call>').reason).toMatch(/no "Action:"/);
  });
});

describe('mobilerl format', () => {
  it('reads <think>/<answer> with a Tap box (its centre, screen pixels)', () => {
    const r = parse('mobilerl', '<think>\nOpen the menu.\n</think>\n<answer>\ndo(action="Tap", element=[0, 100, 200, 300])\n</answer>', { coordinates: 'screen' });
    expect(r).toEqual({ action: { action_type: 'click', x: 100, y: 200 }, thought: 'Open the menu.' });
  });
  it('boxes are relative 0–999 by default (the released AndroidWorld configuration): x·W/999, 999 is the last pixel, 1000 is off screen', () => {
    expect(VLM_FORMATS.mobilerl.defaultCoordinates).toBe('relative-999');
    expect(parse('mobilerl', '<answer>do(action="Tap", element=[400, 400, 600, 600])</answer>').action).toEqual({ action_type: 'click', x: 541, y: 1201 });
    expect(parse('mobilerl', '<answer>do(action="Tap", element=[999, 999, 999, 999])</answer>').action).toEqual({ action_type: 'click', x: 1079, y: 2399 });
    expect(formatError('mobilerl', '<answer>do(action="Tap", element=[990, 0, 1000, 10])</answer>')).toBeInstanceOf(VlmFormatError);
  });
  it('accepts Long Press, the paper\'s Long_Pres spelling, and single quotes', () => {
    expect(parse('mobilerl', "<answer>do(action='Long Press', element=[10, 10, 30, 30])</answer>", { coordinates: 'screen' }).action).toEqual({ action_type: 'long_press', x: 20, y: 20 });
    expect(parse('mobilerl', '<answer>do(action="Long_Pres", element=[10, 10, 30, 30])</answer>', { coordinates: 'screen' }).action).toEqual({ action_type: 'long_press', x: 20, y: 20 });
  });
  it('Type, Launch, Back, Home, Enter, Wait', () => {
    expect(parse('mobilerl', '<answer>do(action="Type", text="Hello World")</answer>').action).toEqual({ action_type: 'input_text', text: 'Hello World' });
    expect(parse('mobilerl', '<answer>do(action="Launch", app="Settings")</answer>').action).toEqual({ action_type: 'open_app', app_name: 'Settings' });
    expect(parse('mobilerl', 'do(action="Back")').action).toEqual({ action_type: 'navigate_back' });
    expect(parse('mobilerl', 'do(action="Home")').action).toEqual({ action_type: 'navigate_home' });
    expect(parse('mobilerl', 'do(action="Enter")').action).toEqual({ action_type: 'keyboard_enter' });
    expect(parse('mobilerl', 'do(action="Wait")').action).toEqual({ action_type: 'wait' });
  });
  it('Swipe start=[x, y] end=[x, y] is the AndroidWorld executor\'s precise swipe: screen pixels, whatever the boxes\' frame', () => {
    // TextOnlyExecutor_android_world passes start and end to `adb shell input swipe` unscaled.
    const code = '<answer>do(action="Swipe", start=[540, 1800], end=[540, 600])</answer>';
    expect(parse('mobilerl', code).action).toEqual({ action_type: 'swipe', start: [540, 1800], end: [540, 600] });
    expect(parse('mobilerl', code, { coordinates: 'screen' }).action).toEqual({ action_type: 'swipe', start: [540, 1800], end: [540, 600] });
    expect(() => parse('mobilerl', '<answer>do(action="Swipe", start=[540, 1800], end=[540, 2400])</answer>')).toThrow(VlmCoordinateError);
    expect(() => parse('mobilerl', '<answer>do(action="Swipe", start=[540], end=[540, 600])</answer>')).toThrow(/Swipe start must be \[x, y\] in screen pixels, got \[540\]/);
  });
  it('Swipe moves the finger by its controller\'s units (⌊W/10⌋ × 10/2/1; 2 units vertically, 2.5 across), from the element or the screen centre, clamped', () => {
    const swipe = (code: string) => parse('mobilerl', `<answer>${code}</answer>`, { coordinates: 'screen' }).action;
    expect(swipe('do(action="Swipe", direction="up")')).toEqual({ action_type: 'swipe', start: [540, 1200], end: [540, 1200 - 432] });
    expect(swipe('do(action="Swipe", direction="down", dist="short")')).toEqual({ action_type: 'swipe', start: [540, 1200], end: [540, 1200 + 216] });
    expect(swipe('do(action="Swipe", direction="right", dist="short")')).toEqual({ action_type: 'swipe', start: [540, 1200], end: [540 + 270, 1200] });
    expect(swipe('do(action="Swipe", direction="up", dist="long")')).toEqual({ action_type: 'swipe', start: [540, 1200], end: [540, 0] });
    expect(swipe('do(action="Swipe", direction="left", element=[0, 0, 200, 200])')).toEqual({ action_type: 'swipe', start: [100, 100], end: [0, 100] });
  });
  it('finish(message) answers a question task; completes a completion task', () => {
    expect(parse('mobilerl', '<answer>finish(message="Task completed.")</answer>', { expectsAnswer: false }).action).toEqual({ action_type: 'status', goal_status: 'complete' });
    expect(parse('mobilerl', '<answer>finish(message="42")</answer>', { expectsAnswer: true }).action).toEqual({ action_type: 'answer', text: '42' });
    expect(parse('mobilerl', '<answer>finish()</answer>').action).toEqual({ action_type: 'status', goal_status: 'complete' });
  });
  it('relative-1000 boxes (is_relative_bbox checkpoints) scale to the screen', () => {
    expect(parse('mobilerl', '<answer>do(action="Tap", element=[400, 400, 600, 600])</answer>', { coordinates: 'relative-1000' }).action).toEqual({ action_type: 'click', x: 540, y: 1200 });
  });
  it('reads a fenced answer without tags', () => {
    expect(parse('mobilerl', '```python\ndo(action="Tap", element=[0, 0, 10, 10])\n```', { coordinates: 'screen' }).action).toEqual({ action_type: 'click', x: 5, y: 5 });
  });
  it('malformed outputs are format errors', () => {
    expect(formatError('mobilerl', '<think>hmm</think><answer></answer>').reason).toMatch(/no call to do/);
    expect(formatError('mobilerl', '<answer>do(action="Tap", element=[1, 2, 3])</answer>').reason).toMatch(/\[x1, y1, x2, y2\]/);
    expect(formatError('mobilerl', '<answer>do(action="Swipe", direction="diagonal")</answer>').reason).toMatch(/direction/);
    expect(formatError('mobilerl', '<answer>do(action="Swipe", direction="up", dist="huge")</answer>').reason).toMatch(/dist/);
    expect(formatError('mobilerl', '<answer>do(action="Type")</answer>').reason).toMatch(/not a valid action/);
    expect(formatError('mobilerl', '<answer>do(action="Tap", element=[2000, 0, 2100, 10])</answer>')).toBeInstanceOf(VlmCoordinateError);
    expect(formatError('mobilerl', '<answer>do(action="Tap", element=[0, 0, 10, 10]</answer>').reason).toMatch(/not closed/);
  });
});

describe('qwen-mobile-use format', () => {
  it('reads a <tool_call> click in smart-resized pixels of the sent screenshot', () => {
    // The 540x1200 screenshot smart-resizes to 532x1204.
    const r = parse('qwen-mobile-use', 'Tap Save.\n<tool_call>\n{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [266, 602]}}\n</tool_call>');
    expect(r).toEqual({ action: { action_type: 'click', x: 540, y: 1200 }, thought: 'Tap Save.' });
  });
  it('reads arguments given as a JSON string, and a bare object without tags', () => {
    expect(parse('qwen-mobile-use', '<tool_call>{"name": "mobile_use", "arguments": "{\\"action\\": \\"type\\", \\"text\\": \\"hi\\"}"}</tool_call>').action).toEqual({ action_type: 'input_text', text: 'hi' });
    expect(parse('qwen-mobile-use', '```json\n{"name": "mobile_use", "arguments": {"action": "open", "text": "Clock"}}\n```').action).toEqual({ action_type: 'open_app', app_name: 'Clock' });
  });
  it('swipe, long_press, system buttons, key Enter, wait, answer, terminate', () => {
    const call = (args: object) => `<tool_call>${JSON.stringify({ name: 'mobile_use', arguments: args })}</tool_call>`;
    expect(parse('qwen-mobile-use', call({ action: 'swipe', coordinate: [266, 900], coordinate2: [266, 300] })).action).toEqual({ action_type: 'swipe', start: [540, 1794], end: [540, 598] });
    expect(parse('qwen-mobile-use', call({ action: 'long_press', coordinate: [0, 0], time: 2 })).action).toEqual({ action_type: 'long_press', x: 0, y: 0 });
    expect(parse('qwen-mobile-use', call({ action: 'system_button', button: 'Home' })).action).toEqual({ action_type: 'navigate_home' });
    expect(parse('qwen-mobile-use', call({ action: 'key', text: 'KEYCODE_ENTER' })).action).toEqual({ action_type: 'keyboard_enter' });
    expect(parse('qwen-mobile-use', call({ action: 'wait', time: 2 })).action).toEqual({ action_type: 'wait', seconds: 2 });
    expect(parse('qwen-mobile-use', call({ action: 'answer', text: 'Tuesday' })).action).toEqual({ action_type: 'answer', text: 'Tuesday' });
    expect(parse('qwen-mobile-use', call({ action: 'terminate', status: 'success' })).action).toEqual({ action_type: 'status', goal_status: 'complete' });
    expect(parse('qwen-mobile-use', call({ action: 'terminate', status: 'failure' })).action).toEqual({ action_type: 'status', goal_status: 'infeasible' });
  });
  it('reads single quotes and a trailing comma inside the call', () => {
    expect(parse('qwen-mobile-use', "<tool_call>{'name': 'mobile_use', 'arguments': {'action': 'system_button', 'button': 'Back',},}</tool_call>").action).toEqual({ action_type: 'navigate_back' });
  });
  it('image coordinates: full-size pixels when configured so', () => {
    expect(parse('qwen-mobile-use', '<tool_call>{"name":"mobile_use","arguments":{"action":"click","coordinate":[270,600]}}</tool_call>', { coordinates: 'image' }).action).toEqual({ action_type: 'click', x: 540, y: 1200 });
  });
  it('malformed outputs are format errors', () => {
    expect(formatError('qwen-mobile-use', 'I will click Save.').reason).toMatch(/no <tool_call>/);
    expect(formatError('qwen-mobile-use', '<tool_call>{"name": "computer_use", "arguments": {"action": "click"}}</tool_call>').reason).toMatch(/unknown function/);
    expect(formatError('qwen-mobile-use', '<tool_call>{"name": "mobile_use", "arguments": {"action": "fly"}}</tool_call>').reason).toMatch(/unknown mobile_use action/);
    expect(formatError('qwen-mobile-use', '<tool_call>{"name": "mobile_use", "arguments": {"action": "click"}}</tool_call>').reason).toMatch(/coordinate must be/);
    expect(formatError('qwen-mobile-use', '<tool_call>{"name": "mobile_use", "arguments": {"action": "system_button", "button": "Power"}}</tool_call>').reason).toMatch(/not Back, Home, Menu or Enter/);
    expect(formatError('qwen-mobile-use', '<tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [900, 10]}}</tool_call>')).toBeInstanceOf(VlmCoordinateError);
    expect(formatError('qwen-mobile-use', '<tool_call>{"name": "mobile_use", "arguments": {"action": "terminate", "status": "maybe"}}</tool_call>').reason).toMatch(/success or failure/);
    expect(formatError('qwen-mobile-use', '<tool_call>{"name": "mobile_use", "arguments": 5}</tool_call>').reason).toMatch(/no "arguments" object/);
  });
});

describe('long replies (issue 16, found by test/fuzz/parsers.test.ts)', () => {
  // A section label's pattern started with (^|\n)\s*: at every newline the \s* ran over all the newlines
  // after it before failing, so the time grew with the square of the blank lines (100 KB of them: ~30 s).
  // The bound guards against the hang, it measures nothing: these reads took 22 s before the fix, milliseconds after.
  it('reads a reply with 30,000 blank lines in linear time (ui-tars Action:, androidworld Reason:)', () => {
    const blank = '\n'.repeat(30_000);
    const t = performance.now();
    expect(formatError('ui-tars', blank).reason).toMatch(/no "Action:"/);
    expect(parse('ui-tars', `Thought: go back${blank}Action: press_back()${blank}`)).toEqual({ action: { action_type: 'navigate_back' }, thought: 'go back' });
    expect(parse('androidworld', `Reason: back${blank}Action: {"action_type": "navigate_back"}${blank}`)).toEqual({ action: { action_type: 'navigate_back' }, thought: 'back' });
    expect(performance.now() - t).toBeLessThan(1000);
  });

  // Reading Python-ish JSON tested "is this bare word a key?" with /[{,]\s*$/ on everything converted so
  // far: a regex anchored only at the end is tried from every position, so each bare key cost the whole
  // prefix (these two reads: 3.7 s before the fix, milliseconds after).
  it('reads a 100 KB object of bare keys in linear time (androidworld, qwen-mobile-use)', () => {
    const keys = 'a:None,'.repeat(14_000);
    const t = performance.now();
    // AndroidWorld drops null fields, but refuses a field that is not one of JSONAction's, even null.
    expect(parse('androidworld', `Action: {${keys.replaceAll('a:', 'text:')}action_type: 'navigate_back'}`).action).toEqual({ action_type: 'navigate_back' });
    expect(formatError('androidworld', `Action: {${keys}action_type: 'navigate_back'}`).reason).toMatch(/"a" is not a JSONAction field/);
    expect(formatError('qwen-mobile-use', `<tool_call>{${keys}}</tool_call>`).reason).toMatch(/no "arguments" object/);
    expect(performance.now() - t).toBeLessThan(1000);
  });
});
