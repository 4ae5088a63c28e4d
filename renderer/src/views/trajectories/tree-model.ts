import type { Bounds } from '../../../../core/api/types.js';

/**
 * A stored accessibility tree (uiautomator XML) read for display. The renderer cannot run core's
 * parser, and the dialect is small (elements and attributes, no text content), so this reads it
 * directly; nodes are numbered in document order, which is what actions call an element index.
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

export class TreeXmlError extends Error {
  override name = 'TreeXmlError';
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescapeXml(v: string): string {
  if (!v.includes('&')) return v;
  return v.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, (m, e: string) => {
    if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(parseInt(e.slice(1), 10));
    return ENTITIES[e] ?? m;
  });
}

export function parseBoundsAttr(text: string | undefined): Bounds | null {
  const m = text ? /^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$/.exec(text.trim()) : null;
  return m ? { left: Number(m[1]), top: Number(m[2]), right: Number(m[3]), bottom: Number(m[4]) } : null;
}

export function parseTreeXml(xml: string): ParsedTree {
  const tree: ParsedTree = { rotation: 0, roots: [], nodes: [] };
  const stack: TreeNode[] = [];
  const tag = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|<\?[^>]*\?>|<!--[\s\S]*?-->/g;
  const attr = /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
  let seenHierarchy = false;
  let m: RegExpExecArray | null;
  while ((m = tag.exec(xml))) {
    const [, closing, name, attrText, selfClosing] = m;
    if (name === undefined) continue; // a declaration or comment
    if (name === 'hierarchy') {
      if (!closing) {
        seenHierarchy = true;
        const r = /rotation\s*=\s*"(\d+)"/.exec(attrText ?? '');
        tree.rotation = r ? Number(r[1]) : 0;
      }
      continue;
    }
    if (name !== 'node') continue;
    if (closing) {
      if (!stack.pop()) throw new TreeXmlError(`Unbalanced </node> at offset ${m.index}`);
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const a of (attrText ?? '').matchAll(attr)) attrs[a[1]!] = unescapeXml(a[2] ?? a[3] ?? '');
    const parent = stack[stack.length - 1] ?? null;
    const node: TreeNode = { ordinal: tree.nodes.length, depth: stack.length, attrs, bounds: parseBoundsAttr(attrs.bounds), children: [], parent };
    tree.nodes.push(node);
    (parent ? parent.children : tree.roots).push(node);
    if (!selfClosing) stack.push(node);
  }
  if (!seenHierarchy) throw new TreeXmlError('Not a uiautomator dump: no <hierarchy> element');
  if (stack.length) throw new TreeXmlError(`${stack.length} <node> element(s) are not closed`);
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
