/**
 * The accessibility tree in the shape `uiautomator dump` writes it: a <hierarchy> holding one root
 * <node> per window, each node with the 17 attributes of AOSP's AccessibilityNodeInfoDumper, in its
 * order. SimDroid produces this XML, real devices produce it, and everything in core reads it
 * through this module, so a checker or a policy cannot tell which device it runs on.
 */
export interface Bounds {
  readonly left: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
}

export interface UiNode {
  /** Position among the parent's children (uiautomator's `index`). */
  index: number;
  text: string;
  resourceId: string;
  className: string;
  packageName: string;
  contentDesc: string;
  checkable: boolean;
  checked: boolean;
  clickable: boolean;
  enabled: boolean;
  focusable: boolean;
  focused: boolean;
  scrollable: boolean;
  longClickable: boolean;
  password: boolean;
  selected: boolean;
  bounds: Bounds;
  /** uiautomator marks clickable nodes with no text or description anywhere below them "NAF". */
  naf: boolean;
  children: UiNode[];
}

export interface UiTree {
  rotation: number;
  roots: UiNode[];
}

/** A node of a tree flattened in document (pre-)order; `ordinal` is what actions call an element index. */
export interface UiElement {
  readonly ordinal: number;
  readonly depth: number;
  readonly node: UiNode;
  readonly parent: UiElement | null;
}

export class UiXmlError extends Error {
  override name = 'UiXmlError';
  constructor(message: string, readonly offset: number) {
    super(`${message} at offset ${offset}`);
  }
}

export function boundsCenter(b: Bounds): { x: number; y: number } {
  return { x: Math.floor((b.left + b.right) / 2), y: Math.floor((b.top + b.bottom) / 2) };
}

export function boundsContain(b: Bounds, x: number, y: number): boolean {
  return x >= b.left && x < b.right && y >= b.top && y < b.bottom;
}

export function boundsArea(b: Bounds): number {
  return Math.max(0, b.right - b.left) * Math.max(0, b.bottom - b.top);
}

export function formatBounds(b: Bounds): string {
  return `[${b.left},${b.top}][${b.right},${b.bottom}]`;
}

const BOUNDS_RE = /^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$/;

export function parseBounds(text: string): Bounds {
  const m = BOUNDS_RE.exec(text);
  if (!m) throw new UiXmlError(`Malformed bounds ${JSON.stringify(text)}`, 0);
  return { left: Number(m[1]), top: Number(m[2]), right: Number(m[3]), bottom: Number(m[4]) };
}

// ---------------------------------------------------------------- serialization

const XML_HEADER = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>";

// Escapes as Android's KXmlSerializer does for attribute values; control characters become
// character references so a multi-line text survives a round trip.
function escapeAttr(value: string): string {
  let out = '';
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    let rep: string | null = null;
    if (c === 38) rep = '&amp;';
    else if (c === 60) rep = '&lt;';
    else if (c === 62) rep = '&gt;';
    else if (c === 34) rep = '&quot;';
    else if (c < 32) rep = `&#${c};`;
    if (rep !== null) {
      out += value.slice(start, i) + rep;
      start = i + 1;
    }
  }
  return start === 0 ? value : out + value.slice(start);
}

function serializeNode(n: UiNode, parts: string[]): void {
  parts.push('<node ');
  if (n.naf) parts.push('NAF="true" ');
  parts.push(
    `index="${n.index}" text="${escapeAttr(n.text)}" resource-id="${escapeAttr(n.resourceId)}" ` +
      `class="${escapeAttr(n.className)}" package="${escapeAttr(n.packageName)}" ` +
      `content-desc="${escapeAttr(n.contentDesc)}" checkable="${n.checkable}" checked="${n.checked}" ` +
      `clickable="${n.clickable}" enabled="${n.enabled}" focusable="${n.focusable}" focused="${n.focused}" ` +
      `scrollable="${n.scrollable}" long-clickable="${n.longClickable}" password="${n.password}" ` +
      `selected="${n.selected}" bounds="${formatBounds(n.bounds)}"`,
  );
  if (n.children.length === 0) {
    parts.push(' />');
    return;
  }
  parts.push('>');
  for (const c of n.children) serializeNode(c, parts);
  parts.push('</node>');
}

/** Trees are not changed once built, and one screen's tree is written out several times a step (recorder, agent, dump). */
const serialized = new WeakMap<UiTree, string>();

export function serializeUiTree(tree: UiTree): string {
  const done = serialized.get(tree);
  if (done !== undefined) return done;
  const parts: string[] = [XML_HEADER, `<hierarchy rotation="${tree.rotation}">`];
  for (const r of tree.roots) serializeNode(r, parts);
  parts.push('</hierarchy>');
  const xml = parts.join('');
  serialized.set(tree, xml);
  return xml;
}

