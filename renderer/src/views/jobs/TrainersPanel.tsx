import { useState } from 'react';
import { appStore, useApp } from '../../store/index.js';

/**
 * Trainer profiles: name and URL; the token is sent once to the workbench, kept in its secret store, never shown. A Ray
 * cluster is a profile too: its dashboard URL, the shared results folder, and a token only if the dashboard wants one.
 */
export function TrainersPanel() {
  const trainers = useApp((s) => s.trainers);
  const unreachable = useApp((s) => s.trainerUnreachable);
  const [form, setForm] = useState({ name: '', baseUrl: 'http://127.0.0.1:8470', token: '', kind: 'trainer' as 'trainer' | 'ray', resultsDir: '' });
  const st = appStore().getState();
  const ray = form.kind === 'ray';
  const edit = (next: typeof form) => {
    setForm(next);
    st.clearTrainerUnreachable(); // the refusal was about the values typed before
  };
  const save = async (saveAnyway: boolean) => {
    const { kind, resultsDir, token, ...rest } = form;
    const p = ray ? { ...rest, kind, resultsDir, ...(token ? { token } : {}) } : { ...rest, token };
    if (await st.saveTrainer({ ...p, ...(saveAnyway ? { saveAnyway } : {}) })) setForm({ ...form, name: '', token: '' });
  };
  return (
    <div className="panel" data-testid="jobs-trainers">
      <h3>Trainers</h3>
      <table>
        <thead><tr><th>Name</th><th>URL</th><th /></tr></thead>
        <tbody>
          {trainers.map((t) => (
            <tr key={t.name} data-testid={`trainer-${t.name}`}>
              <td className="mono">{t.name}</td>
              <td className="mono">{t.baseUrl}{t.kind === 'ray' ? ` (Ray → ${t.resultsDir})` : ''}</td>
              <td><button type="button" onClick={() => void st.removeTrainer(t.name)}>Remove</button></td>
            </tr>
          ))}
        </tbody>
      </table>
      {trainers.length === 0 ? <div className="muted">No trainer yet: start one with python3 -m awb_trainer serve and add it here.</div> : null}
      <div className="row" style={{ flexWrap: 'wrap' }}>
        <select aria-label="Trainer kind" value={form.kind} onChange={(e) => edit({ ...form, kind: e.target.value === 'ray' ? 'ray' : 'trainer' })}>
          <option value="trainer">trainer service</option>
          <option value="ray">Ray cluster</option>
        </select>
        <input aria-label="Trainer name" placeholder="name" value={form.name} onChange={(e) => edit({ ...form, name: e.target.value })} />
        <input aria-label="Trainer URL" placeholder="http://host:8470" value={form.baseUrl} onChange={(e) => edit({ ...form, baseUrl: e.target.value })} />
        {ray ? <input aria-label="Ray results folder" placeholder="/shared/awb-results" value={form.resultsDir} onChange={(e) => edit({ ...form, resultsDir: e.target.value })} /> : null}
        <input aria-label="Trainer token" type="password" placeholder={ray ? 'token (if the dashboard asks)' : 'token'} value={form.token} onChange={(e) => edit({ ...form, token: e.target.value })} />
        <button type="button" data-testid="trainer-save" disabled={!form.name || !form.baseUrl || (ray ? !form.resultsDir : !form.token)} onClick={() => void save(false)}>Save</button>
      </div>
      {unreachable ? (
        <div className="settings-error" role="alert" data-testid="trainer-unreachable">
          {unreachable} <button type="button" data-testid="trainer-save-anyway" onClick={() => void save(true)}>Save anyway</button>
        </div>
      ) : null}
    </div>
  );
}
