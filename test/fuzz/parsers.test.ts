import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionParseError, ActionSchema, DIRECTIONS, parseAction, type Action } from '../../core/actions/schema.js';
import { observe, type Observation } from '../../core/device/observation.js';
import { VlmFormatError } from '../../core/policy/vlm/errors.js';
import { VLM_FORMAT_IDS, type ActionFormat, type ParseContext, type VlmFormatId } from '../../core/policy/vlm/format.js';
import { VLM_FORMATS } from '../../core/policy/vlm/formats/index.js';
import { COORDINATE_SPACES } from '../../core/policy/vlm/geometry.js';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { params, Tally, TIMEOUT_MS } from './fuzz.js';

/**
 * Fuzzing the parsers of what a model or a user writes (issue 16, place 3): the action schema
 * (parseAction) and the four VLM reply formats. Inputs: arbitrary text, text made of each format's
 * own tokens, valid replies (rendered by the format itself, and its samples) with characters
 * inserted, deleted, replaced, cut and duplicated, and ~100 KB inputs (catastrophic regexes).
 * Every parse returns an action the schema accepts, with finite on-screen coordinates, or throws
 * the format's VlmFormatError (parseAction: ActionParseError).
 */
const tally = new Tally('parsers (actions, VLM formats)');
/** A linear parse of 100 KB takes milliseconds; a quadratic one takes minutes. */
const LONG_INPUT_MS = 1000;

let obs: Observation;
beforeAll(async () => {
  obs = await observe(new SimDroid());
});
afterAll(() => console.log(tally.report()));

/** Valid by the schema, coordinates finite, and (given a screen: a parsed reply's points are device pixels) on it. */
function checkAction(a: unknown, screen: { width: number; height: number } | undefined, what: string): void {
  const r = ActionSchema.safeParse(a);
  expect(r.success, `${what}: ${JSON.stringify(a)} is not a valid action`).toBe(true);
  const action = a as Action;
  const points: Array<readonly [number, number]> = [];
  if ('x' in action && action.x !== undefined) points.push([action.x, action.y!]);
  if (action.action_type === 'swipe') points.push(action.start, action.end);
  for (const [x, y] of points) {
    expect(Number.isFinite(x) && Number.isFinite(y), `${what}: ${JSON.stringify(a)}`).toBe(true);
    if (screen) expect(x >= 0 && y >= 0 && x < screen.width && y < screen.height, `${what}: ${JSON.stringify(a)} is off the ${screen.width}x${screen.height} screen`).toBe(true);
  }
}

/** Parses with one format; asserts the outcome is a valid action or the format's named error. Returns the milliseconds taken. */
function parseChecked(f: ActionFormat, output: string, ctx: ParseContext): number {
  const t = performance.now();
  let outcome: 'ok' | Error;
  let parsed: unknown;
  try {
    parsed = f.parse(output, ctx);
    outcome = 'ok';
  } catch (e) {
    outcome = e as Error;
  }
  const ms = performance.now() - t;
  const shown = JSON.stringify(output.length > 300 ? `${output.slice(0, 300)}… (${output.length} chars)` : output);
  if (outcome === 'ok') {
    const p = parsed as { action: unknown; thought?: unknown };
    checkAction(p.action, ctx.screen, `${f.id} ${shown}`);
    expect(p.thought === undefined || typeof p.thought === 'string').toBe(true);
    tally.saw(`${f.id} action`);
  } else {
    if (!(outcome instanceof VlmFormatError)) throw new Error(`${f.id}: ${outcome.name} (not VlmFormatError) for ${shown}: ${outcome.stack}`);
    expect(outcome.format).toBe(f.id);
    tally.saw(`${f.id} ${outcome.name}`);
  }
  return ms;
}

const screenArb = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ width: 1080, height: 2400 }) },
  { weight: 1, arbitrary: fc.record({ width: fc.integer({ min: 100, max: 4000 }), height: fc.integer({ min: 100, max: 4000 }) }) },
);

