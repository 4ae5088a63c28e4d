import type { Action } from '../actions/schema.js';
import { APP_CATALOG, findApp } from '../device/app-catalog.js';
import { focusedField, type Observation } from '../device/observation.js';
import { elementLabel, type UiElement } from '../a11y/ui-tree.js';
import { assertNever } from '../util/errors.js';
import { asksForCount, extractValues, isQuestion } from './extract.js';

/**
 * The builtin policy's action space for one step: a finite, ordered set of concrete actions built
 * from the screen and the instruction. The policy scores these and nothing else, so log π is exact.
 */
export const CANDIDATE_KINDS = [
  'click', 'long_press', 'input_text', 'scroll', 'keyboard_enter', 'navigate_back', 'navigate_home', 'open_app', 'wait',
  'answer', 'status',
] as const;
export type CandidateKind = (typeof CANDIDATE_KINDS)[number];

export interface PolicyCandidate {
  kind: CandidateKind;
  action: Action;
  /** The element acted on (click, long_press, input_text, element scroll). */
  element?: UiElement;
  /** The text typed, the app opened, or the answer given. */
  value?: string;
  /** Words describing the candidate ("click Save", "scroll down"): what history features compare. */
  text: string;
}

export interface CandidateOptions {
  /** At most this many values from the instruction per editable field. Default 32. */
  maxValues?: number;
  /** Answer candidates: at most this many screen texts and numbers in them. Default 80. */
  maxAnswers?: number;
  /** For "how many" questions, answer candidates 0..maxCount. Default 30. */
  maxCount?: number;
}

const EDIT_TEXT = 'android.widget.EditText';

function visible(el: UiElement): boolean {
  const b = el.node.bounds;
  return b.right > b.left && b.bottom > b.top;
}

/** The words that name an element for features and history: label, description, id words, class. */
export function elementWords(el: UiElement): string {
  const n = el.node;
  const id = n.resourceId.replace(/^.*:id\//, '').replace(/[_-]+/g, ' ');
  const cls = n.className.replace(/^.*\./, '');
  return [elementLabel(el), n.contentDesc === elementLabel(el) ? '' : n.contentDesc, id, cls].filter(Boolean).join(' ');
}

/**
 * Builds the candidate set. Order: element actions by element index (click, long_press, then
 * input_text per extracted value), scrolls (screen, then each scrollable element), keyboard_enter
 * (when a field has focus), back, home, wait, open_app per catalog app, answers, status complete.
 * Duplicates (same action JSON) are dropped, keeping the first.
 */
export function buildCandidates(obs: Observation, instruction: string, opts: CandidateOptions = {}): PolicyCandidate[] {
  const out: PolicyCandidate[] = [];
  const seen = new Set<string>();
  const push = (c: PolicyCandidate) => {
    const key = JSON.stringify(c.action);
    if (seen.has(key)) return;
    seen.add(key);
    out.push(c);
  };
  const values = extractValues(instruction, opts.maxValues);

  for (const el of obs.elements) {
    if (!visible(el) || !el.node.enabled) continue;
    const words = elementWords(el);
    if (el.node.className === EDIT_TEXT) {
      for (const v of values) {
        push({ kind: 'input_text', action: { action_type: 'input_text', text: v, index: el.ordinal, clear: true }, element: el, value: v, text: `type ${v} into ${words}` });
      }
    }
    if (el.node.clickable) push({ kind: 'click', action: { action_type: 'click', index: el.ordinal }, element: el, text: `click ${words}` });
    if (el.node.longClickable) push({ kind: 'long_press', action: { action_type: 'long_press', index: el.ordinal }, element: el, text: `long press ${words}` });
  }
  for (const direction of ['down', 'up'] as const) push({ kind: 'scroll', action: { action_type: 'scroll', direction }, text: `scroll ${direction}` });
  for (const el of obs.elements) {
    if (!el.node.scrollable || !visible(el)) continue;
    for (const direction of ['down', 'up'] as const) {
      push({ kind: 'scroll', action: { action_type: 'scroll', direction, index: el.ordinal }, element: el, text: `scroll ${direction} ${elementWords(el)}` });
    }
  }
  if (focusedField(obs)) push({ kind: 'keyboard_enter', action: { action_type: 'keyboard_enter' }, text: 'press enter' });
  push({ kind: 'navigate_back', action: { action_type: 'navigate_back' }, text: 'navigate back' });
  push({ kind: 'navigate_home', action: { action_type: 'navigate_home' }, text: 'navigate home' });
  push({ kind: 'wait', action: { action_type: 'wait' }, text: 'wait' });
  for (const app of APP_CATALOG) push({ kind: 'open_app', action: { action_type: 'open_app', app_name: app.name }, value: app.name, text: `open app ${app.name}` });
  if (isQuestion(instruction)) {
    const texts: string[] = [];
    for (const el of obs.elements) {
      const t = el.node.text.trim();
      if (t && t.length <= 120 && !texts.includes(t)) texts.push(t);
    }
    // Numbers, times and amounts inside longer texts ("Your code is 256284", "06:34 · 1.2 MB").
    for (const t of [...texts]) for (const m of t.matchAll(/\d+(?:[.:]\d+)*(?:\s?[AP]M)?/g)) if (!texts.includes(m[0])) texts.push(m[0]);
    for (const t of texts.slice(0, opts.maxAnswers ?? 80)) push({ kind: 'answer', action: { action_type: 'answer', text: t }, value: t, text: `answer ${t}` });
    if (asksForCount(instruction)) {
      for (let n = 0; n <= (opts.maxCount ?? 30); n++) push({ kind: 'answer', action: { action_type: 'answer', text: String(n) }, value: String(n), text: `answer ${n}` });
    }
  }
  push({ kind: 'status', action: { action_type: 'status', goal_status: 'complete' }, text: 'status complete' });
  return out;
}

/**
 * The candidate that does what `action` does on this screen, or -1. Typing without an index means
 * the focused field; `clear` is not compared (candidates always clear, which on an empty field is
 * the same thing); a wait's duration is not compared.
 */
export function matchCandidate(candidates: readonly PolicyCandidate[], action: Action, obs: Observation): number {
  const focused = focusedField(obs)?.ordinal;
  return candidates.findIndex((c) => {
    const a = c.action;
    switch (action.action_type) {
      case 'click':
      case 'long_press':
      case 'double_tap':
        return a.action_type === action.action_type && action.index !== undefined && a.index === action.index;
      case 'input_text':
        return a.action_type === 'input_text' && a.text === action.text && a.index === (action.index ?? focused);
      case 'scroll':
        return a.action_type === 'scroll' && a.direction === action.direction && a.index === action.index;
      case 'open_app':
        return a.action_type === 'open_app' && findApp(a.app_name) !== undefined && findApp(a.app_name) === findApp(action.app_name);
      case 'answer':
        return a.action_type === 'answer' && a.text.trim() === action.text.trim();
      case 'status':
        return a.action_type === 'status' && a.goal_status === action.goal_status;
      case 'keyboard_enter':
      case 'navigate_back':
      case 'navigate_home':
      case 'wait':
        return a.action_type === action.action_type;
      case 'press_key':
        return a.action_type === 'press_key' && a.key === action.key;
      case 'swipe':
        return false;
      default:
        return assertNever(action);
    }
  });
}
