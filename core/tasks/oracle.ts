import type { Action } from '../actions/schema.js';
import type { Observation } from '../device/observation.js';
import type { UiNode } from '../a11y/ui-tree.js';
import { focusedField } from '../device/observation.js';
import {
  clickableAncestor, elementLabel, findAll, findFirst, type UiElement, type UiSelector,
} from '../a11y/ui-tree.js';

export class OracleError extends Error {
  override name = 'OracleError';
  constructor(message: string, readonly screen: string) {
    super(`${message}\nOn screen: ${screen}`);
  }
}

/** The first node in a subtree (pre-order) whose resource id ends in `:id/<idSuffix>` (a list row's title, check box…). */
export function nodeWithId(n: UiNode, idSuffix: string): UiNode | undefined {
  if (n.resourceId.endsWith(`:id/${idSuffix}`)) return n;
  for (const c of n.children) {
    const hit = nodeWithId(c, idSuffix);
    if (hit) return hit;
  }
  return undefined;
}

/** The texts on screen, for error messages: an oracle that gets lost says where it was. */
export function screenSummary(obs: Observation): string {
  const labels = obs.elements.map((e) => e.node.text || e.node.contentDesc).filter(Boolean);
  return `${obs.foreground.package}/${obs.foreground.activity}: ${labels.slice(0, 40).map((l) => JSON.stringify(l)).join(', ')}`;
}

function describeSelector(s: UiSelector): string {
  return JSON.stringify(s, (_k, v) => (v instanceof RegExp ? v.toString() : v));
}

/**
 * What an oracle sees and does. `obs` is the current screen (the runner updates it before the
 * oracle resumes); the methods find elements the way a person reads the screen (by text,
 * description or resource-id) and return actions of the public action space. They never touch
 * device state directly.
 */
export class OracleUi {
  obs!: Observation;

  /** Called by the runner with each new screen. */
  update(obs: Observation): void {
    this.obs = obs;
  }

  find(sel: UiSelector): UiElement | undefined {
    return findFirst(this.obs.elements, sel);
  }

  findAll(sel: UiSelector): UiElement[] {
    return findAll(this.obs.elements, sel);
  }

  exists(sel: UiSelector): boolean {
    return this.find(sel) !== undefined;
  }

  require(sel: UiSelector, what = describeSelector(sel)): UiElement {
    const el = this.find(sel);
    if (!el) throw new OracleError(`Oracle could not find ${what}`, screenSummary(this.obs));
    return el;
  }

  /** The foreground package and activity. */
  get foreground() {
    return this.obs.foreground;
  }

  /** Texts of every node on screen, in order. */
  texts(): string[] {
    return this.obs.elements.map((e) => e.node.text).filter(Boolean);
  }

  /**
   * The value shown with a label (a list row's subtitle, a form's value): the first other text in
   * the label's container, or in its container's container.
   */
  valueNextTo(sel: UiSelector): string {
    const label = this.require(sel);
    for (let box = label.parent; box; box = box.parent) {
      const texts: string[] = [];
      const walk = (n: UiElement['node']) => {
        if (n !== label.node && n.text) texts.push(n.text);
        n.children.forEach(walk);
      };
      walk(box.node);
      if (texts.length) return texts[0]!;
    }
    throw new OracleError(`Oracle found no value next to ${describeSelector(sel)}`, screenSummary(this.obs));
  }

  label(el: UiElement): string {
    return elementLabel(el);
  }

  /** Click the element matching the selector (its clickable ancestor, as a finger would). */
  tap(sel: UiSelector | UiElement): Action {
    const el = 'node' in sel ? sel : this.require(sel);
    const target = clickableAncestor(el) ?? el;
    return { action_type: 'click', index: target.ordinal };
  }

  longPress(sel: UiSelector | UiElement): Action {
    const el = 'node' in sel ? sel : this.require(sel);
    const target = el.node.longClickable ? el : (this.ancestorWhere(el, (e) => e.node.longClickable) ?? el);
    return { action_type: 'long_press', index: target.ordinal };
  }

  private ancestorWhere(el: UiElement, pred: (e: UiElement) => boolean): UiElement | undefined {
    for (let e: UiElement | null = el; e; e = e.parent) if (pred(e)) return e;
    return undefined;
  }