// ---------------------------------------------------------------- parsing

const ENTITY: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescape(value: string, offset: number): string {
  if (!value.includes('&')) return value;
  return value.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, (_m, ent: string) => {
    if (ent.startsWith('#x')) return String.fromCodePoint(parseInt(ent.slice(2), 16));
    if (ent.startsWith('#')) return String.fromCodePoint(parseInt(ent.slice(1), 10));
    const v = ENTITY[ent];
    if (v === undefined) throw new UiXmlError(`Unknown entity &${ent};`, offset);
    return v;
  });
}

function nodeFromAttrs(attrs: Map<string, string>, offset: number): UiNode {
  const bool = (k: string) => attrs.get(k) === 'true';
  const node: UiNode = {
    index: Number(attrs.get('index') ?? 0),
    text: attrs.get('text') ?? '',
    resourceId: attrs.get('resource-id') ?? '',
    className: attrs.get('class') ?? '',
    packageName: attrs.get('package') ?? '',
    contentDesc: attrs.get('content-desc') ?? '',
    checkable: bool('checkable'), checked: bool('checked'), clickable: bool('clickable'), enabled: bool('enabled'),
    focusable: bool('focusable'), focused: bool('focused'), scrollable: bool('scrollable'),
    longClickable: bool('long-clickable'), password: bool('password'), selected: bool('selected'),
    bounds: { left: 0, top: 0, right: 0, bottom: 0 },
    naf: bool('NAF'),
    children: [],
  };
  const b = attrs.get('bounds');
  if (b !== undefined) {
    try {
      node.bounds = parseBounds(b);
    } catch {
      throw new UiXmlError(`Malformed bounds ${JSON.stringify(b)}`, offset);
    }
  }
  return node;
}

/**
 * Parses uiautomator XML (the dialect above: elements and attributes, no text content). Accepts
 * whitespace between tags, which some dump tools add, and rejects anything that is not well formed.
 */
export function parseUiTree(xml: string): UiTree {
  let i = 0;
  const n = xml.length;
  const skipWs = () => {
    while (i < n && /\s/.test(xml[i]!)) i++;
  };
  if (xml.startsWith('<?xml', i)) {
    const end = xml.indexOf('?>', i);
    if (end < 0) throw new UiXmlError('Unterminated XML declaration', i);
    i = end + 2;
  }
  skipWs();
  const readTag = (): { name: string; attrs: Map<string, string>; selfClosing: boolean; closing: boolean } => {
    if (xml[i] !== '<') throw new UiXmlError(`Expected "<", found ${JSON.stringify(xml.slice(i, i + 20))}`, i);
    const start = i;
    i++;
    const closing = xml[i] === '/';
    if (closing) i++;
    const nameStart = i;
    while (i < n && /[A-Za-z0-9_:-]/.test(xml[i]!)) i++;
    const name = xml.slice(nameStart, i);
    if (!name) throw new UiXmlError('Missing tag name', start);
    const attrs = new Map<string, string>();
    for (;;) {
      skipWs();
      if (i >= n) throw new UiXmlError(`Unterminated tag <${name}`, start);
      if (xml[i] === '>') {
        i++;
        return { name, attrs, selfClosing: false, closing };
      }
      if (xml[i] === '/' && xml[i + 1] === '>') {
        i += 2;
        return { name, attrs, selfClosing: true, closing };
      }
      const keyStart = i;
      while (i < n && /[A-Za-z0-9_:-]/.test(xml[i]!)) i++;
      const key = xml.slice(keyStart, i);
      if (!key || xml[i] !== '=') throw new UiXmlError(`Malformed attribute in <${name}>`, i);
      i++;
      const q = xml[i];
      if (q !== '"' && q !== "'") throw new UiXmlError(`Unquoted attribute ${key}`, i);
      const end = xml.indexOf(q, i + 1);
      if (end < 0) throw new UiXmlError(`Unterminated attribute ${key}`, i);
      attrs.set(key, unescape(xml.slice(i + 1, end), i));
      i = end + 1;
    }
  };
  const root = readTag();
  if (root.name !== 'hierarchy' || root.closing) throw new UiXmlError('Expected <hierarchy>', 0);
  const tree: UiTree = { rotation: Number(root.attrs.get('rotation') ?? 0), roots: [] };
  if (root.selfClosing) return tree;
  const stack: UiNode[] = [];
  for (;;) {
    skipWs();
    if (i >= n) throw new UiXmlError('Unterminated <hierarchy>', i);
    const at = i;
    const tag = readTag();
    if (tag.closing) {
      if (tag.name === 'hierarchy') {
        if (stack.length) throw new UiXmlError('Unclosed <node> before </hierarchy>', at);
        break;
      }
      if (tag.name !== 'node' || !stack.length) throw new UiXmlError(`Unexpected </${tag.name}>`, at);
      stack.pop();
      continue;
    }
    if (tag.name !== 'node') throw new UiXmlError(`Unexpected <${tag.name}>`, at);
    const node = nodeFromAttrs(tag.attrs, at);
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push(node);
    else tree.roots.push(node);
    if (!tag.selfClosing) stack.push(node);
  }
  skipWs();
  if (i !== n) throw new UiXmlError('Trailing content after </hierarchy>', i);
  return tree;
}

