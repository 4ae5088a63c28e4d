import type { Bounds, UiNode, UiTree } from '../../../../core/api/types.js';

/**
 * The inspector's view of a UiTree. The renderer may not import core's runtime code, so the two
 * small functions it needs are written again here, to the letter: `flattenTree` numbers nodes as
 * core/a11y/ui-tree.ts `flattenUiTree` does (pre-order: the ordinal is the element index actions
 * use), and `hitTestTree` finds the node a touch lands on as its `hitTest` does. A test checks
 * both against core's on a real SimDroid tree.
 */
export interface FlatNode {
  ordinal: number;
  depth: number;
  node: UiNode;
  parentOrdinal: number | null;
  /** Child positions from the window root, e.g. "0.2.1": stable across refreshes of a similar screen. */
  path: string;
  /** The ordinal after this node's subtree (its descendants are ordinal+1 .. end-1). */
  end: number;
}

export function flattenTree(tree: UiTree): FlatNode[] {
  const out: FlatNode[] = [];
  const walk = (node: UiNode, depth: number, parentOrdinal: number | null, path: string) => {
    const el: FlatNode = { ordinal: out.length, depth, node, parentOrdinal, path, end: 0 };
    out.push(el);
    node.children.forEach((c, i) => walk(c, depth + 1, el.ordinal, `${path}.${i}`));
    el.end = out.length;
  };
  tree.roots.forEach((r, i) => walk(r, 0, null, String(i)));
  return out;
}

function contains(b: Bounds, x: number, y: number): boolean {
  return x >= b.left && x < b.right && y >= b.top && y < b.bottom;
}

/**
 * The deepest node under (x, y) as Android dispatches a touch: the top-most window containing the
 * point (later roots draw above earlier ones), then at each level the last child containing it.
 */
export function hitTestTree(nodes: readonly FlatNode[], x: number, y: number): FlatNode | undefined {
  const roots = nodes.filter((n) => n.depth === 0);
  for (let r = roots.length - 1; r >= 0; r--) {
    const root = roots[r]!;
    if (!contains(root.node.bounds, x, y)) continue;
    // Walk down by child position; ordinals of a node's children follow from the pre-order.
    let at = root;
    for (;;) {
      const kids = childrenOf(nodes, at);
      let next: FlatNode | undefined;
      for (let i = kids.length - 1; i >= 0; i--) {
        if (contains(kids[i]!.node.bounds, x, y)) {
          next = kids[i];
          break;
        }
      }
      if (!next) return at;
      at = next;
    }
  }
  return undefined;
}

/** A node's children in the flat list: the first follows it, each next one follows the previous one's subtree. */
export function childrenOf(nodes: readonly FlatNode[], n: FlatNode): FlatNode[] {
  const out: FlatNode[] = [];
  for (let i = n.ordinal + 1; i < n.end; i = nodes[i]!.end) out.push(nodes[i]!);
  return out;
}

/** "android.widget.TextView" → "TextView". */
export function shortClass(className: string): string {
  const i = className.lastIndexOf('.');
  return i >= 0 ? className.slice(i + 1) : className;
}

/** "com.app:id/title" → "title". */
export function shortId(resourceId: string): string {
  const i = resourceId.indexOf(':id/');
  return i >= 0 ? resourceId.slice(i + 4) : resourceId;
}

/** The attributes uiautomator dumps for a node, in AccessibilityNodeInfoDumper's order, plus where the inspector found it. */
export function nodeAttributes(n: FlatNode): Array<[string, string]> {
  const d = n.node;
  const b = d.bounds;
  return [
    ['ordinal', String(n.ordinal)],
    ['index', String(d.index)],
    ['text', d.text],
    ['resource-id', d.resourceId],
    ['class', d.className],
    ['package', d.packageName],
    ['content-desc', d.contentDesc],
    ['checkable', String(d.checkable)],
    ['checked', String(d.checked)],
    ['clickable', String(d.clickable)],
    ['enabled', String(d.enabled)],
    ['focusable', String(d.focusable)],
    ['focused', String(d.focused)],
    ['scrollable', String(d.scrollable)],
    ['long-clickable', String(d.longClickable)],
    ['password', String(d.password)],
    ['selected', String(d.selected)],
    ['bounds', `[${b.left},${b.top}][${b.right},${b.bottom}]`],
    ['NAF', String(d.naf)],
    ['depth', String(n.depth)],
  ];
}

/** What identifies "the same element" across a refresh, to keep the selection when the screen barely changed. */
export function nodeIdentity(n: FlatNode): string {
  const d = n.node;
  return `${n.path}|${d.className}|${d.resourceId}|${d.text}|${d.contentDesc}`;
}
