import type { EvaluationInfo, GroupStats } from '../../../../core/api/types.js';
import { appStore, useApp } from '../../store/index.js';

const SPLIT_OPTIONS = ['unseen-instance', 'unseen-template', 'unseen-app', 'all'] as const;
const PART_OPTIONS = ['test', 'train', 'adapt'] as const;

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const meanStd = (g: GroupStats) => `${pct(g.mean)} ± ${g.std === null ? 'n/a' : (g.std * 100).toFixed(1)}`;
const signed = (d: number) => `${d >= 0 ? '+' : '−'}${(Math.abs(d) * 100).toFixed(1)} pts`;

function eta(s: number | null): string {
  if (s === null) return 'ETA …';
  return s >= 60 ? `ETA ${Math.floor(s / 60)} min ${s % 60} s` : `ETA ${s} s`;
}

/**
 * Evaluate: a policy (and optionally a "before" to compare with) from the same list as everywhere
 * else, on a split part × seeds, run by the workbench in a worker as `awb eval` runs it (the same
 * store runs), with progress, ETA, and the results per app and difficulty.
 */
export function EvaluatePanel() {
  const form = useApp((s) => s.evaluationForm);
  const policies = useApp((s) => s.agentPolicies).filter((p) => p.evaluable);
  const evaluation = useApp((s) => s.evaluations[0] ?? null);
  const st = appStore().getState();
  const running = evaluation !== null && (evaluation.state === 'running' || evaluation.state === 'stopping');
  return (
    <div className="panel" data-testid="evaluate-panel">
      <h3>Evaluate</h3>
      <div className="row">
        <label>Policy{' '}
          <select data-testid="eval-policy" value={form.policy} onChange={(e) => st.setEvaluationForm({ policy: e.target.value })}>
            <option value="">choose…</option>
            {policies.map((p) => <option key={p.name} value={p.name} title={p.description}>{p.name}</option>)}
          </select>
        </label>
        <label title="Evaluated first on the same instances; the results show after − before">Before{' '}
          <select data-testid="eval-before" value={form.before} onChange={(e) => st.setEvaluationForm({ before: e.target.value })}>
            <option value="">none</option>
            {policies.map((p) => <option key={p.name} value={p.name} title={p.description}>{p.name}</option>)}
          </select>
        </label>
      </div>
      <div className="row">
        <select data-testid="eval-split" value={form.split} onChange={(e) => st.setEvaluationForm({ split: e.target.value as typeof form.split })}>
          {SPLIT_OPTIONS.map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
        <select data-testid="eval-part" value={form.part} onChange={(e) => st.setEvaluationForm({ part: e.target.value as typeof form.part })}>
          {PART_OPTIONS.map((p) => <option key={p} value={p}>{p}</option>)}
        </select>
        <label title="Each seed is one instance of every template (AW-Gen: 30, 7, 1234)">Seeds{' '}
          <input data-testid="eval-seeds" size={10} value={form.seeds} onChange={(e) => st.setEvaluationForm({ seeds: e.target.value })} />
        </label>
        <label title="Only the first N templates (empty: all)">Limit{' '}
          <input data-testid="eval-limit" size={4} value={form.limit} placeholder="all" onChange={(e) => st.setEvaluationForm({ limit: e.target.value })} />
        </label>
        {running
          ? <button type="button" data-testid="eval-stop" disabled={evaluation.state === 'stopping'} onClick={() => void st.stopEvaluation(evaluation.id)}>Stop</button>
          : <button type="button" className="primary" data-testid="eval-start" disabled={!form.policy} onClick={() => void st.startEvaluation()}>Evaluate</button>}
      </div>
      {evaluation ? <EvaluationResults e={evaluation} /> : <div className="muted">No evaluation yet: choose a policy (a checkpoint row&apos;s Evaluate fills it in).</div>}
    </div>
  );
}

function EvaluationResults({ e }: { e: EvaluationInfo }) {
  const st = appStore().getState();
  const [first, second] = e.results;
  const after = second ?? first;
  const before = second ? first : undefined;
  const rows = (title: string, groups: Record<string, GroupStats> | undefined, deltas: Record<string, number> | undefined) =>
    Object.entries(groups ?? {}).map(([k, g]) => (
      <tr key={`${title}-${k}`} data-testid={`eval-row-${title}-${k}`}>
        <td>{title}</td><td>{k}</td><td>{g.episodes}</td>
        {before ? <td>{before.report[title === 'app' ? 'byApp' : 'byDifficulty'][k] ? meanStd(before.report[title === 'app' ? 'byApp' : 'byDifficulty'][k]!) : '-'}</td> : null}
        <td>{meanStd(g)}</td>
        {before ? <td>{deltas?.[k] !== undefined ? signed(deltas[k]!) : '-'}</td> : null}
      </tr>
    ));
  return (
    <div data-testid="eval-results">
      <div className="row" data-testid="eval-progress">
        <progress max={e.total} value={e.done} />
        <span>{e.policies.join(' → ')}: {e.state}, {e.done}/{e.total} episodes{e.state === 'running' ? `, ${eta(e.etaSeconds)}` : ''}</span>
        {e.current ? <span className="muted mono">{e.current}</span> : null}
      </div>
      {e.error ? <div className="settings-error" role="alert">{e.error.name}: {e.error.message}</div> : null}
      {after ? (
        <table data-testid="eval-table">
          <thead><tr><th>Group</th><th /><th>Episodes</th>{before ? <th>Before ({before.policy})</th> : null}<th>{after.policy}</th>{before ? <th>Δ</th> : null}</tr></thead>
          <tbody>
            <tr data-testid="eval-row-overall"><td>overall</td><td /><td>{after.report.overall.episodes}</td>
              {before ? <td>{meanStd(before.report.overall)}</td> : null}<td>{meanStd(after.report.overall)}</td>
              {before && e.deltas ? <td>{signed(e.deltas.overall)}</td> : before ? <td>-</td> : null}</tr>
            {rows('app', after.report.byApp, e.deltas?.byApp)}
            {rows('difficulty', after.report.byDifficulty, e.deltas?.byDifficulty)}
          </tbody>
        </table>
      ) : null}
      {e.results.map((r) => (
        <div key={r.policy} className="row muted">
          Episodes of {r.policy}{r.stopped ? ' (stopped early)' : ''}:
          {r.runs.map((run) => (
            <button key={run.runId} type="button" className="link" data-testid={`eval-run-${run.runId}`} onClick={() => void st.browseRun(run.runId)}>
              seed {run.seed} (run {run.runId})
            </button>
          ))}
        </div>
      ))}
    </div>
  );
}