// ---------------------------------------------------------------- queries

export function flattenUiTree(tree: UiTree): UiElement[] {
  const out: UiElement[] = [];
  const walk = (node: UiNode, depth: number, parent: UiElement | null) => {
    const el: UiElement = { ordinal: out.length, depth, node, parent };
    out.push(el);
    for (const c of node.children) walk(c, depth + 1, el);
  };
  for (const r of tree.roots) walk(r, 0, null);
  return out;
}

/** Selectors as oracles and checkers use them: exact text, text containing, resource-id, description. */
export interface UiSelector {
  text?: string | RegExp;
  textContains?: string;
  resourceId?: string;
  contentDesc?: string | RegExp;
  className?: string;
  packageName?: string;
  clickable?: boolean;
  checked?: boolean;
  enabled?: boolean;
}

function matchString(value: string, want: string | RegExp): boolean {
  return typeof want === 'string' ? value === want : want.test(value);
}

export function matchesSelector(node: UiNode, s: UiSelector): boolean {
  if (s.text !== undefined && !matchString(node.text, s.text)) return false;
  if (s.textContains !== undefined && !node.text.toLowerCase().includes(s.textContains.toLowerCase())) return false;
  if (s.resourceId !== undefined && node.resourceId !== s.resourceId && !node.resourceId.endsWith(`:id/${s.resourceId}`)) {
    return false;
  }
  if (s.contentDesc !== undefined && !matchString(node.contentDesc, s.contentDesc)) return false;
  if (s.className !== undefined && node.className !== s.className) return false;
  if (s.packageName !== undefined && node.packageName !== s.packageName) return false;
  if (s.clickable !== undefined && node.clickable !== s.clickable) return false;
  if (s.checked !== undefined && node.checked !== s.checked) return false;
  if (s.enabled !== undefined && node.enabled !== s.enabled) return false;
  return true;
}

export function findAll(elements: readonly UiElement[], s: UiSelector): UiElement[] {
  return elements.filter((e) => matchesSelector(e.node, s));
}

export function findFirst(elements: readonly UiElement[], s: UiSelector): UiElement | undefined {
  return elements.find((e) => matchesSelector(e.node, s));
}

/** The nearest clickable ancestor-or-self: what a tap on a label actually hits on Android. */
export function clickableAncestor(el: UiElement): UiElement | undefined {
  for (let e: UiElement | null = el; e; e = e.parent) if (e.node.clickable || e.node.longClickable) return e;
  return undefined;
}

/**
 * The element a tap at (x, y) lands on: the top-most window containing the point (later roots are
 * above earlier ones), then at each level the last child containing it (later siblings draw on
 * top), down to the deepest such node — the order in which Android dispatches a touch.
 */
export function hitTest(elements: readonly UiElement[], x: number, y: number): UiElement | undefined {
  const byNode = new Map<UiNode, UiElement>();
  const roots: UiElement[] = [];
  for (const e of elements) {
    byNode.set(e.node, e);
    if (e.depth === 0) roots.push(e);
  }
  const descend = (node: UiNode): UiNode => {
    for (let i = node.children.length - 1; i >= 0; i--) {
      const c = node.children[i]!;
      if (boundsContain(c.bounds, x, y)) return descend(c);
    }
    return node;
  };
  for (let r = roots.length - 1; r >= 0; r--) {
    const root = roots[r]!;
    if (boundsContain(root.node.bounds, x, y)) return byNode.get(descend(root.node));
  }
  return undefined;
}

/** The text a person would use to name an element: its text, its description, or a child's. */
export function elementLabel(el: UiElement | UiNode): string {
  const node = 'node' in el ? el.node : el;
  if (node.text.trim()) return node.text.trim();
  if (node.contentDesc.trim()) return node.contentDesc.trim();
  for (const c of node.children) {
    const l = elementLabel(c);
    if (l) return l;
  }
  return '';
}