  /** Type into the field matching the selector (the action taps it first). */
  type(sel: UiSelector | UiElement, text: string, opts: { clear?: boolean } = {}): Action {
    const el = 'node' in sel ? sel : this.require(sel);
    return { action_type: 'input_text', text, index: el.ordinal, ...(opts.clear ? { clear: true } : {}) };
  }

  /** Type into whatever field has focus. */
  typeFocused(text: string): Action {
    if (!focusedField(this.obs)) throw new OracleError('Oracle wanted to type but no field is focused', screenSummary(this.obs));
    return { action_type: 'input_text', text };
  }

  scroll(direction: 'up' | 'down' | 'left' | 'right', within?: UiSelector): Action {
    if (!within) return { action_type: 'scroll', direction };
    return { action_type: 'scroll', direction, index: this.require(within).ordinal };
  }

  enter(): Action {
    return { action_type: 'keyboard_enter' };
  }

  back(): Action {
    return { action_type: 'navigate_back' };
  }

  home(): Action {
    return { action_type: 'navigate_home' };
  }

  openApp(name: string): Action {
    return { action_type: 'open_app', app_name: name };
  }

  answer(text: string): Action {
    return { action_type: 'answer', text };
  }

  complete(): Action {
    return { action_type: 'status', goal_status: 'complete' };
  }

  /** A fingerprint of the screen, to notice that a scroll moved nothing. */
  fingerprint(): string {
    return this.obs.elements.map((e) => `${e.node.text}|${e.node.contentDesc}|${e.node.bounds.top}`).join('\n');
  }
}

/** Scrolls until an element matching the selector is on screen; fails if scrolling stops moving. */
export function* scrollTo(ui: OracleUi, sel: UiSelector, opts: { direction?: 'up' | 'down'; within?: UiSelector; max?: number } = {}): Generator<Action, UiElement, void> {
  const max = opts.max ?? 30;
  for (let i = 0; i <= max; i++) {
    const el = ui.find(sel);
    // Fully inside the scroll viewport is not required: a visible part can be tapped.
    if (el) return el;
    const before = ui.fingerprint();
    yield ui.scroll(opts.direction ?? 'down', opts.within);
    if (ui.fingerprint() === before) {
      throw new OracleError(`Scrolled to the end without finding ${describeSelector(sel)}`, screenSummary(ui.obs));
    }
  }
  throw new OracleError(`Gave up scrolling for ${describeSelector(sel)} after ${max} scrolls`, screenSummary(ui.obs));
}

const PROMPT_ALLOW = { resourceId: 'com.android.permissioncontroller:id/permission_allow_button' };

/** Answers a permission prompt if one is showing (apps ask on first launch). */
export function* dismissPrompts(ui: OracleUi): Generator<Action, void, void> {
  if (ui.exists(PROMPT_ALLOW)) yield ui.tap(PROMPT_ALLOW);
}

/** Opens an app by name and answers its first-launch prompt. */
export function* launch(ui: OracleUi, app: string): Generator<Action, void, void> {
  yield ui.openApp(app);
  yield* dismissPrompts(ui);
}

/** Android's floating text toolbar items (the popup a long press on text opens). */
export const TEXT_TOOLBAR_ITEM = 'floating_toolbar_menu_item_text';

/** Pastes the clipboard into a field: a long press on it opens the text toolbar, then Paste. */
export function* pasteInto(ui: OracleUi, sel: UiSelector): Generator<Action, void, void> {
  yield ui.longPress(sel);
  yield ui.tap({ resourceId: TEXT_TOOLBAR_ITEM, text: 'Paste' });
}

/** Copies a field's whole text: a long press, Select all (unless the word it selected is all), Copy. */
export function* copyAllOf(ui: OracleUi, sel: UiSelector): Generator<Action, void, void> {
  yield ui.longPress(sel);
  if (ui.exists({ resourceId: TEXT_TOOLBAR_ITEM, text: 'Select all' })) yield ui.tap({ resourceId: TEXT_TOOLBAR_ITEM, text: 'Select all' });
  yield ui.tap({ resourceId: TEXT_TOOLBAR_ITEM, text: 'Copy' });
}
