import type { UiNode, UiTree } from '../../../core/a11y/ui-tree.js';
import type { LaidNode, ViewState } from './layout.js';
import { W, type ViewSpec } from './spec.js';
import type { Frame } from '../runtime/frame.js';

const CHECKABLE = new Set<string>([W.CheckBox, W.Switch, W.RadioButton]);
const NAF_EXCLUDED = ['android.widget.GridView', 'android.widget.GridLayout', 'android.widget.ListView', 'android.widget.TableLayout'];

export function resourceId(spec: ViewSpec, pkg: string): string {
  if (!spec.id) return '';
  return spec.id.includes(':id/') ? spec.id : `${pkg}:id/${spec.id}`;
}

export function isClickable(spec: ViewSpec): boolean {
  return spec.clickable ?? (spec.onClick !== undefined || spec.onTapAt !== undefined || spec.cls === W.EditText);
}

export function isLongClickable(spec: ViewSpec): boolean {
  return spec.longClickable ?? (spec.onLongClick !== undefined || spec.cls === W.EditText);
}

function hasLabel(n: UiNode): boolean {
  return n.text !== '' || n.contentDesc !== '' || n.children.some(hasLabel);
}

function toUiNode(n: LaidNode, pkg: string, view: ViewState, scale: number, withChildren: boolean): UiNode {
  const s = n.spec;
  const clickable = isClickable(s);
  const isEdit = s.cls === W.EditText;
  const node: UiNode = {
    index: n.index,
    text: isEdit ? (n.display?.text ?? '') : (s.text ?? ''),
    resourceId: resourceId(s, pkg),
    className: s.cls,
    packageName: pkg,
    contentDesc: s.desc ?? '',
    checkable: s.checkable ?? CHECKABLE.has(s.cls),
    checked: s.checked ?? false,
    clickable,
    enabled: s.enabled ?? true,
    focusable: s.focusable ?? (clickable || isEdit),
    focused: isEdit && s.field !== undefined && s.field === view.focus,
    scrollable: n.scroll !== undefined && n.scroll.max > 0,
    longClickable: isLongClickable(s),
    password: s.password ?? false,
    selected: s.selected ?? false,
    bounds: {
      left: Math.round(n.clip.x * scale),
      top: Math.round(n.clip.y * scale),
      right: Math.round((n.clip.x + n.clip.w) * scale),
      bottom: Math.round((n.clip.y + n.clip.h) * scale),
    },
    naf: false,
    children: withChildren ? n.children.map((c) => toUiNode(c, pkg, view, scale, true)) : [],
  };
  node.naf = node.clickable && node.enabled && !NAF_EXCLUDED.some((c) => node.className.endsWith(c)) && !hasLabel(node);
  return node;
}

/** The accessibility tree of a frame: one root per window, bottom to top, as uiautomator dumps windows. */
export function frameToUiTree(frame: Frame): UiTree {
  return {
    rotation: 0,
    // A window shown as its root only (the IME) reports its content view, not the wrapper frame.
    roots: frame.windows.map((w) =>
      w.a11y === 'full'
        ? toUiNode(w.root, w.package, w.view, frame.scale, true)
        : toUiNode(w.root.children[0] ?? w.root, w.package, w.view, frame.scale, false)),
  };
}
