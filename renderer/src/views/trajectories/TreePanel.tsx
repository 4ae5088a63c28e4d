import { memo, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { Bounds } from '../../../../core/api/types.js';
import { nodeLabel, prettyXml, shortClass, type ParsedTree, type TreeNode } from './tree-model.js';

/**
 * The accessibility tree the step was taken on, as Appium Inspector shows one: collapsible nodes,
 * the action's target highlighted (and its ancestors opened), hover outlines a node on the screen,
 * click shows its attributes. Or the stored XML, indented.
 */
interface Props {
  /** Why there is no tree to show (not recorded, loading, failed), when `tree` is null. */
  status: string;
  tree: ParsedTree | null;
  targetOrdinal: number | null;
  onHover(b: Bounds | null): void;
}

interface NodeProps {
  node: TreeNode;
  collapsed: ReadonlySet<number>;
  target: number | null;
  selected: number | null;
  onToggle(ordinal: number): void;
  onSelect(ordinal: number): void;
  onHover(b: Bounds | null): void;
}

const NodeView = memo(function NodeView(p: NodeProps) {
  const n = p.node;
  const open = !p.collapsed.has(n.ordinal);
  const label = nodeLabel(n);
  const cls = ['replay-node', n.ordinal === p.target ? 'target' : '', n.ordinal === p.selected ? 'selected' : ''].filter(Boolean).join(' ');
  return (
    <li>
      <div
        className={cls}
        role="treeitem"
        aria-selected={n.ordinal === p.selected}
        aria-expanded={n.children.length ? open : undefined}
        data-ordinal={n.ordinal}
        data-testid={n.ordinal === p.target ? 'replay-tree-target' : undefined}
        onMouseEnter={() => p.onHover(n.bounds)}
        onMouseLeave={() => p.onHover(null)}
        onClick={() => p.onSelect(n.ordinal)}
      >
        {n.children.length ? (
          <button className="replay-twisty" tabIndex={-1} aria-label={open ? 'Collapse' : 'Expand'} aria-expanded={open}
            onClick={(e) => { e.stopPropagation(); p.onToggle(n.ordinal); }}>{open ? '▾' : '▸'}</button>
        ) : <span className="replay-twisty" />}
        <span className="replay-node-ord mono">{n.ordinal}</span>
        <span className="replay-node-class">{shortClass(n)}</span>
        {label ? <span className="replay-node-label"> “{label}”</span> : null}
        {n.attrs.clickable === 'true' ? <span className="replay-node-flag" title="clickable" aria-label="clickable" /> : null}
      </div>
      {open && n.children.length ? (
        <ul>{n.children.map((c) => <NodeView key={c.ordinal} {...p} node={c} />)}</ul>
      ) : null}
    </li>
  );
});

export function TreePanel({ status, tree, targetOrdinal, onHover }: Props) {
  const [mode, setMode] = useState<'tree' | 'xml'>('tree');
  const [collapsed, setCollapsed] = useState<ReadonlySet<number>>(new Set());
  const [selected, setSelected] = useState<number | null>(null);
  const ref = useRef<HTMLDivElement>(null);
  // Each step's tree starts with its target's ancestors open and the target scrolled into view.
  useEffect(() => {
    setSelected(null);
    if (!tree || targetOrdinal === null) return;
    setCollapsed((c) => {
      const next = new Set(c);
      for (let n = tree.nodes[targetOrdinal]?.parent; n; n = n.parent) next.delete(n.ordinal);
      return next;
    });
  }, [tree, targetOrdinal]);
  useEffect(() => {
    const el = ref.current?.querySelector<HTMLElement>('.replay-node.target');
    if (el && ref.current) ref.current.scrollTop = el.offsetTop - ref.current.clientHeight / 3;
  }, [tree, targetOrdinal, mode]);
  const xml = useMemo(() => (tree && mode === 'xml' ? prettyXml(tree) : ''), [tree, mode]);
  const toggle = (o: number) => setCollapsed((c) => {
    const next = new Set(c);
    if (next.has(o)) next.delete(o);
    else next.add(o);
    return next;
  });
  const sel = selected !== null ? tree?.nodes[selected] : undefined;
  // One tab stop: the arrow keys move through the rows shown (Right opens or goes in, Left closes or goes up), as a file tree.
  const onKey = (e: KeyboardEvent) => {
    if (!tree || mode !== 'tree') return;
    const rows: TreeNode[] = [];
    const walk = (n: TreeNode) => {
      rows.push(n);
      if (!collapsed.has(n.ordinal)) n.children.forEach(walk);
    };
    tree.roots.forEach(walk);
    const at = rows.findIndex((n) => n.ordinal === (selected ?? targetOrdinal));
    const cur = at >= 0 ? rows[at]! : undefined;
    const go = (n: TreeNode | undefined | null) => {
      if (!n) return;
      setSelected(n.ordinal);
      onHover(n.bounds);
      ref.current?.querySelector(`[data-ordinal="${n.ordinal}"]`)?.scrollIntoView({ block: 'nearest' });
    };
    switch (e.key) {
      case 'ArrowDown':
        go(rows[Math.min(rows.length - 1, at + 1)]);
        break;
      case 'ArrowUp':
        go(rows[Math.max(0, at - 1)]);
        break;
      case 'Home':
        go(rows[0]);
        break;
      case 'End':
        go(rows.at(-1));
        break;
      case 'ArrowRight':
        if (cur?.children.length) {
          if (collapsed.has(cur.ordinal)) toggle(cur.ordinal);
          else go(cur.children[0]);
        }
        break;
      case 'ArrowLeft':
        if (cur?.children.length && !collapsed.has(cur.ordinal)) toggle(cur.ordinal);
        else go(cur?.parent);
        break;
      default:
        return;
    }
    e.preventDefault();
    // The replay's own ←/→ step through the episode: not while the tree has the keys.
    e.stopPropagation();
  };
  return (
    <section className="replay-tree-panel" data-testid="replay-tree">
      <h3>
        Accessibility tree {tree ? <span className="muted">({tree.nodes.length} nodes)</span> : null}
        <span className="replay-section-extra">
          <button className={mode === 'tree' ? 'active' : ''} onClick={() => setMode('tree')} aria-pressed={mode === 'tree'}>Tree</button>
          <button className={mode === 'xml' ? 'active' : ''} onClick={() => setMode('xml')} aria-pressed={mode === 'xml'}>XML</button>
          {mode === 'tree' && tree ? <>
            <button className="link" onClick={() => setCollapsed(new Set())} title="Expand all">+</button>
            <button className="link" onClick={() => setCollapsed(new Set(tree.nodes.filter((n) => n.children.length).map((n) => n.ordinal)))} title="Collapse all">−</button>
          </> : null}
        </span>
      </h3>
      <div className="replay-tree-body" ref={ref} role="tree" tabIndex={0} aria-label="Accessibility tree" onKeyDown={onKey} data-testid="replay-tree-body">
        {!tree ? <div className="muted">{status}</div>
          : mode === 'xml' ? <pre className="replay-xml mono">{xml}</pre>
          : <ul className="replay-tree-root">{tree.roots.map((r) => (
            <NodeView key={r.ordinal} node={r} collapsed={collapsed} target={targetOrdinal} selected={selected}
              onToggle={toggle} onSelect={setSelected} onHover={onHover} />
          ))}</ul>}
      </div>
      {sel ? (
        <table className="replay-table replay-attrs" data-testid="replay-node-attrs">
          <tbody>
            <tr><th title="What actions call this element: its position in document order">element #</th><td className="mono">{sel.ordinal}</td></tr>
            {Object.entries(sel.attrs).filter(([, v]) => v !== '' && v !== 'false').map(([k, v]) => (
              <tr key={k}><th>{k}</th><td className="mono">{v}</td></tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
