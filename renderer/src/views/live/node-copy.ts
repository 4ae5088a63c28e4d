import { hitTestTree, shortClass, type FlatNode } from './tree-model.js';

/**
 * What Appium Inspector offers for a selected node, for the workbench's researchers: the node as an action to paste into
 * a script or a step-through override — the workbench's action JSON, or AndroidWorld's JSONAction as its agents write
 * it (Python's json.dumps) — and selectors to find it again: its resource-id, a UiAutomator selector, an XPath over
 * the `uiautomator dump` XML. The index is the node's ordinal (document order), which both action spaces call an
 * element index (core/env/ui-elements.ts).
 */
export const COPY_FORMATS = ['workbench', 'androidworld', 'resource-id', 'uiautomator', 'xpath'] as const;
export type CopyFormat = (typeof COPY_FORMATS)[number];

export const COPY_LABELS: Record<CopyFormat, string> = {
  workbench: 'Action (workbench JSON)',
  androidworld: "Action (AndroidWorld's JSONAction)",
  'resource-id': 'Selector: resource-id',
  uiautomator: 'Selector: UiAutomator',
  xpath: 'Selector: XPath',
};

/** The action a person most likely means on this node: type into a field, scroll a list, long-press, or click. */
export function nodeAction(n: FlatNode): Record<string, unknown> {
  const d = n.node;
  if (d.className === 'android.widget.EditText') return { action_type: 'input_text', text: 'TEXT', index: n.ordinal };
  if (d.scrollable) return { action_type: 'scroll', direction: 'down', index: n.ordinal };
  if (d.longClickable && !d.clickable) return { action_type: 'long_press', index: n.ordinal };
  return { action_type: 'click', index: n.ordinal };
}

/** Python's json.dumps with its default separators (", " and ": "), as an AndroidWorld agent prints its action. */
function pythonJson(v: Record<string, unknown>): string {
  return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${JSON.stringify(x)}`).join(', ')}}`;
}

const quoted = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
/** An XPath string literal (XPath 1.0 has no escapes: concat() when it holds both quote kinds). */
function xpathLiteral(s: string): string {
  if (!s.includes('"')) return `"${s}"`;
  if (!s.includes("'")) return `'${s}'`;
  return `concat(${s.split('"').map((p) => `"${p}"`).join(`, '"', `)})`;
}

const unique = (nodes: readonly FlatNode[], n: FlatNode, pick: (x: FlatNode) => string) => {
  const v = pick(n);
  return v !== '' && nodes.filter((x) => pick(x) === v).length === 1;
};

/**
 * An XPath over the `uiautomator dump` XML (every element a `<node>` with its class as an attribute) that finds the node
 * alone: by resource-id, text or description when one is unique on the screen, else by its position from the root.
 */
export function xpathOf(nodes: readonly FlatNode[], n: FlatNode): string {
  for (const [attr, pick] of [['resource-id', (x: FlatNode) => x.node.resourceId], ['text', (x: FlatNode) => x.node.text], ['content-desc', (x: FlatNode) => x.node.contentDesc]] as const) {
    if (unique(nodes, n, pick)) return `//node[@${attr}=${xpathLiteral(pick(n))}]`;
  }
  // The node's child positions from its window root ("0.2.1"), 1-based in XPath.
  return `/hierarchy/${n.path.split('.').map((i) => `node[${Number(i) + 1}]`).join('/')}`;
}

/** A UiAutomator selector (Appium's -android uiautomator): by id, text or description when unique, else class and instance. */
export function uiautomatorOf(nodes: readonly FlatNode[], n: FlatNode): string {
  if (unique(nodes, n, (x) => x.node.resourceId)) return `new UiSelector().resourceId(${quoted(n.node.resourceId)})`;
  if (unique(nodes, n, (x) => x.node.text)) return `new UiSelector().text(${quoted(n.node.text)})`;
  if (unique(nodes, n, (x) => x.node.contentDesc)) return `new UiSelector().description(${quoted(n.node.contentDesc)})`;
  const same = nodes.filter((x) => x.node.className === n.node.className);
  return `new UiSelector().className(${quoted(n.node.className)}).instance(${same.indexOf(n)})`;
}

/** The node in a format; null when the format has nothing for it (a node without a resource-id). */
export function copyText(nodes: readonly FlatNode[], n: FlatNode, format: CopyFormat): string | null {
  switch (format) {
    case 'workbench':
      return JSON.stringify(nodeAction(n));
    case 'androidworld':
      return pythonJson(nodeAction(n));
    case 'resource-id':
      return n.node.resourceId || null;
    case 'uiautomator':
      return uiautomatorOf(nodes, n);
    case 'xpath':
      return xpathOf(nodes, n);
  }
}

/** The window root a node is in. */
function rootOf(nodes: readonly FlatNode[], n: FlatNode): FlatNode {
  let at = n;
  while (at.parentOrdinal !== null) at = nodes[at.parentOrdinal]!;
  return at;
}

/**
 * The window over the node at its centre, if another window covers it there (a dialog over the screen, the status
 * bar): a tap on the node would land on that window instead, as Android dispatches it to the top-most window.
 */
export function coveredBy(nodes: readonly FlatNode[], n: FlatNode): FlatNode | null {
  const b = n.node.bounds;
  if (b.right <= b.left || b.bottom <= b.top) return null;
  const hit = hitTestTree(nodes, Math.floor((b.left + b.right) / 2), Math.floor((b.top + b.bottom) / 2));
  if (!hit) return null;
  const mine = rootOf(nodes, n);
  const top = rootOf(nodes, hit);
  return top.ordinal > mine.ordinal ? top : null;
}

/** A window root in words: its package and class ("com.android.settings FrameLayout"). */
export const windowName = (w: FlatNode) => `${w.node.packageName} ${shortClass(w.node.className)}`;
