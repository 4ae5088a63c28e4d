import type { Bounds, UiNode, UiTree } from '../../../../core/api/types.js';

/**
 * A stored accessibility tree shaped for display: core parses the XML (getTree returns the tree);
 * nodes are numbered in document order, which is what actions call an element index.
 */
export interface TreeNode {
  ordinal: number;
  depth: number;
  attrs: Record<string, string>;
  bounds: Bounds | null;
  children: TreeNode[];
  parent: TreeNode | null;
}

export interface ParsedTree {
  rotation: number;
  roots: TreeNode[];
  /** Every node, by ordinal. */
  nodes: TreeNode[];
}

/** uiautomator's attribute names and values for a node, in its dump order (what the XML shows). */
function attributesOf(n: UiNode): Record<string, string> {
  const b = n.bounds;
  const attrs: Record<string, string> = {
    index: String(n.index), text: n.text, 'resource-id': n.resourceId, class: n.className, package: n.packageName,
    'content-desc': n.contentDesc, checkable: String(n.checkable), checked: String(n.checked), clickable: String(n.clickable),
    enabled: String(n.enabled), focusable: String(n.focusable), focused: String(n.focused), scrollable: String(n.scrollable),
    'long-clickable': String(n.longClickable), password: String(n.password), selected: String(n.selected),
    bounds: `[${b.left},${b.top}][${b.right},${b.bottom}]`,
  };
  if (n.naf) attrs.NAF = 'true';
  return attrs;
}

/** The display model of a tree core parsed (getTree): nodes numbered in document order. */
export function treeFromUi(ui: UiTree): ParsedTree {
  const tree: ParsedTree = { rotation: ui.rotation, roots: [], nodes: [] };
  const walk = (n: UiNode, depth: number, parent: TreeNode | null) => {
    const node: TreeNode = { ordinal: tree.nodes.length, depth, attrs: attributesOf(n), bounds: n.bounds, children: [], parent };
    tree.nodes.push(node);
    (parent ? parent.children : tree.roots).push(node);
    n.children.forEach((c) => walk(c, depth + 1, node));
  };
  ui.roots.forEach((r) => walk(r, 0, null));
  return tree;
}

/** The node's class without its package (TextView, not android.widget.TextView). */
export function shortClass(n: TreeNode): string {
  const c = n.attrs.class ?? 'node';
  return c.slice(c.lastIndexOf('.') + 1);
}

/** What a person would call the node: its text, description or id. */
export function nodeLabel(n: TreeNode): string {
  const a = n.attrs;
  if (a.text?.trim()) return a.text.trim();
  if (a['content-desc']?.trim()) return a['content-desc'].trim();
  if (a['resource-id']) return a['resource-id'].slice(a['resource-id'].indexOf('/') + 1);
  return '';
}

/** The screen size the tree describes: its first root's bounds (uiautomator roots span the screen). */
export function treeScreenSize(t: ParsedTree): { width: number; height: number } | null {
  const b = t.roots[0]?.bounds;
  return b && b.right > 0 && b.bottom > 0 ? { width: b.right, height: b.bottom } : null;
}

const escapeAttr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The tree as indented XML, one element per line (stored trees are written without whitespace). */
export function prettyXml(t: ParsedTree): string {
  const lines = [`<hierarchy rotation="${t.rotation}">`];
  const walk = (n: TreeNode) => {
    const pad = '  '.repeat(n.depth + 1);
    const attrs = Object.entries(n.attrs).map(([k, v]) => `${k}="${escapeAttr(v)}"`).join(' ');
    if (!n.children.length) {
      lines.push(`${pad}<node ${attrs} />`);
      return;
    }
    lines.push(`${pad}<node ${attrs}>`);
    n.children.forEach(walk);
    lines.push(`${pad}</node>`);
  };
  t.roots.forEach(walk);
  lines.push('</hierarchy>');
  return lines.join('\n');
}

/** The boxes a wireframe draws for a tree (components/Wireframe.tsx): nodes with an area, in document order. */
export function wireframeOf(t: ParsedTree): Array<{ bounds: Bounds; text: string; clickable: boolean }> {
  return t.nodes.flatMap((n) => {
    const b = n.bounds;
    if (!b || b.right <= b.left || b.bottom <= b.top) return [];
    return [{ bounds: b, text: (n.attrs.text?.trim() || n.attrs['content-desc']?.trim()) ?? '', clickable: n.attrs.clickable === 'true' }];
  });
}
