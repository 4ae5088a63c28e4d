import type { Action } from '../../actions/schema.js';
import { findApp } from '../../device/app-catalog.js';
import { focusedField, type Observation } from '../../device/observation.js';
import type { Rng } from '../../util/rng.js';
import type { StepInputs } from './inputs.js';
import { ACTION_TYPES, GENERATED_TEXTS, POINTER_TYPES, TEXT_TYPES, type ActionTypeName, type PointerType, type TextType } from './layout.js';

/**
 * The transformer policy's action, factored as its heads produce it: an action type; for a pointing type the item it
 * points at (an element, the whole screen for a scroll, an app); for a typing or answering type its text, either a
 * span of tokens copied from the goal or from an element's label, or one of the generated texts.
 *
 *   π(a | s) = π_type(k | s) · π_pointer(i | s, k) · π_text(x | s, k)
 *
 * (a factor is 1 when the type has no pointer or no text), so log π of a choice is the sum of three head log-probs:
 * exact, as GRPO's ratio needs it, with no candidate list in between.
 */
export type TextChoice =
  | { source: 'goal'; start: number; length: number }
  | { source: 'item'; item: number; start: number; length: number }
  | { source: 'generated'; index: number };

export interface Choice {
  /** Index into ACTION_TYPES. */
  type: number;
  /** The item pointed at (POINTER_TYPES). */
  pointer?: number;
  text?: TextChoice;
}

/** The heads' log-probabilities for one step, at the temperature the step was decided at (row-major). */
export interface HeadLogProbs {
  /** [ACTION_TYPES] */
  type: Float32Array;
  /** [POINTER_TYPES, items] */
  pointer: Float32Array;
  /** [TEXT_TYPES, goalTokens, maxSpan] a span (start, length − 1) of the goal */
  goalSpan: Float32Array;
  /** [TEXT_TYPES, items, itemTokens, itemSpan] a span of an item's label */
  itemSpan: Float32Array;
  /** [TEXT_TYPES, GENERATED_TEXTS] */
  generated: Float32Array;
}

/** The shape a model's heads have (its layout's sizes). */
export interface HeadShape {
  goalTokens: number;
  maxSpan: number;
  itemTokens: number;
  /** Longest span inside an item: min(maxSpan, itemTokens). */
  itemSpan: number;
}

export const pointerRow = (t: ActionTypeName): number => POINTER_TYPES.indexOf(t as PointerType);
export const textRow = (t: ActionTypeName): number => TEXT_TYPES.indexOf(t as TextType);

function goalIndex(shape: HeadShape, row: number, start: number, length: number): number {
  return (row * shape.goalTokens + start) * shape.maxSpan + (length - 1);
}
function itemIndex(shape: HeadShape, items: number, row: number, item: number, start: number, length: number): number {
  return ((row * items + item) * shape.itemTokens + start) * shape.itemSpan + (length - 1);
}

/** log π of a choice: the sum of its heads' log-probs. */
export function choiceLogProb(c: Choice, h: HeadLogProbs, shape: HeadShape, items: number): number {
  const type = ACTION_TYPES[c.type]!;
  let lp = h.type[c.type]!;
  const p = pointerRow(type);
  if (p >= 0) lp += h.pointer[p * items + c.pointer!]!;
  const x = textRow(type);
  if (x >= 0) lp += textLogProb(c.text!, x, h, shape, items);
  return lp;
}

function textLogProb(t: TextChoice, row: number, h: HeadLogProbs, shape: HeadShape, items: number): number {
  switch (t.source) {
    case 'goal':
      return h.goalSpan[goalIndex(shape, row, t.start, t.length)]!;
    case 'item':
      return h.itemSpan[itemIndex(shape, items, row, t.item, t.start, t.length)]!;
    case 'generated':
      return h.generated[row * GENERATED_TEXTS.length + t.index]!;
  }
}

/** Greedy: the largest entry; sample: inverse CDF of exp(lp) with one draw (the rest of the mass goes to the last entry). */
function pick(lp: ArrayLike<number>, from: number, to: number, rng: Rng | null): number {
  if (!rng) {
    let best = from;
    for (let i = from + 1; i < to; i++) if (lp[i]! > lp[best]!) best = i;
    return best;
  }
  let u = rng.next();
  let last = from;
  for (let i = from; i < to; i++) {
    const p = Math.exp(lp[i]!);
    if (p > 0) last = i;
    u -= p;
    if (u < 0) return i;
  }
  return last;
}

