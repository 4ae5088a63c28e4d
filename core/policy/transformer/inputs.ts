import { APP_CATALOG, appByPackage } from '../../device/app-catalog.js';
import { focusedField, type Observation } from '../../device/observation.js';
import type { StepRecord } from '../../episode/record.js';
import { elementLabel, type UiElement } from '../../a11y/ui-tree.js';
import { isQuestion } from '../extract.js';
import {
  ACTION_TYPES, HISTORY_ITEMS, ITEM_FEATURES, POINTER_TYPES, type ActionTypeName, type ItemFeature, type ItemKind, type Layout,
  type PointerType,
} from './layout.js';
import type { WordPieceToken, WordPieceTokenizer } from './wordpiece.js';

/**
 * One step as the transformer policy reads it: the goal's tokens, and one item per thing it can read or point at —
 * the screen itself (its app and activity; a scroll of the whole screen points here), the last steps' descriptions,
 * every app it can open, and the screen's elements (label, content description, resource-id words, class; bounds
 * and state as features). Masks say which items each pointing action may pick and which action types are possible
 * here, so the policy's action space is what the screen offers (an EditText to type into, a focused field to press
 * enter in, a question to answer). Everything the network sees is in the typed arrays; the rest (tokens with their
 * text spans, which element an item is) turns the network's choice back into an action (actions.ts).
 */
export interface StepInputs {
  /** [goalTokens] token ids of the instruction, 0-padded. */
  goalIds: Int32Array;
  /** [goalTokens, 2] whether a copied span may start / end at each goal token (word boundaries). */
  goalCopy: Float32Array;
  /** Items: [items, itemTokens] token ids, 0-padded. */
  itemIds: Int32Array;
  /** [items, itemTokens, 2] span start / end flags, set on the element label's tokens only. */
  itemCopy: Float32Array;
  /** [items, ITEM_FEATURES] */
  itemFeatures: Float32Array;
  /** [POINTER_TYPES, items] 1 where that pointing action may pick the item. */
  pointerMask: Float32Array;
  /** [ACTION_TYPES] 1 where the action type is possible on this screen. */
  typeMask: Float32Array;
  /** Number of items. */
  items: number;
  /** How choices turn back into actions: the goal's and the items' tokens and texts, each item's kind and target. */
  decode: DecodeInfo;
}

export interface StepItem {
  kind: ItemKind;
  /** The element's ordinal (the action index), for elements. */
  ordinal?: number;
  /** The app's catalog name, for apps. */
  app?: string;
  /** The words the item shows: what a person reading the Agent view would call it. */
  label: string;
  /** The copyable text (an element's label) and its tokens, whose spans index into it. */
  copyText: string;
  copyTokens: readonly WordPieceToken[];
}

export interface DecodeInfo {
  instruction: string;
  goalTokens: readonly WordPieceToken[];
  items: readonly StepItem[];
}

export interface StepContext {
  instruction: string;
  step: number;
  history: readonly StepRecord[];
}

const EDIT_TEXT = 'android.widget.EditText';
const LAUNCHER = 'com.google.android.apps.nexuslauncher';

function visible(el: UiElement): boolean {
  const b = el.node.bounds;
  return b.right > b.left && b.bottom > b.top;
}

const interactive = (el: UiElement) => el.node.clickable || el.node.longClickable || el.node.scrollable || el.node.className === EDIT_TEXT;

/** The elements the policy reads, in screen order: visible ones with words or an action; interactive ones kept first when there are too many. */
export function readableElements(obs: Observation, max: number): UiElement[] {
  const shown = obs.elements.filter((el) => visible(el) && (interactive(el) || el.node.text.trim() || el.node.contentDesc.trim()));
  if (shown.length <= max) return shown;
  const keep = new Set(shown.filter(interactive).slice(0, max));
  for (const el of shown) {
    if (keep.size >= max) break;
    keep.add(el);
  }
  return shown.filter((el) => keep.has(el));
}