const ctxArb: fc.Arbitrary<ParseContext> = fc.record({
  screen: screenArb,
  coordinates: fc.constantFrom(...COORDINATE_SPACES),
  image: fc.constantFrom('none', 'same', 'half'),
  expectsAnswer: fc.constantFrom(undefined, true, false),
  withObs: fc.boolean(),
}).map(({ screen, coordinates, image, expectsAnswer, withObs }) => ({
  screen, coordinates, expectsAnswer,
  ...(image === 'none' ? {} : { image: image === 'same' ? screen : { width: Math.round(screen.width / 2), height: Math.round(screen.height / 2) } }),
  ...(withObs ? { obs: { ...obs, screen: { ...obs.screen, ...screen } } } : {}),
}));

/** Each format's vocabulary: what its replies are made of, and what models get wrong. */
const TOKENS = [
  'Action:', 'Action：', 'Reason:', 'Thought:', 'Reflection:', '**Action**:', '\n', '\r\n', ' ', '\t', '{', '}', '[', ']', '(', ')', '"', "'", '"""', "'''",
  '\\', '\\\\', '\\n', '\\u00', '\\x4', ',', ':', '=', '```', '```json\n', '<tool_call>', '</tool_call>', '<answer>', '</answer>', '<think>', '</think>',
  '<point>', '</point>', '<bbox>', '<|box_start|>', '<|box_end|>', 'do(', 'finish(', 'click(', 'left_single(', 'long_press(', 'type(', 'scroll(', 'drag(',
  'swipe(', 'open_app(', 'press_home()', 'press_back()', 'hotkey(', 'finished(', 'call_user()', 'wait()', 'action=', 'element=', 'start_box=', 'end_box=',
  'content=', 'direction=', 'dist=', 'message=', 'text=', 'app=', 'key=', '"action_type"', '"action"', '"click"', '"index"', '"x"', '"y"', '"text"',
  '"start"', '"direction"', '"input_text"', '"swipe"', '"scroll"', '"status"', '"goal_status"', 'True', 'False', 'None', 'null', 'true', '1e999', '-0',
  'NaN', 'Infinity', '0x10', '1e-7', '999999999999999999999', '500', '0', '-5', '1.5', '1000', '"name": "mobile_use"', '"name"', '"arguments"',
  '"coordinate"', '"coordinate2"', '"button"', '"Back"', '"time"', '"terminate"', '"failure"', 'Tap', 'Swipe', 'Long Press', 'Type', 'Launch', 'Back',
  'up', 'down', 'left', 'medium', 'long', '\u0000', '\ud800', 'é', '日本', '🙂', '__proto__', 'constructor',
];

/** What a runaway regex or a scan restarted at every position trips on when repeated: whitespace, openers, quotes, separators. */
const STRUCTURE = ['\n', ' ', '\n ', '\t', '{', '(', '[', '"', "'", '\\', ',', 'a:1,', '`', '``', '<', '<answer>', 'Action', 'Action:', 'do(', 'click(', '*', ':', '0', '-1', '1,'];

const soup = fc.array(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...TOKENS) }, { weight: 1, arbitrary: fc.string({ maxLength: 4, unit: 'binary' }) }), { maxLength: 40 })
  .map((parts) => parts.join(''));

const textArb = fc.oneof(soup, fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ unit: 'grapheme', maxLength: 200 }));

