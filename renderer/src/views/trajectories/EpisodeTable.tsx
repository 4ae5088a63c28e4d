import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { EpisodeSortKey, EpisodeSummary } from '../../../../core/api/types.js';
import { useApp } from '../../store/index.js';
import { episodeAt } from '../../store/slices/trajectories.js';
import { formatCount } from './format.js';
import { episodeColumns, gridTemplate, type EpisodeColumn } from './episode-columns.js';
import { rowWindow, scrollToRow } from './virtual.js';

/**
 * The episode table, virtualized: a spacer as tall as every row, and only the rows in view (plus
 * an overscan margin) rendered at their offsets. Rows whose page has not arrived show as loading;
 * rendering asks the slice for the pages in view, so scrolling fetches only what it passes over.
 */
export const ROW_HEIGHT = 28;
const HEADER_HEIGHT = 30;
const OVERSCAN = 12;

interface RowProps {
  index: number;
  ep: EpisodeSummary | undefined;
  columns: readonly EpisodeColumn[];
  grid: string;
  selected: boolean;
  cursor: boolean;
  onOpen(id: number): void;
  onToggle(id: number): void;
  onCursor(index: number): void;
}

const Row = memo(function Row({ index, ep, columns, grid, selected, cursor, onOpen, onToggle, onCursor }: RowProps) {
  const style = { top: index * ROW_HEIGHT, height: ROW_HEIGHT, gridTemplateColumns: grid };
  if (!ep) {
    return <div className="traj-row loading" style={style} role="row" aria-rowindex={index + 2}><span className="muted">Loading…</span></div>;
  }
  return (
    <div
      className={`traj-row${cursor ? ' cursor' : ''}${selected ? ' selected' : ''}`}
      style={style}
      role="row"
      aria-rowindex={index + 2}
      aria-selected={selected}
      data-testid={`episode-row-${ep.id}`}
      onClick={() => {
        onCursor(index);
        onOpen(ep.id);
      }}
    >
      <span role="gridcell" onClick={(e) => e.stopPropagation()}>
        <input type="checkbox" checked={selected} onChange={() => onToggle(ep.id)} aria-label={`Select episode ${ep.id}`} tabIndex={-1} />
      </span>
      {columns.map((c) => {
        const { title, content } = c.cell(ep);
        // The task's tooltip is the instruction too: what the row is about.
        const full = c.id === 'task' ? `${title}: ${ep.instruction}` : title;
        return (
          <span key={c.id} role="gridcell" className={`traj-cell${c.numeric ? ' num' : ''}`} title={full} data-col={c.id}
            {...(c.id === 'group' && ep.rollout ? { 'data-testid': `rollout-${ep.id}` } : {})}>
            {content}
          </span>
        );
      })}
    </div>
  );
});

/** The header: each sortable column's label is a button (ascending, descending, then the default order again). */
function Head({ columns, grid }: { columns: readonly EpisodeColumn[]; grid: string }) {
  const sort = useApp((s) => s.episodeQuery.sort);
  const setQuery = useApp((s) => s.setEpisodeQuery);
  const next = (by: EpisodeSortKey) => (sort?.by !== by ? { by, dir: 'asc' as const } : sort.dir === 'asc' ? { by, dir: 'desc' as const } : null);
  return (
    <div className="traj-row traj-head" role="row" aria-rowindex={1} style={{ height: HEADER_HEIGHT, gridTemplateColumns: grid }}>
      <span role="columnheader" />
      {columns.map((c) => {
        const dir = sort && sort.by === c.sort ? sort.dir : null;
        return (
          <span key={c.id} role="columnheader" className={`traj-cell${c.numeric ? ' num' : ''}`} aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : 'none'}>
            {c.sort ? (
              <button type="button" className="traj-sort" data-testid={`sort-${c.id}`} title={`Sort by ${c.label.toLowerCase()}`}
                onClick={() => void setQuery({ sort: next(c.sort!) })}>
                {c.label}{dir === 'asc' ? ' ▲' : dir === 'desc' ? ' ▼' : ''}
              </button>
            ) : c.label}
          </span>
        );
      })}
    </div>
  );
}

/** Whether the list is a training run's rollouts (its iterations are known): their columns are shown. */
function useRolloutColumns(): boolean {
  return useApp((s) => s.episodeQuery.iteration !== null
    || (s.episodeQuery.runId !== null && (s.facets?.runs.find((r) => r.id === s.episodeQuery.runId)?.iterations.length ?? 0) > 0));
}

