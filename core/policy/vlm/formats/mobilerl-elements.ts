import type { Observation } from '../../../device/observation.js';
import type { Bounds, UiElement } from '../../../a11y/ui-tree.js';
import type { PromptContext } from '../format.js';

/**
 * The screen as MobileRL reads it: AndroidLab's compressed XML (android_lab/utils_mobile/xml_tool.py,
 * version v4, the released configurations' `version`; paper App. D), one line per kept node, indented
 * 4 spaces per kept ancestor:
 *   `Class;action[ status];text[ content-desc];[x1,y1,x2,y2]`
 * - kept: a node with a positive-area box inside its nearest kept ancestor's box, wider and taller
 *   than 0.5% of the largest box, that is functional (checkable, checked, clickable, focusable,
 *   scrollable, long-clickable, password, selected) or has text or a content description; a dropped
 *   node's children move up to its place;
 * - action: "click", "scroll", "long-click", "check" for the flags that are set, space-separated,
 *   else "focusable" when focusable; status: " checked"/" unchecked" (checkable), " password", " selected";
 * - the box in the model's frame: ⌊x·999/W⌋ for relative-999 (v4's scale_bound_both_side), pixels for screen.
 * Not carried over: app-specific fix-ups (WeChat, Meituan…), OCR nodes and the level-2 merge of
 * action-less nodes, which the released evaluation does not run.
 */
const FUNCTIONAL = ['checkable', 'checked', 'clickable', 'focusable', 'scrollable', 'longClickable', 'password', 'selected'] as const;

function area(b: Bounds): number {
  return Math.max(0, b.right - b.left) * Math.max(0, b.bottom - b.top);
}

function inside(b: Bounds, outer: Bounds): boolean {
  return b.left >= outer.left && b.top >= outer.top && b.right <= outer.right && b.bottom <= outer.bottom;
}

/** The kept elements, each with its depth among kept ancestors (1 for the top level). */
export function mobileRlNodes(obs: Observation): Array<{ el: UiElement; depth: number }> {
  let max: Bounds = { left: 0, top: 0, right: 0, bottom: 0 };
  for (const e of obs.elements) if (area(e.node.bounds) > area(max)) max = e.node.bounds;
  const minW = (max.right - max.left) * 0.005;
  const minH = (max.bottom - max.top) * 0.005;
  const kept = new Map<UiElement, number>();
  const out: Array<{ el: UiElement; depth: number }> = [];
  for (const e of obs.elements) {
    let anc = e.parent;
    while (anc && !kept.has(anc)) anc = anc.parent;
    const b = e.node.bounds;
    const n = e.node;
    const valid = b.right > b.left && b.bottom > b.top && (!anc || inside(b, anc.node.bounds));
    const big = b.right - b.left > minW && b.bottom - b.top > minH;
    const useful = FUNCTIONAL.some((f) => n[f]) || n.text !== '' || n.contentDesc !== '';
    if (!valid || !big || !useful) continue;
    const depth = (anc ? kept.get(anc)! : 0) + 1;
    kept.set(e, depth);
    out.push({ el: e, depth });
  }
  return out;
}

/** The text field of a node's line: text, then the content description after a space. */
export function nodeText(el: UiElement): string {
  const n = el.node;
  return (n.text + (n.contentDesc ? ` ${n.contentDesc}` : '')).replace(/\r?\n/g, ' ');
}

export function mobileRlElementsText(obs: Observation, ctx: PromptContext): string {
  const sx = ctx.coordinates === 'screen' ? 1 : ctx.frame.width / ctx.screen.width;
  const sy = ctx.coordinates === 'screen' ? 1 : ctx.frame.height / ctx.screen.height;
  const lines = [
    `The screenshot's size is ${ctx.coordinates === 'screen' ? ctx.screen.width : ctx.frame.width}x${ctx.coordinates === 'screen' ? ctx.screen.height : ctx.frame.height}. The value in bounds is relative to the screenshot's size.`,
    "The tree structure description of the current screenshot is shown:",
  ];
  for (const { el, depth } of mobileRlNodes(obs)) {
    const n = el.node;
    const verbs = [n.clickable && 'click', n.scrollable && 'scroll', n.longClickable && 'long-click', n.checkable && 'check'].filter(Boolean).join(' ');
    const action = verbs || (n.focusable ? 'focusable' : '');
    const status = (n.checkable ? (n.checked ? ' checked' : ' unchecked') : '') + (n.password ? ' password' : '') + (n.selected ? ' selected' : '');
    const b = n.bounds;
    const box = [b.left * sx, b.top * sy, b.right * sx, b.bottom * sy].map((v) => Math.floor(v)).join(',');
    lines.push(`${' '.repeat(4 * depth)}${n.className.split('.').pop()};${action}${status};${nodeText(el)};[${box}]`);
  }
  return lines.join('\n');
}
