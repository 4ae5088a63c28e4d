import { useEffect, useMemo, type FormEvent } from 'react';
import type { AdaptableApp, BaseTraining, ConfigField } from '../../../../core/api/types.js';
import { FieldRow } from '../../components/ConfigFieldRow.js';
import { appStore, useApp } from '../../store/index.js';
import { baseChoices, MAIN_FIELDS } from '../../store/slices/adaptation-model.js';
import { activeJob } from '../../store/slices/training.js';
import { groupFields } from '../training/config-form.js';
import { DemoEpisodes } from './DemoEpisodes.js';

const appLabel = (a: AdaptableApp) => `${a.app} (${a.adaptInstances} adapt instances, ${a.testTemplates} test templates)`;

/**
 * The adaptation to run: the app (held-out apps marked), the base checkpoint, the main settings
 * (shots, method, adapter kind and rank, SFT epochs, GRPO iterations, seed, home screen), the
 * evaluation seeds, optional recorded demonstrations, and the rest of the config in collapsed groups.
 */
const stepLine = (s: BaseTraining['steps'][number]) =>
  s.trainer === null ? `${s.checkpoint} (training not recorded)` : `${s.checkpoint}: ${s.trainer} on ${s.split}/${s.part} (${s.templates} templates)`;

/**
 * Whether the base checkpoint's training saw the app: "held out" is a claim about the base, and a base trained on a
 * split that contains the app (unseen-instance/train has every app) measures adaptation to a seen app.
 */
function BaseSawApp({ app }: { app: string | null }) {
  const policy = useApp((s) => s.adaptForm.policy);
  const base = useApp((s) => s.adaptBase);
  const problem = useApp((s) => s.adaptBaseProblem);
  useEffect(() => {
    if (policy) void appStore().getState().loadAdaptBase(policy);
  }, [policy]);
  if (!app || !policy) return null;
  if (problem) return <div className="muted adapt-note" data-testid="adapt-base-unknown">Cannot read what the base was trained on — {problem}</div>;
  if (!base || base.policy !== policy) return null;
  const lineage = base.steps.map(stepLine).join(' ← ');
  if (base.apps.includes(app)) {
    return (
      <div className="agent-hit adapt-note" role="alert" data-testid="adapt-base-saw-app" title={lineage}>
        <strong>Not held out from this base:</strong> its training saw {app} ({lineage}). Before → after then measures adapting to an app the
        base was trained on; for a held-out result, start from a base trained on unseen-app/train.
      </div>
    );
  }
  return (
    <div className="muted adapt-note" data-testid="adapt-base-held-out" title={lineage}>
      {base.complete ? `The base never trained on ${app} (${lineage}).` : `The base's training is not fully recorded (${lineage}): whether it saw ${app} cannot be told.`}
    </div>
  );
}