export function EpisodeTable() {
  const total = useApp((s) => s.episodeTotal);
  const pages = useApp((s) => s.episodePages);
  const gen = useApp((s) => s.episodeGen);
  const selection = useApp((s) => s.episodeSelection);
  const problem = useApp((s) => s.episodeQueryProblem);
  const ensure = useApp((s) => s.ensureEpisodeRows);
  const openEpisode = useApp((s) => s.openEpisode);
  const toggle = useApp((s) => s.toggleEpisodeSelected);
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  const [cursor, setCursor] = useState<number | null>(null);
  const rollouts = useRolloutColumns();
  const columns = useMemo(() => episodeColumns(rollouts), [rollouts]);
  const grid = gridTemplate(columns);
  const rows = total ?? 0;
  const bodyHeight = Math.max(0, viewport - HEADER_HEIGHT);
  const win = rowWindow({ scrollTop, viewportHeight: bodyHeight, rowHeight: ROW_HEIGHT, rowCount: rows, overscan: OVERSCAN });

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setViewport(el.clientHeight);
    const ro = new ResizeObserver(() => setViewport(el.clientHeight));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  // A new query starts at the top.
  useEffect(() => {
    if (ref.current) ref.current.scrollTop = 0;
    setScrollTop(0);
    setCursor(null);
  }, [gen]);
  useEffect(() => {
    void ensure(win.first, win.last);
  }, [ensure, win.first, win.last, gen, total]);

  const open = useCallback((id: number) => void openEpisode(id), [openEpisode]);
  const selected = new Set(selection);
  const moveTo = (i: number) => {
    const row = Math.max(0, Math.min(rows - 1, i));
    setCursor(row);
    const el = ref.current;
    if (el) el.scrollTop = scrollToRow(row, el.scrollTop, bodyHeight, ROW_HEIGHT);
  };
  const onKey = (e: KeyboardEvent) => {
    if (rows === 0 || (e.target as HTMLElement).tagName === 'INPUT') return;
    const page = Math.max(1, Math.floor(bodyHeight / ROW_HEIGHT) - 1);
    const at = cursor ?? -1;
    const keys: Record<string, () => void> = {
      ArrowDown: () => moveTo(at + 1),
      ArrowUp: () => moveTo(at - 1),
      PageDown: () => moveTo(at + page),
      PageUp: () => moveTo(at - page),
      Home: () => moveTo(0),
      End: () => moveTo(rows - 1),
      Enter: () => {
        const ep = cursor !== null ? episodeAt(pages, cursor) : undefined;
        if (ep) void openEpisode(ep.id);
      },
      ' ': () => {
        const ep = cursor !== null ? episodeAt(pages, cursor) : undefined;
        if (ep) toggle(ep.id);
      },
    };
    const action = keys[e.key];
    if (action) {
      e.preventDefault();
      action();
    }
  };

  const rendered = [];
  for (let i = win.first; i <= win.last; i++) {
    const ep = episodeAt(pages, i);
    rendered.push(
      <Row key={i} index={i} ep={ep} columns={columns} grid={grid} selected={ep ? selected.has(ep.id) : false} cursor={cursor === i}
        onOpen={open} onToggle={toggle} onCursor={setCursor} />,
    );
  }
  return (
    <div
      ref={ref}
      className="traj-table"
      role="grid"
      aria-label="Episodes"
      aria-rowcount={rows + 1}
      tabIndex={0}
      onKeyDown={onKey}
      onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
      data-testid="episode-table"
      data-focus-home
      data-rendered-rows={win.last - win.first + 1}
    >
      <Head columns={columns} grid={grid} />
      <div className="traj-spacer" style={{ height: win.totalHeight }}>{rendered}</div>
      {problem ? <div className="traj-empty muted">Fix the filter above to list episodes.</div> : null}
      {total === 0 && !problem ? <div className="traj-empty muted">No episodes match. Run a suite (awb suite run) or a session in the Agent view, or clear the filters.</div> : null}
      {total === null ? <div className="traj-empty muted"><span className="spinner" aria-hidden /> Loading episodes…</div> : null}
    </div>
  );
}

/** The total, the selection, and what the table is showing. */
export function TableSummary() {
  const total = useApp((s) => s.episodeTotal);
  const loaded = useApp((s) => Object.values(s.episodePages).reduce((n, p) => n + p.length, 0));
  return (
    <span className="traj-total" data-testid="episode-total" data-total={total ?? ''}>
      {total === null ? 'Loading…' : `${formatCount(total)} episode${total === 1 ? '' : 's'}`}
      {total !== null && loaded < total ? <span className="muted"> ({formatCount(loaded)} loaded)</span> : null}
    </span>
  );
}
