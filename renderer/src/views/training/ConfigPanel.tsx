import { useEffect, useMemo, type FormEvent } from 'react';
import type { TrainerKind } from '../../../../core/api/types.js';
import { FieldRow } from '../../components/ConfigFieldRow.js';
import { appStore, useApp } from '../../store/index.js';
import { activeJob } from '../../store/slices/training.js';
import { applyPreset, configFromForm, defaultFormValues, groupFields, newestCheckpoint, type ConfigFormValues } from './config-form.js';

const KIND_LABELS: Record<TrainerKind, string> = {
  grpo: 'GRPO / AdaGRPO', sft: 'SFT (behaviour cloning)', 'transformer-sft': 'Transformer: SFT', 'transformer-grpo': 'Transformer: GRPO / AdaGRPO',
};

/** What `init` chooses from: builtin checkpoints for the builtin trainers, transformer model folders for the transformer's. */
const initKind = (kind: TrainerKind): 'builtin' | 'transformer' | null => {
  switch (kind) {
    case 'grpo':
      return 'builtin';
    case 'transformer-sft':
    case 'transformer-grpo':
      return 'transformer';
    case 'sft':
      return null;
  }
};

/**
 * A new run: the trainer, a preset, and a form generated from the trainer's schema (labels are the
 * schema's descriptions, with their cited defaults); the server validates and its problems show by field.
 */
export function ConfigPanel() {
  const kind = useApp((s) => s.trainingKind);
  const description = useApp((s) => s.trainDescriptions[s.trainingKind]);
  const errors = useApp((s) => s.trainingErrors);
  const busy = useApp((s) => s.trainingBusy);
  const running = useApp((s) => activeJob(s) !== null);
  // The form lives in the store: it survives going to another view and back, and switching trainers.
  const stored = useApp((s) => s.trainForms[s.trainingKind]);
  const values: ConfigFormValues = useMemo(() => stored?.values ?? (description ? defaultFormValues(description.fields) : {}), [stored, description]);
  const preset = stored?.preset ?? '';
  const save = (next: ConfigFormValues, p = preset) => appStore().getState().setTrainForm(kind, { values: next, preset: p });

  const pendingInit = useApp((s) => s.pendingInit);
  // GRPO init chooses from the same list as everywhere else: the checkpoints training can start from.
  const policies = useApp((s) => s.agentPolicies);
  const initFrom = initKind(kind);
  const initChoices = policies.filter((p) => (initFrom === 'transformer' ? p.kind === 'transformer' : p.trainable))
    .map((p) => ({ value: p.name, label: p.name, title: p.description }));

  useEffect(() => {
    if (pendingInit === null || (kind !== 'grpo' && kind !== 'transformer-grpo') || !description || description.kind !== kind) return;
    const init = appStore().getState().takePendingInit();
    const s = appStore().getState();
    if (init !== null) s.setTrainForm(kind, { values: { ...(s.trainForms[kind]?.values ?? defaultFormValues(description.fields)), init }, preset: s.trainForms[kind]?.preset ?? '' });
  }, [pendingInit, kind, description]);

  const groups = useMemo(() => groupFields(description?.fields ?? []), [description]);
  const config = useMemo(() => configFromForm(values, description?.fields ?? []), [values, description]);
  if (!description) return <div className="panel training-config muted">Loading the training config…</div>;
  const elsewhere = Object.entries(errors).filter(([path]) => !description.fields.some((f) => f.path === path));

  const change = (path: string, v: string) => {
    save({ ...values, [path]: v });
    appStore().getState().clearTrainingError(path);
  };
  const start = (e: FormEvent) => {
    e.preventDefault();
    void appStore().getState().startTraining(config);
  };
  const usePreset = (name: string) => {
    const p = description.presets.find((x) => x.name === name);
    const checkpoints = appStore().getState().checkpoints.filter((c) => c.model === (initFrom ?? 'builtin'));
    save(p ? applyPreset(values, description.fields, p, newestCheckpoint(checkpoints)) : values, name);
  };

  return (
    <form className="panel training-config" onSubmit={start} data-testid="training-config">
      <div className="row">
        <h3>New run</h3>
        <select value={kind} data-testid="training-kind" onChange={(e) => appStore().getState().setTrainingKind(e.target.value as TrainerKind)}>
          {(Object.keys(KIND_LABELS) as TrainerKind[]).map((k) => <option key={k} value={k}>{KIND_LABELS[k]}</option>)}
        </select>
      </div>
      <div className="row">
        <select value={preset} data-testid="training-preset" onChange={(e) => usePreset(e.target.value)} title="A preset sets only its own fields, so presets combine">
          <option value="">Preset…</option>
          {description.presets.map((p) => <option key={p.name} value={p.name} title={p.description}>{p.label}</option>)}
        </select>
        <button type="button" data-testid="training-defaults" onClick={() => save(defaultFormValues(description.fields), '')}>Defaults</button>
      </div>
      <div className="training-fields">
        {groups.map((g) => (
          <details key={g.group || 'run'} open={g.group === ''} className="training-group">
            <summary>{g.group || 'run'}</summary>
            {g.fields.map((f) => (
              <FieldRow key={f.path} field={f} value={values[f.path] ?? ''} error={errors[f.path]} onChange={(v) => change(f.path, v)}
                {...(initFrom !== null && f.path === 'init' ? { choices: initChoices } : {})} />
            ))}
          </details>
        ))}
      </div>
      {/* A problem shows once: at its field, or here when no field of the form has its path. */}
      {elsewhere.length ? (
        <ul className="training-problems" role="alert" data-testid="training-problems">
          {elsewhere.map(([path, message]) => <li key={path}>{message}</li>)}
        </ul>
      ) : null}
      <div className="row">
        <button type="submit" className="primary" data-testid="training-start" disabled={busy || running} title={running ? 'One training job runs at a time' : ''}>
          Start
        </button>
        <span className="muted mono training-diff" title="Sent to the server (fields that differ from their defaults)">{JSON.stringify(config)}</span>
      </div>
    </form>
  );
}
