import type { UiNode } from '../../../../core/api/types.js';
import { flattenTree, hitTestTree, type FlatNode } from '../live/tree-model.js';

/**
 * Which element a click on the held screen means. The flattening (ordinals = the element index
 * actions use) and the touch hit-test are the Live inspector's (renderer/src/views/live/tree-model.ts,
 * checked against core's); this adds the step a tap takes on Android: from the view touched up to
 * the nearest clickable one (a list row rather than the label inside it).
 */
export { flattenTree, type FlatNode };

/** The clickable node a tap at `p` reaches, else the deepest node there; null off every window. */
export function hitTest(flat: readonly FlatNode[], p: { x: number; y: number }): FlatNode | null {
  const touched = hitTestTree(flat, p.x, p.y);
  if (!touched) return null;
  for (let at: FlatNode | undefined = touched; at; at = at.parentOrdinal === null ? undefined : flat[at.parentOrdinal]) {
    if (at.node.clickable) return at;
  }
  return touched;
}

/** A short name for a node, as tooltips show it. */
export function nodeLabel(n: UiNode): string {
  // A clickable row usually has its words on a child, as a person reads it.
  const inner = (x: UiNode): string => x.text || x.contentDesc || x.children.map(inner).find((t) => t) || '';
  const name = inner(n) || n.resourceId.split('/').pop() || n.className.split('.').pop() || 'node';
  return name.length > 40 ? `${name.slice(0, 39)}…` : name;
}
