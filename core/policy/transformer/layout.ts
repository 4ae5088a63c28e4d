import { z } from 'zod';

/**
 * The transformer policy's input and output layout: what the workbench builds from a screen (inputs.ts) and what
 * the network's heads mean (actions.ts). The trainer (resources/trainer/awb_trainer/transformer) sizes its layers
 * from this, which the workbench sends when a model is made and which the model folder's config.json keeps; a model
 * whose layout differs from this one is refused when it loads (model.ts), so the two sides cannot drift apart.
 */

/** The action-type head's classes. */
export const ACTION_TYPES = [
  'click', 'long_press', 'input_text', 'scroll_down', 'scroll_up', 'open_app', 'answer',
  'keyboard_enter', 'navigate_back', 'navigate_home', 'wait', 'status_complete',
] as const;
export type ActionTypeName = (typeof ACTION_TYPES)[number];

/** The pointer head's rows: which item each pointing action type picks (an element, the whole screen, an app). */
export const POINTER_TYPES = ['click', 'long_press', 'input_text', 'scroll_down', 'scroll_up', 'open_app'] as const satisfies readonly ActionTypeName[];
export type PointerType = (typeof POINTER_TYPES)[number];

/** The copy/generate head's rows: the action types that carry text. */
export const TEXT_TYPES = ['input_text', 'answer'] as const satisfies readonly ActionTypeName[];
export type TextType = (typeof TEXT_TYPES)[number];

/**
 * The generate half of the copy/generate head: texts the policy may form without copying them. Counts and clock
 * fields ("How many …", "10h" typed as 10 and 00) are the only texts in the task suite that appear neither in the goal
 * nor on the screen and need no arithmetic across screens.
 */
export const GENERATED_TEXTS: readonly string[] = [...Array.from({ length: 61 }, (_, i) => String(i)), '00'];

/** What an item (a row of the text inputs) is. */
export const ITEM_KINDS = ['screen', 'history', 'app', 'element'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

/** Per-item features besides its words (0 where they do not apply). */
export const ITEM_FEATURES = [
  'kind_screen', 'kind_history', 'kind_app', 'kind_element',
  'cx', 'cy', 'w', 'h', 'clickable', 'long_clickable', 'editable', 'scrollable', 'checkable', 'checked', 'focused',
  'selected', 'enabled', 'password', 'has_label', 'empty_field',
  'history_age', 'step', 'on_launcher', 'app_in_front', 'question',
] as const;
export type ItemFeature = (typeof ITEM_FEATURES)[number];

/** History items: the last this many steps' descriptions, newest first. */
export const HISTORY_ITEMS = 3;

export const LayoutSchema = z.strictObject({
  actionTypes: z.array(z.string()),
  pointerTypes: z.array(z.string()),
  textTypes: z.array(z.string()),
  generated: z.array(z.string()),
  itemFeatures: z.array(z.string()),
  /** Goal tokens (the instruction, truncated). */
  goalTokens: z.int().min(4).max(512),
  /** Tokens per item (its words, truncated). */
  itemTokens: z.int().min(2).max(128),
  /** Elements per screen at most (interactive ones first). */
  maxElements: z.int().min(1).max(1024),
  /** Longest copied span, in tokens. */
  maxSpan: z.int().min(1).max(64),
});
export type Layout = z.infer<typeof LayoutSchema>;

export const DEFAULT_LAYOUT: Layout = {
  actionTypes: [...ACTION_TYPES], pointerTypes: [...POINTER_TYPES], textTypes: [...TEXT_TYPES], generated: [...GENERATED_TEXTS],
  itemFeatures: [...ITEM_FEATURES], goalTokens: 64, itemTokens: 12, maxElements: 96, maxSpan: 24,
};

/** The layout's names that must equal this build's (the sizes may differ: they are the model's). */
export function layoutMismatch(l: Layout): string | null {
  const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  if (!same(l.actionTypes, ACTION_TYPES)) return `action types ${JSON.stringify(l.actionTypes)} differ from this build's ${JSON.stringify(ACTION_TYPES)}`;
  if (!same(l.pointerTypes, POINTER_TYPES)) return `pointer types ${JSON.stringify(l.pointerTypes)} differ from this build's`;
  if (!same(l.textTypes, TEXT_TYPES)) return `text types ${JSON.stringify(l.textTypes)} differ from this build's`;
  if (!same(l.generated, GENERATED_TEXTS)) return 'the generated texts differ from this build\'s';
  if (!same(l.itemFeatures, ITEM_FEATURES)) return `item features ${JSON.stringify(l.itemFeatures)} differ from this build's ${JSON.stringify(ITEM_FEATURES)}`;
  return null;
}
