import { useEffect, useState } from 'react';
import type { StoredEpisodeStatus } from '../../../../core/api/types.js';
import { useApp } from '../../store/index.js';
import { EMPTY_QUERY } from '../../store/slices/trajectories.js';
import { formatCount, fromDateInput, RUN_KIND_LABELS, runLabel, toDateInput } from './format.js';

/** Statuses in the order a researcher scans them (outcomes first). */
export const STATUS_ORDER: StoredEpisodeStatus[] = ['success', 'failure', 'error', 'interrupted', 'running'];

/** The status facet: one toggle per status with how many episodes the other filters leave in it. */
function StatusFacet() {
  const selected = useApp((s) => s.episodeQuery.status);
  const counts = useApp((s) => s.episodeCounts);
  const setQuery = useApp((s) => s.setEpisodeQuery);
  const all = counts ? STATUS_ORDER.reduce((n, st) => n + counts[st], 0) : null;
  const toggle = (st: StoredEpisodeStatus, only: boolean) => {
    const next = only ? [st] : selected.includes(st) ? selected.filter((x) => x !== st) : [...selected, st];
    void setQuery({ status: next });
  };
  return (
    <div className="traj-facet" role="group" aria-label="Status" data-testid="filter-status">
      <button className={selected.length === 0 ? 'traj-chip active' : 'traj-chip'} onClick={() => void setQuery({ status: [] })}
        aria-pressed={selected.length === 0} data-testid="status-all">
        All {all !== null ? <span className="traj-chip-count">{formatCount(all)}</span> : null}
      </button>
      {STATUS_ORDER.map((st) => (
        <button
          key={st}
          className={`traj-chip traj-status-${st}${selected.includes(st) ? ' active' : ''}`}
          aria-pressed={selected.includes(st)}
          title="Click to toggle; Alt-click to show only this status"
          onClick={(e) => toggle(st, e.altKey)}
          data-testid={`status-count-${st}`}
        >
          <span className={`traj-dot traj-status-${st}`} aria-hidden />{st}{' '}
          <span className="traj-chip-count">{counts ? formatCount(counts[st]) : '…'}</span>
        </button>
      ))}
    </div>
  );
}

type FacetOption = { value: string; label: string; group?: string };

/** Options under their groups, in the order the groups first appear (ungrouped ones first). */
function grouped(options: FacetOption[]) {
  const groups = [...new Set(options.map((o) => o.group))];
  return groups.map((g) => {
    const items = options.filter((o) => o.group === g).map((o) => <option key={o.value} value={o.value}>{o.label}</option>);
    return g === undefined ? items : <optgroup key={g} label={g}>{items}</optgroup>;
  });
}

/** A select over one facet's values ('' for any). */
function FacetSelect(props: { testId: string; label: string; value: string; options: FacetOption[]; onChange(v: string): void }) {
  return (
    <label className="traj-filter">
      <span>{props.label}</span>
      <select value={props.value} onChange={(e) => props.onChange(e.target.value)} data-testid={props.testId}>
        <option value="">Any</option>
        {grouped(props.options)}
        {/* A value no longer among the options (the store changed) stays selectable. */}
        {props.value && !props.options.some((o) => o.value === props.value) ? <option value={props.value}>{props.value}</option> : null}
      </select>
    </label>
  );
}

export function EpisodeFilters() {
  const q = useApp((s) => s.episodeQuery);
  const facets = useApp((s) => s.facets);
  const problem = useApp((s) => s.episodeQueryProblem);
  const setQuery = useApp((s) => s.setEpisodeQuery);
  const [search, setSearch] = useState(q.search);
  // Typing waits for a pause before asking the store.
  useEffect(() => {
    if (search === q.search) return;
    const t = setTimeout(() => void setQuery({ search }), 250);
    return () => clearTimeout(t);
  }, [search, q.search, setQuery]);
  useEffect(() => setSearch(q.search), [q.search]);
  const opts = (xs: string[] | undefined) => (xs ?? []).map((x) => ({ value: x, label: x }));
  // The sort is the table's, not a filter: clearing the filters keeps it.
  const dirty = JSON.stringify({ ...q, sort: null }) !== JSON.stringify(EMPTY_QUERY);
  const runIterations = facets?.runs.find((r) => r.id === q.runId)?.iterations ?? [];
  const openRunChart = useApp((s) => s.openRunChart);
  return (
    <div className="traj-filters">
      <StatusFacet />
      <div className="traj-filter-row">
        <FacetSelect testId="filter-template" label="Task" value={q.templateId ?? ''} options={opts(facets?.templates)}
          onChange={(v) => void setQuery({ templateId: v || null })} />
        <FacetSelect testId="filter-app" label="App" value={q.app ?? ''} options={opts(facets?.apps)}
          onChange={(v) => void setQuery({ app: v || null })} />
        <FacetSelect testId="filter-run" label="Run" value={q.runId === null ? '' : String(q.runId)}
          options={[...(facets?.runs ?? [])].sort((a, b) => a.kind.localeCompare(b.kind)).map((r) => ({ value: String(r.id), label: runLabel(r), group: RUN_KIND_LABELS[r.kind] }))}
          onChange={(v) => void setQuery({ runId: v ? Number(v) : null })} />
        {runIterations.length ? (
          <FacetSelect testId="filter-iteration" label="Iteration" value={q.iteration === null ? '' : String(q.iteration)}
            options={runIterations.map((i) => ({ value: String(i), label: String(i) }))}
            onChange={(v) => void setQuery({ iteration: v ? Number(v) : null })} />
        ) : null}
        {q.runId !== null && q.iteration !== null ? (
          <button className="link" data-testid="iteration-chart" title="The training run's charts, marked at this iteration"
            onClick={() => openRunChart(q.runId!, q.iteration!)}>Chart at iteration {q.iteration}</button>
        ) : null}
        <FacetSelect testId="filter-policy" label="Policy" value={q.policy ?? ''} options={opts(facets?.policies)}
          onChange={(v) => void setQuery({ policy: v || null })} />
        <label className="traj-filter">
          <span>From</span>
          <input type="date" value={toDateInput(q.since)} data-testid="filter-since"
            onChange={(e) => void setQuery({ since: fromDateInput(e.target.value) })} />
        </label>
        <label className="traj-filter">
          <span>To</span>
          <input type="date" value={toDateInput(q.until, true)} data-testid="filter-until"
            onChange={(e) => void setQuery({ until: fromDateInput(e.target.value, true) })} />
        </label>
        <label className="traj-filter traj-search">
          <span>Instruction</span>
          <input type="search" placeholder="Search instructions…" value={search} data-testid="filter-search"
            onChange={(e) => setSearch(e.target.value)}
            onKeyDown={(e) => e.key === 'Enter' && void setQuery({ search })} />
        </label>
        {q.cell ? (
          <span className="traj-chip active" data-testid="filter-cell" title="Episodes of one cell of the Failures table">
            {q.cell.label} <span className="traj-chip-count">{formatCount(q.cell.episodeIds.length)}</span>{' '}
            <button className="link" aria-label="Show every episode again" onClick={() => void setQuery({ cell: null })} data-testid="filter-cell-clear">×</button>
          </span>
        ) : null}
        <button className="link" disabled={!dirty} onClick={() => void setQuery({ ...EMPTY_QUERY, sort: q.sort })} data-testid="filter-clear">Clear filters</button>
      </div>
      {problem ? <div className="traj-problem" role="alert" data-testid="filter-problem">{problem}</div> : null}
    </div>
  );
}