export function AdaptForm() {
  const d = useApp((s) => s.adaptDescription);
  const form = useApp((s) => s.adaptForm);
  const errors = useApp((s) => s.adaptErrors);
  const policies = useApp((s) => s.agentPolicies);
  const busy = useApp((s) => s.adaptBusy);
  const running = useApp((s) => activeJob(s));
  const fields = d?.fields ?? [];
  const main = useMemo(() => MAIN_FIELDS.map((p) => fields.find((f) => f.path === p)).filter((f): f is ConfigField => f !== undefined), [fields]);
  const rest = useMemo(() => groupFields(fields.filter((f) => !(MAIN_FIELDS as readonly string[]).includes(f.path))), [fields]);
  if (!d) return <div className="panel training-config muted">Loading the adaptation settings…</div>;
  const bases = baseChoices(policies);
  // A problem shows once: at its field, or in the list below when no field of the form has its path.
  const atField = new Set(['app', 'policy', 'evalSeeds', ...fields.map((f) => f.path)]);
  const elsewhere = Object.entries(errors).filter(([path]) => !atField.has(path));

  const st = appStore().getState();
  const app = d.apps.find((a) => a.app === form.app);
  const start = (e: FormEvent) => {
    e.preventDefault();
    void st.startAdaptation();
  };
  const row = (f: ConfigField) => (
    <FieldRow key={f.path} idPrefix="adapt" field={f.path === 'shots' && app ? { ...f, max: app.adaptInstances } : f}
      value={form.values[f.path] ?? ''} error={errors[f.path]} onChange={(v) => st.setAdaptValue(f.path, v)} />
  );
  return (
    <form className="panel training-config" onSubmit={start} data-testid="adapt-form">
      <h3>Adapt to an app</h3>
      <label className="adapt-label" htmlFor="adapt-app">App</label>
      <select id="adapt-app" data-testid="adapt-app" value={form.app} onChange={(e) => void st.setAdaptApp(e.target.value)} className={errors.app ? 'invalid' : ''}>
        <optgroup label="Held-out apps (unseen-app: never trained on)">
          {d.apps.filter((a) => a.heldOut).map((a) => <option key={a.app} value={a.app}>★ {appLabel(a)}</option>)}
        </optgroup>
        <optgroup label="Seen apps (their held-out templates)">
          {d.apps.filter((a) => !a.heldOut).map((a) => <option key={a.app} value={a.app}>{appLabel(a)}</option>)}
        </optgroup>
      </select>
      {app ? <div className="muted adapt-note">{app.package} · {app.regime} regime{app.heldOut ? ' · held out of the unseen-app regime\'s training' : ''}</div> : null}
      <BaseSawApp app={app?.app ?? null} />
      {errors.app ? <div className="settings-error">{errors.app}</div> : null}

      <label className="adapt-label" htmlFor="adapt-policy">Base checkpoint</label>
      {bases.length ? (
        <select id="adapt-policy" data-testid="adapt-policy" value={form.policy} onChange={(e) => st.setAdaptPolicy(e.target.value)}>
          {form.policy && !bases.some((b) => b.name === form.policy) ? <option value={form.policy}>{form.policy}</option> : null}
          {bases.map((b) => <option key={b.name} value={b.name} title={b.description}>{b.name}</option>)}
        </select>
      ) : <div className="muted" data-testid="adapt-no-checkpoint">No checkpoint yet: train a base policy on the Training view first.</div>}
      {errors.policy ? <div className="settings-error">{errors.policy}</div> : null}
      {bases.find((b) => b.name === form.policy)?.kind === 'transformer' ? (
        <div className="muted adapt-note" data-testid="adapt-transformer-note">
          A transformer base adapts by GRPO only (method grpo, AW-Gen&apos;s recipe): a LoRA on its screen transformer (rank 8 unless you change
          rank), the base frozen. SFT, recorded demonstrations, the head-only kind and the home-screen mode are the builtin adapter&apos;s. The adapted
          model is a checkpoint of its own (Training lists it; run it in Agent); its episodes are recorded in Trajectories under the job&apos;s run.
        </div>
      ) : null}

      <div className="training-fields">{main.map(row)}</div>
      <div className={errors.evalSeeds ? 'training-field invalid' : 'training-field'}>
        <label htmlFor="adapt-eval-seeds">
          <span className="mono">evalSeeds</span>
          <span className="muted training-field-desc">Evaluation seeds of the before / after runs (AW-Gen: 30, 7, 1234)</span>
        </label>
        <input id="adapt-eval-seeds" data-testid="adapt-eval-seeds" value={form.evalSeeds} onChange={(e) => st.setAdaptEvalSeeds(e.target.value)} />
        {errors.evalSeeds ? <div className="settings-error">{errors.evalSeeds}</div> : null}
      </div>
      <DemoEpisodes />
      <div className="training-fields">
        {rest.map((g) => (
          <details key={g.group || 'more'} className="training-group">
            <summary>{g.group || 'more'}</summary>
            {g.fields.map(row)}
          </details>
        ))}
      </div>
      {elsewhere.length ? (
        <ul className="training-problems" role="alert" data-testid="adapt-problems">
          {elsewhere.map(([path, message]) => <li key={path}>{message}</li>)}
        </ul>
      ) : null}
      <div className="row">
        <button type="submit" className="primary" data-testid="adapt-run" disabled={busy || running !== null || !form.policy}
          title={running ? `${running.id} is ${running.state}: one background job runs at a time` : 'Before → adapt → after'}>
          Run
        </button>
        <button type="button" onClick={() => st.resetAdaptForm()}>Defaults</button>
      </div>
    </form>
  );
}
