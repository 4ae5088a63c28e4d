import { useState } from 'react';
import type { RemoteSubmitKind } from '../../../../core/api/types.js';
import { appStore, useApp } from '../../store/index.js';
import { submitRequest, type SubmitFormState } from './submit-form.js';

// The renderer imports only types from core: the kinds are listed here, checked against the API's type.
const KINDS = { 'builtin-sft': 'SFT (oracle demonstrations)', 'builtin-grpo': 'GRPO (one iteration of rollouts)' } satisfies Record<RemoteSubmitKind, string>;

const INITIAL: SubmitFormState = { trainer: '', kind: 'builtin-sft', name: '', split: 'unseen-instance', part: 'train', limit: '8', init: '', epochs: '', learningRate: '', groupSize: '4' };

/** Submit a builtin-policy job: the data (a split part), the start checkpoint, a few config fields. */
export function SubmitForm() {
  const trainers = useApp((s) => s.trainers);
  const busy = useApp((s) => s.jobsBusy);
  const [f, setF] = useState<SubmitFormState>(INITIAL);
  const trainer = f.trainer || trainers[0]?.name || '';
  const field = (key: keyof SubmitFormState, label: string, placeholder = '') => (
    <label className="row">{label}<input aria-label={label} placeholder={placeholder} value={f[key]} onChange={(e) => setF({ ...f, [key]: e.target.value })} /></label>
  );
  const request = submitRequest({ ...f, trainer });
  return (
    <div className="panel" data-testid="jobs-submit">
      <h3>Submit</h3>
      <label className="row">Trainer
        <select aria-label="Trainer" value={trainer} onChange={(e) => setF({ ...f, trainer: e.target.value })}>
          {trainers.map((t) => <option key={t.name} value={t.name}>{t.name}</option>)}
        </select>
      </label>
      <label className="row">Kind
        <select aria-label="Kind" value={f.kind} onChange={(e) => setF({ ...f, kind: e.target.value as RemoteSubmitKind })}>
          {Object.entries(KINDS).map(([k, label]) => <option key={k} value={k}>{label}</option>)}
        </select>
      </label>
      {field('name', 'Name')}
      {field('split', 'Split')}
      {field('part', 'Part')}
      {field('limit', 'Instances')}
      {field('init', 'Init checkpoint', 'checkpoints/sft/policy.json (under the data folder)')}
      {field('epochs', 'Epochs', 'default')}
      {field('learningRate', 'Learning rate', 'default')}
      {f.kind === 'builtin-grpo' ? field('groupSize', 'Group size') : null}
      {'error' in request ? <div className="muted" data-testid="jobs-submit-problem">{request.error}</div> : null}
      <button type="button" disabled={busy || 'error' in request} onClick={() => 'request' in request && void appStore().getState().submitRemoteJob(request.request)}>
        {busy ? 'Building and uploading…' : 'Submit'}
      </button>
    </div>
  );
}
