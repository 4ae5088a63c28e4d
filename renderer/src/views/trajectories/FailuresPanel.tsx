import { useState } from 'react';
import type { EpisodeFacets, Flip, RunFailures } from '../../../../core/api/types.js';
import type { RunFailuresView } from '../../../../core/api/api.js';
import { useApp } from '../../store/index.js';
import { formatCount, runLabel } from './format.js';

/**
 * The run the filter selects, by failure class (docs/failure-analysis.md "Taxonomy"): the
 * class × app × template × difficulty table, where a click on a count lists those episodes; with a
 * second run chosen, the instances that flipped each way with their failure classes. Computed on
 * demand (a GRPO run stores thousands of episodes), in the workbench's worker, on the newest N
 * failed episodes with N shown and editable, with progress while it runs.
 */

const words = (c: string) => c.replace(/_/g, ' ');
const NO_RUNS: EpisodeFacets['runs'] = [];
/** The bound the panel starts with: the API's own default (DEFAULT_FAILURES_LIMIT in core/api/api.ts). */
const DEFAULT_LIMIT = 500;

function Taxonomy({ r }: { r: RunFailures }) {
  const show = useApp((s) => s.showFailureCell);
  const active = useApp((s) => s.episodeQuery.cell?.label ?? null);
  const classes = Object.entries(r.byClass).filter(([, n]) => n > 0);
  return (
    <>
      <div className="failures-summary" data-testid="failures-summary">
        {formatCount(r.failed)} of {formatCount(r.episodes)} episodes failed
        {r.explained < r.failed ? <span data-testid="failures-bounded"> (the newest {formatCount(r.explained)} classified)</span> : null}
        {classes.length ? <>: {classes.map(([c, n]) => `${words(c)} ${n}`).join(' · ')}</> : null}
      </div>
      {r.cells.length ? (
        <table className="replay-table failures-table" data-testid="failures-table">
          <thead><tr><th>Class</th><th>App</th><th>Template</th><th>Difficulty</th><th>Episodes</th></tr></thead>
          <tbody>
            {r.cells.map((c, i) => (
              <tr key={i} data-testid={`failures-cell-${i}`} data-class={c.class}>
                <td>{words(c.class)}</td>
                <td>{c.app ?? '—'}</td>
                <td className="mono">{c.templateId}</td>
                <td>{c.difficulty ?? '—'}</td>
                <td>
                  <button className="link" onClick={() => void show(c)} title="List these episodes" data-testid={`failures-cell-${i}-count`}
                    aria-pressed={active !== null && active.startsWith(`${words(c.class)} · ${c.templateId}`)}>
                    {c.count}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

function FlipRows({ title, flips, testId }: { title: string; flips: Flip[]; testId: string }) {
  const open = useApp((s) => s.openEpisode);
  const side = (x: Flip['before']) => (
    <>
      {x.outcome}{x.classes.length ? <span className="muted"> ({x.classes.map(words).join(', ')})</span> : null}{' '}
      {x.episodeIds.map((id) => (
        <button key={id} className="link mono" onClick={() => void open(id)} data-testid={`flip-episode-${id}`}>#{id}</button>
      ))}
    </>
  );
  return (
    <div data-testid={testId}>
      <h4>{title} ({flips.length})</h4>
      {flips.length ? (
        <table className="replay-table">
          <thead><tr><th>Template</th><th>Seed</th><th>This run</th><th>The other</th></tr></thead>
          <tbody>
            {flips.map((f) => (
              <tr key={`${f.templateId}:${f.seed}`}>
                <td className="mono">{f.templateId}</td><td className="mono">{f.seed}</td><td>{side(f.before)}</td><td>{side(f.after)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : <span className="muted">none</span>}
    </div>
  );
}

function Flips({ v, vsRunId }: { v: RunFailuresView; vsRunId: number }) {
  const c = v.comparison;
  if (!c) return null;
  return (
    <div className="failures-flips" data-testid="failures-flips">
      <div className="muted">
        {c.shared} instances in both runs · still failing {c.stillFailing} · still succeeding {c.stillSucceeding}
        {c.onlyBefore || c.onlyAfter ? ` · only in this run ${c.onlyBefore}, only in #${vsRunId} ${c.onlyAfter}` : ''}
      </div>
      <FlipRows title={`Fixed in #${vsRunId}`} flips={c.fixed} testId="failures-fixed" />
      <FlipRows title={`Broke in #${vsRunId}`} flips={c.broke} testId="failures-broke" />
    </div>
  );
}

/** The running analysis's progress (the workbench's activity for it), e.g. "120 of 500". */
function Progress({ runId }: { runId: number }) {
  const a = useApp((s) => Object.values(s.activities).findLast((x) => x.state === 'running' && x.label.startsWith(`Failure analysis of run ${runId}`)));
  return (
    <span className="muted" data-testid="failures-progress">
      <span className="spinner" aria-hidden /> Classifying the run's failures{a?.total ? ` — ${formatCount(a.done)} of ${formatCount(a.total)}` : '…'}
    </span>
  );
}

export function FailuresPanel() {
  const runId = useApp((s) => s.episodeQuery.runId);
  const runs = useApp((s) => s.facets?.runs ?? NO_RUNS);
  const failures = useApp((s) => s.failures);
  const load = useApp((s) => s.loadRunFailures);
  const [limit, setLimit] = useState(DEFAULT_LIMIT);
  if (runId === null) return null;
  const mine = failures?.runId === runId ? failures : null;
  const vsRunId = mine ? mine.vsRunId : null;
  const r = mine?.view?.runs[0];
  return (
    <section className="replay-section traj-failures" data-testid="failures-panel" aria-label="Failures of the run">
      <h3>
        Failures of run #{runId}
        <span className="replay-section-extra">
          <label title="The newest failed episodes to classify (a run may store thousands)">
            newest{' '}
            <input type="number" min={1} max={100000} value={limit} style={{ width: '6em' }} data-testid="failures-limit"
              onChange={(e) => setLimit(Math.max(1, Math.floor(Number(e.target.value)) || 1))} />{' '}
            failures
          </label>{' '}
          <label>
            vs{' '}
            <select value={vsRunId === null ? '' : String(vsRunId)} data-testid="failures-vs"
              title="Another run on the same instances: which ones flipped each way"
              onChange={(e) => void load(runId, e.target.value ? Number(e.target.value) : null, limit)}>
              <option value="">no other run</option>
              {runs.filter((x) => x.id !== runId).map((x) => <option key={x.id} value={x.id}>{runLabel(x, true)}</option>)}
            </select>
          </label>{' '}
          <button onClick={() => void load(runId, vsRunId, limit)} disabled={mine !== null && !mine.view && !mine.error} data-testid="failures-analyse">
            {mine ? 'Analyse again' : 'Analyse failures'}
          </button>
        </span>
      </h3>
      {!mine ? <span className="muted" data-testid="failures-idle">Classify the newest {formatCount(limit)} failed episodes of this run by failure class.</span>
        : mine.error ? <div className="replay-error" role="alert" data-testid="failures-error">Could not analyse the run — {mine.error}</div>
          : !r ? <Progress runId={runId} />
            : <>
              <Taxonomy r={r} />
              {vsRunId !== null && mine.view ? <Flips v={mine.view} vsRunId={vsRunId} /> : null}
            </>}
    </section>
  );
}
