import { useEffect, useMemo, useState, type FormEvent } from 'react';
import type { SettingField } from '../../../../core/api/settings.js';
import { appStore, useApp } from '../../store/index.js';
import { formValues, patchFromForm, type FormValues } from './form.js';
import { EndpointsPanel } from './EndpointsPanel.js';

/** The workbench's settings, then its VLM endpoint profiles. */
export function SettingsView() {
  return (
    <div className="settings-page">
      <SettingsForm />
      <EndpointsPanel />
    </div>
  );
}

/**
 * The settings form, generated from the server's description of the Settings schema: a label per
 * field (its description), an input by kind; the server validates and its issues show by field.
 */
function SettingsForm() {
  const settings = useApp((s) => s.settings);
  const fields = useApp((s) => s.settingsFields);
  const loaded = useApp((s) => s.settingsLoaded);
  const errors = useApp((s) => s.settingsErrors);
  const saving = useApp((s) => s.settingsSaving);
  const devices = useApp((s) => s.devices);
  const [values, setValues] = useState<FormValues | null>(null);
  const [savedAt, setSavedAt] = useState<number | null>(null);

  useEffect(() => void appStore().getState().loadSettings(), []);
  useEffect(() => appStore().getState().watchDevices(), []);
  // The form starts from (and after a save, returns to) what the server holds.
  useEffect(() => {
    if (settings && fields) setValues(formValues(settings, fields));
  }, [settings, fields]);

  const patch = useMemo(() => (settings && fields && values ? patchFromForm(values, settings, fields) : {}), [values, settings, fields]);
  const dirty = Object.keys(patch).length > 0;

  if (!loaded || !values || !settings || !fields) {
    return (
      <div className="settings-view" data-testid="settings-view">
        <div className="muted">{loaded ? 'The settings could not be loaded (see the error above).' : 'Loading settings…'}</div>
      </div>
    );
  }

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (await appStore().getState().saveSettings(patch)) setSavedAt(Date.now());
  };
  const change = (key: string, v: string) => {
    setValues((old) => ({ ...old!, [key]: v }));
    setSavedAt(null);
    appStore().getState().clearSettingsError(key);
  };

  return (
    <form className="settings-view" data-testid="settings-view" onSubmit={(e) => void save(e)}>
      <h2>Settings</h2>
      <datalist id="settings-device-serials">
        {devices.map((d) => <option key={d.serial} value={d.serial} />)}
      </datalist>
      <div className="settings-fields panel">
        {fields.map((f) => (
          <div key={f.key} className={errors[f.key] ? 'settings-field invalid' : 'settings-field'}>
            <label htmlFor={`setting-${f.key}`}>
              <span className="settings-label">{f.description}</span>
              <span className="settings-key mono">{f.key}</span>
            </label>
            <FieldInput field={f} value={values[f.key] ?? ''} onChange={(v) => change(f.key, v)} />
            {errors[f.key] ? <div className="settings-error" role="alert" data-testid={`setting-error-${f.key}`}>{errors[f.key]}</div> : null}
          </div>
        ))}
      </div>
      {errors[''] ? <div className="settings-error" role="alert">{errors['']}</div> : null}
      <div className="row">
        <button type="submit" className="primary" data-testid="save-settings" disabled={saving || !dirty}>{saving ? 'Saving…' : 'Save'}</button>
        <button type="button" disabled={!dirty} onClick={() => setValues(formValues(settings, fields))}>Revert</button>
        {savedAt && !dirty ? <span className="muted" role="status" data-testid="settings-saved">Saved.</span> : null}
        {dirty ? <span className="muted">Unsaved changes: {Object.keys(patch).join(', ')}</span> : null}
      </div>
    </form>
  );
}

function FieldInput({ field, value, onChange }: { field: SettingField; value: string; onChange(v: string): void }) {
  const id = `setting-${field.key}`;
  if (field.kind === 'choice') {
    return (
      <select id={id} data-testid={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {field.nullable ? <option value="">none</option> : null}
        {(field.options ?? []).map((o) => <option key={String(o)} value={String(o)}>{String(o)}</option>)}
      </select>
    );
  }
  const range = field.kind === 'integer' && field.min !== undefined && field.max !== undefined ? `${field.min}–${field.max}` : '';
  return (
    <input
      id={id} data-testid={id} value={value} onChange={(e) => onChange(e.target.value)}
      // Free text even for numbers: whatever is typed goes to the server, which says what is wrong with it.
      inputMode={field.kind === 'integer' ? 'numeric' : undefined}
      placeholder={field.nullable ? `none${range ? ` (or ${range})` : ''}` : range}
      list={field.key === 'defaultDevice' ? 'settings-device-serials' : undefined}
    />
  );
}