function validAction(o: Observation): fc.Arbitrary<Action> {
  const { width: w, height: h } = o.screen;
  const n = o.elements.length;
  const index = fc.integer({ min: 0, max: n - 1 });
  const point = fc.tuple(fc.integer({ min: 0, max: w - 1 }), fc.integer({ min: 0, max: h - 1 }));
  const target = fc.oneof(index.map((i) => ({ index: i })), point.map(([x, y]) => ({ x, y })));
  const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 });
  return fc.oneof(
    target.map((t) => ({ action_type: 'click' as const, ...t })),
    target.map((t) => ({ action_type: 'long_press' as const, ...t })),
    fc.record({ action_type: fc.constant('scroll' as const), direction: fc.constantFrom(...DIRECTIONS), index }, { requiredKeys: ['action_type', 'direction'] }),
    fc.record({ action_type: fc.constant('swipe' as const), start: point, end: point }),
    fc.record({ action_type: fc.constant('input_text' as const), text, index, clear: fc.boolean() }, { requiredKeys: ['action_type', 'text'] }),
    fc.constantFrom({ action_type: 'keyboard_enter' as const }, { action_type: 'navigate_back' as const }, { action_type: 'navigate_home' as const }),
    text.filter((s) => s.trim() !== '').map((app_name) => ({ action_type: 'open_app' as const, app_name })),
    fc.record({ action_type: fc.constant('wait' as const), seconds: fc.double({ min: 0.1, max: 60, noNaN: true }) }, { requiredKeys: ['action_type'] }),
    fc.string({ maxLength: 30 }).map((t) => ({ action_type: 'answer' as const, text: t })),
    fc.constantFrom('complete' as const, 'infeasible' as const).map((goal_status) => ({ action_type: 'status' as const, goal_status })),
  );
}

type Edit = { op: 'insert'; at: number; text: string } | { op: 'delete'; at: number; n: number } | { op: 'replace'; at: number; text: string } | { op: 'cut'; at: number } | { op: 'duplicate'; at: number; n: number };

const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ op: fc.constant('insert' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), text: fc.oneof(fc.constantFrom(...TOKENS), fc.string({ maxLength: 3, unit: 'binary' })) }),
  fc.record({ op: fc.constant('delete' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), n: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ op: fc.constant('replace' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), text: fc.oneof(fc.constantFrom(...TOKENS), fc.string({ minLength: 1, maxLength: 1, unit: 'binary' })) }),
  fc.record({ op: fc.constant('cut' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ op: fc.constant('duplicate' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), n: fc.integer({ min: 1, max: 40 }) }),
);

function applyEdits(s: string, edits: readonly Edit[]): string {
  for (const e of edits) {
    const i = Math.floor(e.at * s.length);
    switch (e.op) {
      case 'insert': s = s.slice(0, i) + e.text + s.slice(i); break;
      case 'delete': s = s.slice(0, i) + s.slice(i + e.n); break;
      case 'replace': s = s.slice(0, i) + e.text + s.slice(i + 1); break;
      case 'cut': s = s.slice(0, i); break;
      case 'duplicate': s = s.slice(0, i + e.n) + s.slice(i, i + e.n) + s.slice(i + e.n); break;
    }
  }
  return s;
}

/** A valid reply in this format: one the format renders for a valid action, or one of its documented samples. */
function validReply(f: ActionFormat): fc.Arbitrary<{ reply: string; ctx: ParseContext }> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.record({ action: validAction(obs), ctx: ctxArb, thought: fc.option(textArb, { nil: undefined }) }).map(({ action, ctx, thought }) => {
      // Rendered and read on the observed screen, in the drawn coordinate space.
      const { width, height } = obs.screen;
      const image = ctx.image ? { width: Math.round(width / (ctx.image.width < ctx.screen.width ? 2 : 1)), height: Math.round(height / (ctx.image.width < ctx.screen.width ? 2 : 1)) } : undefined;
      const geometry = { screen: { width, height }, coordinates: ctx.coordinates, ...(image ? { image } : {}) };
      try {
        return { reply: f.render(action, { ...geometry, obs, thought }), ctx: { ...geometry, expectsAnswer: ctx.expectsAnswer, ...(ctx.obs ? { obs } : {}) } };
      } catch (e) {
        // A format may have no way to say an action (MobileRL: infeasible); that is the format's named error too.
        expect(e).toBeInstanceOf(VlmFormatError);
        return { reply: f.samples[0]!.output, ctx: { screen: obs.screen, coordinates: f.defaultCoordinates } };
      }
    }) },
    { weight: 1, arbitrary: fc.constantFrom(...f.samples).map((s) => ({ reply: s.output, ctx: { screen: { width: 1080, height: 2400 }, coordinates: f.defaultCoordinates, image: { width: 1080, height: 2400 } } })) },
  );
}