/** The text head's entries in one order (goal spans, item spans, generated), as one distribution. */
function textEntries(row: number, h: HeadLogProbs, shape: HeadShape, items: number): { lp: Float32Array; decode: (k: number) => TextChoice } {
  const g = shape.goalTokens * shape.maxSpan;
  const it = items * shape.itemTokens * shape.itemSpan;
  const V = GENERATED_TEXTS.length;
  const lp = new Float32Array(g + it + V);
  lp.set(h.goalSpan.subarray(row * g, (row + 1) * g), 0);
  lp.set(h.itemSpan.subarray(row * it, (row + 1) * it), g);
  lp.set(h.generated.subarray(row * V, (row + 1) * V), g + it);
  return {
    lp,
    decode: (k) => {
      if (k < g) return { source: 'goal', start: Math.floor(k / shape.maxSpan), length: (k % shape.maxSpan) + 1 };
      if (k < g + it) {
        const r = k - g;
        const item = Math.floor(r / (shape.itemTokens * shape.itemSpan));
        const w = r % (shape.itemTokens * shape.itemSpan);
        return { source: 'item', item, start: Math.floor(w / shape.itemSpan), length: (w % shape.itemSpan) + 1 };
      }
      return { source: 'generated', index: k - g - it };
    },
  };
}

/** Picks a choice head by head: greedy (rng null) or sampled with one draw per head. */
export function chooseAction(h: HeadLogProbs, shape: HeadShape, items: number, rng: Rng | null): Choice {
  const type = pick(h.type, 0, ACTION_TYPES.length, rng);
  const name = ACTION_TYPES[type]!;
  const c: Choice = { type };
  const p = pointerRow(name);
  if (p >= 0) c.pointer = pick(h.pointer, p * items, (p + 1) * items, rng) - p * items;
  const x = textRow(name);
  if (x >= 0) {
    const e = textEntries(x, h, shape, items);
    c.text = e.decode(pick(e.lp, 0, e.lp.length, rng));
  }
  return c;
}

/** The text a text choice forms. */
export function choiceText(t: TextChoice, inputs: StepInputs): string {
  switch (t.source) {
    case 'goal': {
      const toks = inputs.decode.goalTokens;
      return inputs.decode.instruction.slice(toks[t.start]!.start, toks[t.start + t.length - 1]!.end);
    }
    case 'item': {
      const item = inputs.decode.items[t.item]!;
      return item.copyText.slice(item.copyTokens[t.start]!.start, item.copyTokens[t.start + t.length - 1]!.end);
    }
    case 'generated':
      return GENERATED_TEXTS[t.index]!;
  }
}

/** The action a choice stands for on this step's screen. */
export function choiceAction(c: Choice, inputs: StepInputs): Action {
  const name = ACTION_TYPES[c.type]!;
  const item = c.pointer !== undefined ? inputs.decode.items[c.pointer]! : undefined;
  const text = c.text ? choiceText(c.text, inputs) : '';
  switch (name) {
    case 'click':
      return { action_type: 'click', index: item!.ordinal! };
    case 'long_press':
      return { action_type: 'long_press', index: item!.ordinal! };
    case 'input_text':
      return { action_type: 'input_text', text, index: item!.ordinal!, clear: true };
    case 'scroll_down':
    case 'scroll_up': {
      const direction = name === 'scroll_down' ? 'down' : 'up';
      return item?.kind === 'element' ? { action_type: 'scroll', direction, index: item.ordinal! } : { action_type: 'scroll', direction };
    }
    case 'open_app':
      return { action_type: 'open_app', app_name: item!.app! };
    case 'answer':
      return { action_type: 'answer', text };
    case 'keyboard_enter':
    case 'navigate_back':
    case 'navigate_home':
    case 'wait':
      return { action_type: name };
    case 'status_complete':
      return { action_type: 'status', goal_status: 'complete' };
  }
}

/** The same choice, field by field (two choices built in different places may order their fields differently). */
export function sameChoice(a: Choice, b: Choice): boolean {
  if (a.type !== b.type || a.pointer !== b.pointer) return false;
  if (!a.text || !b.text) return !a.text && !b.text;
  const x = a.text, y = b.text;
  switch (x.source) {
    case 'goal':
      return y.source === 'goal' && x.start === y.start && x.length === y.length;
    case 'item':
      return y.source === 'item' && x.item === y.item && x.start === y.start && x.length === y.length;
    case 'generated':
      return y.source === 'generated' && x.index === y.index;
  }
}

