import { parseUiTree, type UiNode } from '../a11y/ui-tree.js';

/**
 * What changed between two screens, node by node. A node is identified by its path of
 * (class, resource-id) from the root, with its rank among same-kind siblings: "the second
 * TextView#name under the list", so the same row in both trees pairs up even when its text differs.
 * The status bar and keyboard are left out, as in screen-state.ts.
 */
export interface DiffNode {
  /** The node's path, e.g. `FrameLayout/LinearLayout#list/TextView#name[1]`. */
  path: string;
  className: string;
  resourceId: string;
  text: string;
  /** checked / selected / enabled / focused, written out where true (enabled where false). */
  state: string[];
}

export interface NodeChange {
  path: string;
  /** What changed: 'text' and/or state flags. */
  fields: string[];
  before: DiffNode;
  after: DiffNode;
}

export interface TreeDiff {
  added: DiffNode[];
  removed: DiffNode[];
  changed: NodeChange[];
}

const SKIP = new Set(['com.android.systemui', 'com.google.android.inputmethod.latin']);
const short = (cls: string) => cls.slice(cls.lastIndexOf('.') + 1);
const shortId = (rid: string) => rid.slice(rid.indexOf('/') + 1);

function stateOf(n: UiNode): string[] {
  const s: string[] = [];
  if (n.checked) s.push('checked');
  if (n.selected) s.push('selected');
  if (!n.enabled) s.push('disabled');
  if (n.focused) s.push('focused');
  return s;
}

function index(xml: string): Map<string, DiffNode> {
  const out = new Map<string, DiffNode>();
  const visit = (nodes: readonly UiNode[], prefix: string) => {
    const seen = new Map<string, number>();
    for (const n of nodes) {
      if (SKIP.has(n.packageName)) continue;
      const kind = `${short(n.className)}${n.resourceId ? `#${shortId(n.resourceId)}` : ''}`;
      const rank = seen.get(kind) ?? 0;
      seen.set(kind, rank + 1);
      const path = `${prefix}${kind}${rank ? `[${rank}]` : ''}`;
      out.set(path, { path, className: n.className, resourceId: n.resourceId, text: n.text || n.contentDesc, state: stateOf(n) });
      visit(n.children, `${path}/`);
    }
  };
  visit(parseUiTree(xml).roots, '');
  return out;
}

/** Only nodes that say something (text, a description, an id or a state) are listed as added or removed. */
const telling = (n: DiffNode) => n.text !== '' || n.resourceId !== '' || n.state.length > 0;

/** The diff from `before` (e.g. the successful path's screen) to `after` (the failed path's), at most `limit` per list. */
export function diffTrees(beforeXml: string, afterXml: string, limit = 30): TreeDiff {
  const a = index(beforeXml);
  const b = index(afterXml);
  const added: DiffNode[] = [];
  const removed: DiffNode[] = [];
  const changed: NodeChange[] = [];
  for (const [path, n] of a) {
    const m = b.get(path);
    if (!m) {
      if (telling(n)) removed.push(n);
      continue;
    }
    const fields: string[] = [];
    if (n.text !== m.text) fields.push('text');
    const flags = new Set([...n.state, ...m.state]);
    for (const f of flags) if (n.state.includes(f) !== m.state.includes(f)) fields.push(f);
    if (fields.length) changed.push({ path, fields, before: n, after: m });
  }
  for (const [path, n] of b) if (!a.has(path) && telling(n)) added.push(n);
  return { added: added.slice(0, limit), removed: removed.slice(0, limit), changed: changed.slice(0, limit) };
}