describe('fuzz: the action schema', () => {
  it('parseAction returns a valid action or throws ActionParseError', () => {
    const validObject = fc.constant(null).chain(() => validAction(obs));
    const mutatedObject = fc.tuple(validObject, fc.string({ maxLength: 12 }), fc.anything({ maxDepth: 2 }), fc.boolean()).map(([a, key, value, drop]) => {
      const o: Record<string, unknown> = { ...a };
      const keys = Object.keys(o);
      if (drop && keys.length > 1) delete o[keys[key.length % keys.length]!];
      else o[key.length % 2 ? key : keys[key.length % keys.length]!] = value;
      return o;
    });
    const input = fc.oneof(
      textArb, fc.json(), validObject.map((a) => JSON.stringify(a)), mutatedObject, mutatedObject.map((o) => JSON.stringify(o) ?? 'null'),
      fc.tuple(validObject, fc.array(editArb, { maxLength: 4 })).map(([a, edits]) => applyEdits(JSON.stringify(a), edits)),
      fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true, withSparseArray: true, withNullPrototype: true, withBoxedValues: true }),
    );
    fc.assert(fc.property(input, (v) => {
      tally.add('parseAction');
      let action: Action;
      try {
        action = parseAction(v);
      } catch (e) {
        if (!(e instanceof ActionParseError)) throw new Error(`${(e as Error).name} (not ActionParseError) from parseAction: ${(e as Error).stack}`);
        tally.saw('ActionParseError');
        return;
      }
      tally.saw('action');
      checkAction(action, undefined, 'parseAction');
    }), params(2000));
  }, TIMEOUT_MS);
});

describe.each(VLM_FORMAT_IDS.map((id) => [id]))('fuzz: the %s format', (id: VlmFormatId) => {
  const f = VLM_FORMATS[id];

  it('arbitrary text and text made of format tokens: an action or VlmFormatError', () => {
    fc.assert(fc.property(textArb, ctxArb, (text, ctx) => {
      tally.add(`${id} text`);
      parseChecked(f, text, ctx);
    }), params(1000));
  }, TIMEOUT_MS);

  it('valid replies with characters inserted, deleted, replaced, cut or duplicated: an action or VlmFormatError', () => {
    fc.assert(fc.property(validReply(f), fc.array(editArb, { maxLength: 5 }), ({ reply, ctx }, edits) => {
      tally.add(`${id} mutated`);
      parseChecked(f, applyEdits(reply, edits), ctx);
    }), params(1000));
  }, TIMEOUT_MS);

  it('~100 KB inputs (repeated tokens, a valid reply buried in them) parse in linear time', () => {
    const longArb = fc.record({
      unit: fc.oneof(fc.constantFrom(...STRUCTURE), fc.constantFrom(...TOKENS), soup.filter((s) => s.length > 0)),
      around: fc.option(validReply(f), { nil: undefined }),
      at: fc.constantFrom('before', 'after', 'both'),
      ctx: ctxArb,
    }).map(({ unit, around, at, ctx }) => {
      const filler = unit.repeat(Math.ceil(100_000 / unit.length)).slice(0, 100_000);
      if (!around) return { text: filler, ctx };
      const text = at === 'before' ? around.reply + filler : at === 'after' ? filler + around.reply : filler + around.reply + filler;
      return { text, ctx: around.ctx };
    });
    fc.assert(fc.property(longArb, ({ text, ctx }) => {
      tally.add(`${id} 100 KB`);
      const ms = parseChecked(f, text, ctx);
      expect(ms, `${id}: ${Math.round(ms)} ms for ${text.length} chars starting ${JSON.stringify(text.slice(0, 80))}`).toBeLessThan(LONG_INPUT_MS);
    }), params(100, 0.05));
  }, TIMEOUT_MS);
});