/** A short description of a choice for thoughts and the Agent view ("click Save", "type "Grace" into First name"). */
export function describeChoice(c: Choice, inputs: StepInputs): string {
  const name = ACTION_TYPES[c.type]!;
  const item = c.pointer !== undefined ? inputs.decode.items[c.pointer]!.label : '';
  const text = c.text ? JSON.stringify(choiceText(c.text, inputs)) : '';
  return [name.replace('_', ' '), text, item && (text ? `into ${item}` : item)].filter(Boolean).join(' ');
}

/** The text choice that forms `text`: a goal span first, then an element label's span, then a generated text; null if none does. */
function textChoiceFor(text: string, inputs: StepInputs, shape: HeadShape): TextChoice | null {
  const want = text.trim();
  if (!want) return null;
  const toks = inputs.decode.goalTokens;
  for (let s = 0; s < toks.length; s++) {
    if (toks[s]!.continuation) continue;
    for (let l = 1; l <= shape.maxSpan && s + l <= toks.length; l++) {
      if (toks[s + l]?.continuation) continue;
      if (inputs.decode.instruction.slice(toks[s]!.start, toks[s + l - 1]!.end) === want) return { source: 'goal', start: s, length: l };
    }
  }
  for (const [i, item] of inputs.decode.items.entries()) {
    const t = item.copyTokens;
    for (let s = 0; s < t.length; s++) {
      if (t[s]!.continuation) continue;
      for (let l = 1; l <= shape.itemSpan && s + l <= t.length; l++) {
        if (t[s + l]?.continuation) continue;
        if (item.copyText.slice(t[s]!.start, t[s + l - 1]!.end) === want) return { source: 'item', item: i, start: s, length: l };
      }
    }
  }
  const g = GENERATED_TEXTS.indexOf(want);
  return g >= 0 ? { source: 'generated', index: g } : null;
}

/**
 * The choice that does what `action` does on this screen (a demonstration's target), or null when the policy cannot
 * form it: an element it does not read, coordinates, a text neither in the goal, on the screen nor generated.
 */
export function actionChoice(action: Action, inputs: StepInputs, obs: Observation, shape: HeadShape): Choice | null {
  const items = inputs.decode.items;
  const type = (name: ActionTypeName) => ACTION_TYPES.indexOf(name);
  const element = (ordinal: number | undefined) => (ordinal === undefined ? -1 : items.findIndex((it) => it.kind === 'element' && it.ordinal === ordinal));
  const allowed = (name: ActionTypeName, pointer: number) => pointer >= 0 && inputs.pointerMask[pointerRow(name) * inputs.items + pointer] === 1;
  switch (action.action_type) {
    case 'click':
    case 'long_press': {
      const p = element(action.index);
      return allowed(action.action_type, p) ? { type: type(action.action_type), pointer: p } : null;
    }
    case 'input_text': {
      const p = element(action.index ?? focusedField(obs)?.ordinal);
      const text = textChoiceFor(action.text, inputs, shape);
      return allowed('input_text', p) && text ? { type: type('input_text'), pointer: p, text } : null;
    }
    case 'scroll': {
      if (action.direction !== 'down' && action.direction !== 'up') return null;
      const name = action.direction === 'down' ? 'scroll_down' : 'scroll_up';
      const p = action.index === undefined ? items.findIndex((it) => it.kind === 'screen') : element(action.index);
      return allowed(name, p) ? { type: type(name), pointer: p } : null;
    }
    case 'open_app': {
      const app = findApp(action.app_name);
      const p = items.findIndex((it) => it.kind === 'app' && findApp(it.app!) === app);
      return app && p >= 0 ? { type: type('open_app'), pointer: p } : null;
    }
    case 'answer': {
      const text = textChoiceFor(action.text, inputs, shape);
      return text && inputs.typeMask[type('answer')] === 1 ? { type: type('answer'), text } : null;
    }
    case 'status':
      return action.goal_status === 'complete' ? { type: type('status_complete') } : null;
    case 'keyboard_enter':
      return inputs.typeMask[type('keyboard_enter')] === 1 ? { type: type('keyboard_enter') } : null;
    case 'navigate_back':
    case 'navigate_home':
    case 'wait':
      return { type: type(action.action_type) };
    case 'double_tap':
    case 'press_key':
    case 'swipe':
      return null;
  }
}