function idWords(el: UiElement): string {
  return el.node.resourceId.replace(/^.*:id\//, '').replace(/[_-]+/g, ' ');
}

/** The words after an element's label: its description when that differs, resource-id words, class. */
function elementRest(el: UiElement, label: string): string {
  const n = el.node;
  const desc = n.contentDesc.trim() && n.contentDesc.trim() !== label ? n.contentDesc.trim() : '';
  return [desc, idWords(el), n.className.replace(/^.*\./, '')].filter(Boolean).join(' ');
}

function screenWords(obs: Observation): string {
  const pkg = obs.foreground.package;
  const app = appByPackage(pkg)?.name ?? pkg.replace(/[._]/g, ' ');
  return `${app} ${obs.foreground.activity.replace(/^.*\./, '').replace(/([a-z])([A-Z])/g, '$1 $2')}`;
}

/** Span start / end flags of a token list: starts at word starts, ends before a continuation. */
function copyFlags(tokens: readonly WordPieceToken[], out: Float32Array, offset: number): void {
  tokens.forEach((t, i) => {
    out[offset + 2 * i] = t.continuation ? 0 : 1;
    out[offset + 2 * i + 1] = tokens[i + 1]?.continuation ? 0 : 1;
  });
}

/** Builds the step's inputs; see StepInputs. */
export function buildStepInputs(obs: Observation, ctx: StepContext, tok: WordPieceTokenizer, layout: Layout): StepInputs {
  const T = layout.itemTokens;
  const Tg = layout.goalTokens;
  const F = ITEM_FEATURES.length;
  const goalTokens = tok.tokenize(ctx.instruction, Tg);
  const goalIds = new Int32Array(Tg);
  goalTokens.forEach((t, i) => (goalIds[i] = t.id));
  const goalCopy = new Float32Array(Tg * 2);
  copyFlags(goalTokens, goalCopy, 0);

  const pkg = obs.foreground.package;
  const question = isQuestion(ctx.instruction) ? 1 : 0;
  const front = appByPackage(pkg);
  const { width: W, height: H } = obs.screen;
  type Draft = { item: StepItem; rest: string; feats: Partial<Record<ItemFeature, number>> };
  const drafts: Draft[] = [];
  const common = { step: Math.min(1, ctx.step / 20), on_launcher: pkg === LAUNCHER ? 1 : 0, question };
  drafts.push({ item: { kind: 'screen', label: screenWords(obs), copyText: '', copyTokens: [] }, rest: screenWords(obs), feats: { kind_screen: 1, ...common } });
  const recent = ctx.history.slice(-HISTORY_ITEMS).reverse();
  for (let k = 0; k < HISTORY_ITEMS; k++) {
    const s = recent[k];
    const words = s ? (s.description ?? s.action?.action_type ?? '') : '';
    drafts.push({ item: { kind: 'history', label: words, copyText: '', copyTokens: [] }, rest: words, feats: { kind_history: 1, history_age: s ? (k + 1) / HISTORY_ITEMS : 0 } });
  }
  for (const app of APP_CATALOG) {
    drafts.push({ item: { kind: 'app', app: app.name, label: app.name, copyText: '', copyTokens: [] }, rest: app.name, feats: { kind_app: 1, app_in_front: front === app ? 1 : 0 } });
  }
  for (const el of readableElements(obs, layout.maxElements)) {
    const n = el.node;
    const label = elementLabel(el);
    const b = n.bounds;
    drafts.push({
      item: { kind: 'element', ordinal: el.ordinal, label: label || idWords(el) || n.className.replace(/^.*\./, ''), copyText: label, copyTokens: [] },
      rest: elementRest(el, label),
      feats: {
        kind_element: 1, cx: (b.left + b.right) / 2 / W, cy: (b.top + b.bottom) / 2 / H, w: (b.right - b.left) / W, h: (b.bottom - b.top) / H,
        clickable: n.clickable ? 1 : 0, long_clickable: n.longClickable ? 1 : 0, editable: n.className === EDIT_TEXT ? 1 : 0,
        scrollable: n.scrollable ? 1 : 0, checkable: n.checkable ? 1 : 0, checked: n.checked ? 1 : 0, focused: n.focused ? 1 : 0,
        selected: n.selected ? 1 : 0, enabled: n.enabled ? 1 : 0, password: n.password ? 1 : 0, has_label: label ? 1 : 0,
        empty_field: n.className === EDIT_TEXT && !n.text.trim() ? 1 : 0,
      },
    });
  }

  const S = drafts.length;
  const itemIds = new Int32Array(S * T);
  const itemCopy = new Float32Array(S * T * 2);
  const itemFeatures = new Float32Array(S * F);
  const pointerMask = new Float32Array(POINTER_TYPES.length * S);
  const items: StepItem[] = [];
  const canPoint = (p: PointerType, d: Draft): boolean => {
    const f = d.feats;
    switch (p) {
      case 'click':
        return f.kind_element === 1 && f.clickable === 1 && f.enabled === 1;
      case 'long_press':
        return f.kind_element === 1 && f.long_clickable === 1 && f.enabled === 1;
      case 'input_text':
        return f.kind_element === 1 && f.editable === 1 && f.enabled === 1;
      case 'scroll_down':
      case 'scroll_up':
        return f.kind_screen === 1 || (f.kind_element === 1 && f.scrollable === 1);
      case 'open_app':
        return f.kind_app === 1;
    }
  };
  drafts.forEach((d, s) => {
    // The label's tokens first (they may be copied), then the rest of the item's words.
    const labelTokens = d.item.kind === 'element' ? tok.tokenize(d.item.copyText, T) : [];
    const restTokens = tok.tokenize(d.rest, T - labelTokens.length);
    const item: StepItem = { ...d.item, copyTokens: labelTokens };
    items.push(item);
    [...labelTokens, ...restTokens].forEach((t, i) => (itemIds[s * T + i] = t.id));
    copyFlags(labelTokens, itemCopy, s * T * 2);
    ITEM_FEATURES.forEach((name, i) => (itemFeatures[s * F + i] = d.feats[name] ?? 0));
    POINTER_TYPES.forEach((p, r) => (pointerMask[r * S + s] = canPoint(p, d) ? 1 : 0));
  });

  const typeMask = new Float32Array(ACTION_TYPES.length);
  const anyPointer = (p: PointerType) => {
    const r = POINTER_TYPES.indexOf(p);
    for (let s = 0; s < S; s++) if (pointerMask[r * S + s]) return true;
    return false;
  };
  ACTION_TYPES.forEach((t: ActionTypeName, k) => {
    let ok = true;
    if ((POINTER_TYPES as readonly string[]).includes(t)) ok = anyPointer(t as PointerType);
    if (t === 'answer') ok = question === 1;
    if (t === 'keyboard_enter') ok = focusedField(obs) !== undefined;
    typeMask[k] = ok ? 1 : 0;
  });

  return {
    goalIds, goalCopy, itemIds, itemCopy, itemFeatures, pointerMask, typeMask, items: S,
    decode: { instruction: ctx.instruction, goalTokens, items },
  };
}
