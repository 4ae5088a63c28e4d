import { useEffect, useMemo, useRef } from 'react';
import type { Trajectory } from '../../../../core/api/types.js';
import type { RewardDetail } from '../../../../core/rewards/details.js';
import { useApp } from '../../store/index.js';
import { PANEL_KINDS } from '../../store/slices/rewards.js';
import { RewardDetailPanels } from './RewardDetails.js';
import { formatReward, rewardTable, type RewardCell, type RewardTable } from './rewards-model.js';

/**
 * The replay viewer's Rewards panel: steps × components, each cell the value and its explanation
 * (an unscored step shows "unscored" and why, never 0), a total row, the current step highlighted
 * and following the timeline (a row click moves the timeline); a Compute control that recomputes the
 * ticked components (and can store them), and each detailed component's panel below.
 */

const signClass = (v: number | null) => (v === null ? 'rewards-unscored' : v > 0 ? 'replay-pos' : v < 0 ? 'replay-neg' : '');

function Cell({ c, testId }: { c: RewardCell | undefined; testId: string }) {
  if (!c) return <td className="muted" data-testid={testId}>—</td>;
  return (
    <td data-testid={testId}>
      <span className={`mono ${signClass(c.value)}`}>{formatReward(c.value)}</span>
      <div className="rewards-why">{c.explanation}</div>
    </td>
  );
}

function ComputeControl() {
  const choice = useApp((s) => s.rewardChoice);
  const options = useApp((s) => s.rewardOptions);
  const computing = useApp((s) => s.rewardsPanel?.computing ?? false);
  const toggle = useApp((s) => s.toggleRewardKind);
  const setOption = useApp((s) => s.setRewardOption);
  const compute = useApp((s) => s.computeEpisodeRewards);
  return (
    <div className="rewards-compute" data-testid="rewards-compute-control">
      {PANEL_KINDS.map((k) => (
        <label key={k} className="rewards-kind">
          <input type="checkbox" checked={choice[k]} onChange={(e) => toggle(k, e.target.checked)} data-testid={`rewards-kind-${k}`} /> {k}
        </label>
      ))}
      {choice.progrm ? (
        <input className="rewards-option" placeholder="ProgRM checkpoint (default)" value={options.progrmCheckpoint}
          onChange={(e) => setOption('progrmCheckpoint', e.target.value)} title="A progress model under the data folder; empty: progrm's default"
          data-testid="rewards-progrm-checkpoint" />
      ) : null}
      {choice.shepherd ? (
        <input className="rewards-option" placeholder="judge checkpoint (shepherd/judge.json)" value={options.shepherdCheckpoint}
          onChange={(e) => setOption('shepherdCheckpoint', e.target.value)} title="A builtin judge under the data folder; empty: shepherd/judge.json"
          data-testid="rewards-shepherd-checkpoint" />
      ) : null}
      <button onClick={() => void compute()} disabled={computing} data-testid="rewards-compute">{computing ? 'Computing…' : 'Compute'}</button>
      <button onClick={() => void compute({ write: true })} disabled={computing} title="Recompute and store each component's values under its kind"
        data-testid="rewards-compute-write">Compute &amp; store</button>
    </div>
  );
}

function TableView({ table, t, step }: { table: RewardTable; t: Trajectory; step: number }) {
  const setStep = useApp((s) => s.setReplayStep);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // Keep the current step's row in view as the timeline moves (inside the table's own scroll box).
    const row = box.current?.querySelector<HTMLElement>('tr.current');
    const b = box.current;
    if (row && b && (row.offsetTop < b.scrollTop || row.offsetTop + row.offsetHeight > b.scrollTop + b.clientHeight)) {
      b.scrollTop = row.offsetTop - b.clientHeight / 2;
    }
  }, [step, table]);
  if (!table.kinds.length) return <div className="muted" data-testid="rewards-empty">No rewards stored for this episode: tick components and Compute.</div>;
  const computed = table.source === 'computed';
  return (
    <div className="rewards-table-box" ref={box}>
      <table className="replay-table rewards-table" data-testid="rewards-table">
        <thead>
          <tr>
            <th>Step</th><th>Action</th>
            {table.kinds.map((k) => <th key={k} data-testid={`rewards-col-${k}`}>{k}{computed ? <span className="muted"> ×{table.weights[k]}</span> : null}</th>)}
            {computed ? <th>Total</th> : null}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((r) => (
            <tr key={r.step} className={r.step === step ? 'current' : undefined} onClick={() => void setStep(r.step)} data-testid={`rewards-row-${r.step}`}>
              <td className="mono">{r.step + 1}</td>
              <td className="rewards-action">{t.steps[r.step]?.description ?? <span className="muted">no valid action</span>}</td>
              {table.kinds.map((k) => <Cell key={k} c={r.cells[k]} testId={`rewards-cell-${r.step}-${k}`} />)}
              {r.total ? <Cell c={r.total} testId={`rewards-cell-${r.step}-total`} /> : null}
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr className="rewards-total-row" data-testid="rewards-total-row">
            <td colSpan={2}>Total</td>
            {table.kinds.map((k) => {
              const x = table.totals[k]!;
              return (
                <td key={k} className="mono" data-testid={`rewards-total-${k}`}>
                  {formatReward(x.sum)}{x.unscored ? <div className="rewards-why">{x.unscored} unscored, not counted</div> : null}
                </td>
              );
            })}
            {table.total ? (
              <td className="mono" data-testid="rewards-total-total">
                {formatReward(table.total.sum)}{table.total.unscored ? <div className="rewards-why">{table.total.unscored} unscored, not counted</div> : null}
              </td>
            ) : null}
          </tr>
        </tfoot>
      </table>
    </div>
  );
}

export function RewardsPanel({ t, step }: { t: Trajectory; step: number }) {
  const panel = useApp((s) => s.rewardsPanel);
  const load = useApp((s) => s.loadEpisodeRewards);
  const id = t.episode.id;
  useEffect(() => {
    void load(id);
  }, [id, load]);
  const view = panel?.episodeId === id ? panel.view : null;
  const table = useMemo(() => (view ? rewardTable(view) : null), [view]);
  const details = useMemo(() => Object.values(view?.computed?.details ?? {}).filter((d): d is RewardDetail => d !== undefined), [view]);
  const source = !view ? '' : view.computed ? (view.written ? 'recomputed and stored' : 'recomputed, not stored') : 'as stored';
  return (
    <section className="replay-section rewards-panel" data-testid="rewards-panel">
      <h3>Rewards<span className="replay-section-extra" data-testid="rewards-source">{source}{view && view.group.length > 1 ? ` · group of ${view.group.length}` : ''}</span></h3>
      <ComputeControl />
      {panel?.error ? <div className="replay-error rewards-error" role="alert" data-testid="rewards-error">{panel.error}</div> : null}
      {table ? <TableView table={table} t={t} step={step} /> : panel?.error ? null : <div className="muted"><span className="spinner" aria-hidden /> Loading rewards…</div>}
      <RewardDetailPanels details={details} step={step} />
    </section>
  );
}
