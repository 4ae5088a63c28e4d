import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { appStore, useApp } from '../../store/index.js';
import { type FlatNode, nodeAttributes, shortClass, shortId } from './tree-model.js';
import { COPY_FORMATS, COPY_LABELS, copyText, coveredBy, windowName, type CopyFormat } from './node-copy.js';

/**
 * The accessibility inspector: the UiTree as a collapsible tree (hovering a row outlines the node
 * on the screen; hovering the screen marks the row), and the selected node's attributes. Arrow
 * keys move through the tree as in a file tree.
 */
export function Inspector({ height }: { height: number }) {
  const nodes = useApp((s) => s.liveNodes);
  const loading = useApp((s) => s.treeLoading);
  const selected = useApp((s) => s.selectedOrdinal);
  const hovered = useApp((s) => s.hoveredOrdinal);
  // Collapsed nodes by path (stable across refreshes of a similar screen).
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [filter, setFilter] = useState('');
  const treeRef = useRef<HTMLDivElement>(null);

  const visible = useMemo(() => visibleRows(nodes, collapsed, filter), [nodes, collapsed, filter]);

  const toggle = (n: FlatNode, open?: boolean) => setCollapsed((old) => {
    const next = new Set(old);
    const isOpen = !old.has(n.path);
    if (open ?? !isOpen) next.delete(n.path);
    else next.add(n.path);
    return next;
  });

  // Selecting a node (e.g. by clicking the screen in inspect mode) opens its ancestors and shows its row.
  useEffect(() => {
    if (selected === null || !nodes[selected]) return;
    const paths: string[] = [];
    for (let p = nodes[selected].parentOrdinal; p !== null; p = nodes[p]!.parentOrdinal) paths.push(nodes[p]!.path);
    if (paths.some((p) => collapsed.has(p))) setCollapsed((old) => new Set([...old].filter((p) => !paths.includes(p))));
    treeRef.current?.querySelector(`[data-ordinal="${selected}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [selected, nodes]);

  // Hovering the screen scrolls the tree to the node's row (unless the mouse is on the tree).
  useEffect(() => {
    if (hovered === null || treeRef.current?.matches(':hover')) return;
    treeRef.current?.querySelector(`[data-ordinal="${hovered}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [hovered]);

  const onKeyDown = (e: KeyboardEvent) => {
    const at = visible.findIndex((n) => n.ordinal === selected);
    const cur = at >= 0 ? visible[at]! : undefined;
    const select = (n: FlatNode | undefined) => n && appStore().getState().selectNode(n.ordinal);
    switch (e.key) {
      case 'ArrowDown':
        select(visible[Math.min(visible.length - 1, at + 1)]);
        break;
      case 'ArrowUp':
        select(visible[Math.max(0, at - 1)]);
        break;
      case 'ArrowRight':
        if (cur && cur.node.children.length) {
          if (collapsed.has(cur.path)) toggle(cur, true);
          else select(nodes[cur.ordinal + 1]);
        }
        break;
      case 'ArrowLeft':
        if (cur && cur.node.children.length && !collapsed.has(cur.path)) toggle(cur, false);
        else if (cur && cur.parentOrdinal !== null) select(nodes[cur.parentOrdinal]);
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  return (
    <div className="live-inspector" style={{ height }}>
      <div className="row live-inspector-bar">
        <strong>Inspector</strong>
        <span className="muted">{nodes.length} nodes{loading ? ' · reading…' : ''}</span>
        <input
          className="live-filter" value={filter} onChange={(e) => setFilter(e.target.value)}
          placeholder="Filter: text, id, class" aria-label="Filter the tree" data-testid="tree-filter"
        />
        <button data-testid="refresh-tree" onClick={() => void appStore().getState().refreshTree()} title="Read the accessibility tree again">Refresh</button>
        <button onClick={() => setCollapsed(new Set())} title="Expand all">+</button>
        <button onClick={() => setCollapsed(new Set(nodes.filter((n) => n.node.children.length && n.depth > 0).map((n) => n.path)))} title="Collapse all but the windows">−</button>
      </div>
      <div
        className="live-tree" data-testid="inspector-tree" ref={treeRef} tabIndex={0} role="tree" onKeyDown={onKeyDown} data-focus-home
        onMouseLeave={() => appStore().getState().hoverNode(null)}
      >
        {nodes.length === 0 ? <div className="muted">{loading ? 'Reading the tree…' : 'No tree yet.'}</div> : null}
        {visible.map((n) => (
          <TreeRow
            key={n.ordinal} n={n} open={!collapsed.has(n.path)} selected={n.ordinal === selected} hovered={n.ordinal === hovered}
            filtered={filter !== ''} onToggle={() => toggle(n)}
          />
        ))}
      </div>
      <NodeAttributes nodes={nodes} node={selected !== null ? nodes[selected] ?? null : null} />
    </div>
  );
}

function matches(n: FlatNode, q: string): boolean {
  const d = n.node;
  return [d.text, d.contentDesc, d.resourceId, d.className].some((v) => v.toLowerCase().includes(q));
}

/** The rows to show: skipping collapsed subtrees, or with a filter, the matches and their ancestors. */
function visibleRows(nodes: readonly FlatNode[], collapsed: ReadonlySet<string>, filter: string): FlatNode[] {
  const q = filter.trim().toLowerCase();
  if (q) {
    const keep = new Set<number>();
    for (const n of nodes) {
      if (!matches(n, q)) continue;
      for (let o: number | null = n.ordinal; o !== null && !keep.has(o); o = nodes[o]!.parentOrdinal) keep.add(o);
    }
    return nodes.filter((n) => keep.has(n.ordinal));
  }
  const out: FlatNode[] = [];
  for (let i = 0; i < nodes.length; ) {
    const n = nodes[i]!;
    out.push(n);
    i = collapsed.has(n.path) ? n.end : i + 1;
  }
  return out;
}

function TreeRow(props: { n: FlatNode; open: boolean; selected: boolean; hovered: boolean; filtered: boolean; onToggle(): void }) {
  const { n } = props;
  const d = n.node;
  const cls = ['live-tree-row', props.selected ? 'selected' : '', props.hovered ? 'hovered' : '', d.clickable ? 'clickable' : ''].filter(Boolean).join(' ');
  return (
    <div
      className={cls} data-testid={`tree-node-${n.ordinal}`} data-ordinal={n.ordinal} role="treeitem" aria-selected={props.selected}
      aria-expanded={d.children.length ? props.open : undefined}
      style={{ paddingLeft: 4 + n.depth * 12 }}
      onMouseEnter={() => appStore().getState().hoverNode(n.ordinal)}
      onClick={() => appStore().getState().selectNode(n.ordinal)}
    >
      <span
        className="live-twisty"
        onClick={(e) => {
          e.stopPropagation();
          if (d.children.length && !props.filtered) props.onToggle();
        }}
      >
        {d.children.length ? (props.open || props.filtered ? '▾' : '▸') : ''}
      </span>
      <span className="live-ordinal">{n.ordinal}</span>
      <span className="live-class">{shortClass(d.className)}</span>
      {d.text ? <span className="live-node-text">"{d.text}"</span> : null}
      {d.contentDesc && d.contentDesc !== d.text ? <span className="live-desc">{d.contentDesc}</span> : null}
      {d.resourceId ? <span className="live-id">#{shortId(d.resourceId)}</span> : null}
    </div>
  );
}

/** Copy the node as an action or a selector (Appium Inspector's), with what was copied shown below. */
function CopyNode({ nodes, node }: { nodes: readonly FlatNode[]; node: FlatNode }) {
  const [format, setFormat] = useState<CopyFormat>('workbench');
  const [copied, setCopied] = useState<string | null>(null);
  const text = copyText(nodes, node, format);
  useEffect(() => setCopied(null), [node, format]);
  const copy = async () => {
    if (text === null) return;
    try {
      await navigator.clipboard.writeText(text);
      setCopied('copied');
    } catch {
      // No clipboard (an insecure page, a denied permission): the text is shown below, selected, to copy by hand.
      setCopied('select it below and copy');
    }
  };
  return (
    <div className="live-copy">
      <div className="row">
        <select value={format} data-testid="copy-format" onChange={(e) => setFormat(e.target.value as CopyFormat)} aria-label="Copy the node as">
          {COPY_FORMATS.map((f) => <option key={f} value={f}>{COPY_LABELS[f]}</option>)}
        </select>
        <button data-testid="copy-node" disabled={text === null} onClick={() => void copy()} title="Copy to the clipboard">Copy</button>
        {copied ? <span className="muted small" data-testid="copy-done">{copied}</span> : null}
      </div>
      <code className="mono live-copy-text" data-testid="copy-text">{text ?? 'This node has no resource-id.'}</code>
    </div>
  );
}

function NodeAttributes({ nodes, node }: { nodes: readonly FlatNode[]; node: FlatNode | null }) {
  if (!node) {
    return <div className="live-attributes muted" data-testid="node-attributes">Select a node (click a row, or click the screen in inspect mode) to see its attributes.</div>;
  }
  const b = node.node.bounds;
  const tap = () => {
    const x = Math.floor((b.left + b.right) / 2);
    const y = Math.floor((b.top + b.bottom) / 2);
    void appStore().getState().sendInput({ kind: 'tap', x, y });
  };
  const cover = coveredBy(nodes, node);
  return (
    <div className="live-attributes" data-testid="node-attributes">
      <div className="row">
        <strong>{shortClass(node.node.className)}</strong>
        <span className="muted">element index {node.ordinal} (what actions call it)</span>
        <button data-testid="tap-node" onClick={tap} title="Tap the node's center">Tap</button>
      </div>
      {cover ? (
        <div className="live-notice" role="alert" data-testid="node-covered">
          Covered by another window ({windowName(cover)}, element {cover.ordinal}): a tap at its centre lands on that window, not on this node.
        </div>
      ) : null}
      <CopyNode nodes={nodes} node={node} />
      <table>
        <tbody>
          {nodeAttributes(node).map(([k, v]) => (
            <tr key={k} data-attr={k}>
              <th>{k}</th>
              <td className={v === 'true' ? 'mono live-true' : 'mono'}>{v}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
