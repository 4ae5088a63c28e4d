import { useEffect, useState, type ReactNode } from 'react';
import type { OnlineGrpoRunInfo, OnlinePolicyKindName } from '../../../../core/api/job-types.js';
import { appStore, useApp } from '../../store/index.js';
import { errorsByField, initChoices, iterationLine, ONLINE_FORM_INITIAL, onlineRequest, type OnlineFormState } from './online-form.js';

// The renderer imports only types from core: the kinds are listed here, checked against the API's type.
const KINDS = { builtin: 'Builtin policy (rollouts here, policy.json back)', vlm: 'Served VLM (endpoint profile, LoRA adapter published)' } satisfies Record<OnlinePolicyKindName, string>;

// The Jobs view's left column is narrow (styles.css .training-view): rows wrap instead of spilling into the table.
const WRAP = { flexWrap: 'wrap', minWidth: 0 } as const;
const FIT = { maxWidth: '100%', minWidth: 0 } as const;

/** One loop: its state, Stop, a link to its training run, a line per iteration and the log tail. */
function OnlineRun({ run }: { run: OnlineGrpoRunInfo }) {
  const st = appStore().getState();
  const live = run.state === 'running' || run.state === 'stopping';
  return (
    <div className="panel" data-testid={`online-run-${run.runId}`}>
      <div className="row" style={WRAP}>
        <strong>{run.name}</strong>
        <span data-testid="online-run-state">{run.state}</span>
        <span className="muted">{run.done.length}/{run.iterations} iterations · policy <span className="mono">{run.policy}</span></span>
        <button type="button" disabled={run.state !== 'running'} onClick={() => void st.stopOnlineGrpo(run.runId)}>Stop</button>
        <button type="button" className="link" data-testid="online-run-link" onClick={() => void st.openOnlineRun(run.runId)}>Training run {run.runId}</button>
      </div>
      {run.error ? <div className="error" data-testid="online-run-error">{run.error}</div> : null}
      <ol className="mono" data-testid="online-iterations" style={{ margin: 0, overflowWrap: 'anywhere' }}>
        {run.done.map((it) => <li key={it.iteration} data-testid={`online-iteration-${it.iteration}`}>{iterationLine(run, it)}</li>)}
      </ol>
      {live || run.log.length ? (
        <pre className="mono muted" data-testid="online-log" style={{ maxHeight: 160, overflow: 'auto', margin: 0, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{run.log.slice(-20).join('\n')}</pre>
      ) : null}
    </div>
  );
}

/**
 * Online GRPO from the workbench (docs/online-grpo.md "In the workbench"): rollouts with the current
 * policy → a remote job → its result becomes the policy, N times. The form's problems and the
 * server's refusals show next to their field.
 */
export function OnlineGrpoForm() {
  const trainers = useApp((s) => s.trainers);
  const endpoints = useApp((s) => s.endpoints);
  const policies = useApp((s) => s.agentPolicies);
  const runs = useApp((s) => s.onlineRuns);
  const busy = useApp((s) => s.onlineBusy);
  const serverErrors = useApp((s) => s.onlineErrors);
  const [f, setF] = useState<OnlineFormState>(ONLINE_FORM_INITIAL);
  const [tried, setTried] = useState(false);
  useEffect(() => void appStore().getState().loadOnlineChoices(), []);
  const form: OnlineFormState = { ...f, trainer: f.trainer || trainers[0]?.name || '', endpoint: f.endpoint || endpoints[0]?.name || '' };
  const converted = onlineRequest(form);
  const local: Partial<Record<keyof OnlineFormState, string>> = tried && 'errors' in converted ? converted.errors : {};
  const remote = errorsByField(serverErrors);
  const set = (patch: Partial<OnlineFormState>) => setF({ ...f, ...patch });
  const row = (key: keyof OnlineFormState, label: string, input: ReactNode) => (
    <label className="row" key={key} style={WRAP}>
      {label}{input}
      {local[key] ?? remote[key] ? <span className="error" data-testid={`online-error-${key}`}>{local[key] ?? remote[key]}</span> : null}
    </label>
  );
  const text = (key: keyof OnlineFormState, label: string, placeholder = '') => row(key, label, (
    <input style={FIT} aria-label={`Online ${label}`} data-testid={`online-field-${key}`} placeholder={placeholder} value={form[key]} onChange={(e) => set({ [key]: e.target.value })} />
  ));
  const start = () => {
    setTried(true);
    if ('request' in converted) void appStore().getState().startOnlineGrpo(converted.request);
  };
  const running = runs.some((r) => r.state === 'running' || r.state === 'stopping');
  return (
    <div className="panel" data-testid="online-grpo">
      <h3>Online GRPO</h3>
      {row('trainer', 'Trainer', (
        <select style={FIT} aria-label="Online trainer" data-testid="online-field-trainer" value={form.trainer} onChange={(e) => set({ trainer: e.target.value })}>
          {trainers.map((t) => <option key={t.name} value={t.name}>{t.name}</option>)}
        </select>
      ))}
      {row('kind', 'Policy', (
        <select style={FIT} aria-label="Online policy kind" data-testid="online-field-kind" value={form.kind} onChange={(e) => set({ kind: e.target.value as OnlinePolicyKindName })}>
          {Object.entries(KINDS).map(([k, label]) => <option key={k} value={k}>{label}</option>)}
        </select>
      ))}
      {form.kind === 'builtin' ? row('init', 'Start from', (
        <select style={FIT} aria-label="Online start checkpoint" data-testid="online-field-init" value={form.init} onChange={(e) => set({ init: e.target.value })}>
          <option value="">a fresh model (from the seed)</option>
          {initChoices(policies).map((n) => <option key={n} value={n}>{n}</option>)}
        </select>
      )) : (
        <>
          {row('endpoint', 'Endpoint', (
            <select style={FIT} aria-label="Online endpoint" data-testid="online-field-endpoint" value={form.endpoint} onChange={(e) => set({ endpoint: e.target.value })}>
              {endpoints.map((p) => <option key={p.name} value={p.name}>{p.name} ({p.model})</option>)}
            </select>
          ))}
          {text('baseModel', 'Base model', 'the trainer\'s model, e.g. Qwen/Qwen2.5-VL-3B-Instruct')}
        </>
      )}
      {text('split', 'Split')}
      {text('part', 'Part')}
      {text('limit', 'Instances', 'all of the part')}
      {text('iterations', 'Iterations')}
      {text('groupSize', 'Group size')}
      {text('temperature', 'Temperature')}
      {text('maxSteps', 'Max steps')}
      {text('seed', 'Seed')}
      {text('config', 'Trainer config', '{"epochs": 2} (JSON, optional)')}
      {text('name', 'Run name', 'default')}
      {remote[''] ? <div className="error" data-testid="online-error">{remote['']}</div> : null}
      <button type="button" data-testid="online-start" disabled={busy || running} onClick={start}>
        {busy ? 'Asking the trainer…' : 'Start online GRPO'}
      </button>
      {runs.map((r) => <OnlineRun key={r.runId} run={r} />)}
    </div>
  );
}
