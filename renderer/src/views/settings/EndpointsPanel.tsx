import { useEffect, type FormEvent, type ReactNode } from 'react';
import type { EndpointInfo } from '../../../../core/api/types.js';
import { appStore, useApp } from '../../store/index.js';
import { CommandButton } from '../agent/CommandButton.js';
import type { EndpointTest } from '../../store/slices/endpoints.js';
import { COORDINATE_LABELS, errorsByField, FORMAT_LABELS, keyStatus, SERVER_LABELS, type DraftField, type EndpointDraft } from './endpoint-form.js';

/**
 * Settings → Endpoints: the VLM endpoint profiles (the Agent view's `vlm:<name>` policies) with add,
 * edit, remove and a test request each. The key field is write-only: the list says "key set" or
 * not; typing a key replaces the stored one, "Clear key" forgets it (docs/ui.md "Endpoints").
 */
export function EndpointsPanel() {
  const endpoints = useApp((s) => s.endpoints);
  const loaded = useApp((s) => s.endpointsLoaded);
  const draft = useApp((s) => s.endpointDraft);
  const tests = useApp((s) => s.endpointTests);

  useEffect(() => void appStore().getState().loadEndpoints(), []);

  return (
    <section className="panel endpoints-panel" data-testid="endpoints-panel" aria-label="VLM endpoints">
      <div className="row">
        <h3>VLM endpoints</h3>
        <CommandButton name="endpoint-add" testId="endpoint-add" />
      </div>
      <div className="muted">OpenAI-compatible chat endpoints a session can run as a <span className="mono">vlm:&lt;name&gt;</span> policy. A key is never shown again: the desktop app keeps it encrypted with the OS keychain, <span className="mono">awb serve</span> in <span className="mono">&lt;data folder&gt;/secrets.json</span> (readable only by you).</div>
      {endpoints.length ? (
        <table>
          <thead><tr><th>Name</th><th>Model</th><th>Base URL</th><th>Format</th><th>Key</th><th /></tr></thead>
          <tbody>
            {endpoints.map((e) => <EndpointRow key={e.name} e={e} test={tests[e.name]} editing={draft?.original === e.name} />)}
          </tbody>
        </table>
      ) : <div className="muted" data-testid="endpoints-empty">{loaded ? 'No endpoint yet: add one (or `awb endpoints add` in a terminal).' : 'Loading endpoints…'}</div>}
      {draft ? <EndpointForm draft={draft} /> : null}
    </section>
  );
}

function EndpointRow({ e, test, editing }: { e: EndpointInfo; test: EndpointTest | undefined; editing: boolean }) {
  const st = appStore().getState();
  return (
    <>
      <tr data-testid={`endpoint-${e.name}`}>
        <td className="mono">{e.name}</td>
        <td className="mono">{e.model}</td>
        <td className="mono">{e.baseUrl}</td>
        <td>{e.settings.preset ? <span data-testid={`endpoint-preset-${e.name}`}>{e.settings.preset} · </span> : null}{e.format}{e.coordinates ? ` · ${e.coordinates}` : ''}</td>
        <td data-testid={`endpoint-key-${e.name}`}>{keyStatus(e)}</td>
        <td className="row">
          <button type="button" disabled={editing} onClick={() => st.editEndpoint(e.name)} data-testid={`endpoint-edit-${e.name}`}>Edit</button>
          <button type="button" disabled={test?.state === 'running'} onClick={() => void st.testEndpoint(e.name)} data-testid={`endpoint-test-${e.name}`}>
            {test?.state === 'running' ? 'Testing…' : 'Test'}
          </button>
          <button type="button" onClick={() => void st.removeEndpoint(e.name)} data-testid={`endpoint-remove-${e.name}`}>Remove</button>
        </td>
      </tr>
      {test?.state === 'done' ? (
        <tr><td colSpan={6} data-testid={`endpoint-test-result-${e.name}`}><TestResult test={test} /></td></tr>
      ) : null}
    </>
  );
}

function TestResult({ test }: { test: Extract<EndpointTest, { state: 'done' }> }) {
  const r = test.result;
  if (!r.ok) return <span className="settings-error" role="alert">{r.error.name}: {r.error.message}</span>;
  return (
    <div>
      <div>Answered in {r.latencyMs} ms ({r.attempts} attempt{r.attempts === 1 ? '' : 's'}) to “{r.instruction}”: {r.formatError
        ? <span className="settings-error">not an action in the format ({r.formatError})</span>
        : <span className="mono">{JSON.stringify(r.action)}</span>}</div>
      <pre className="mono endpoint-completion">{r.completion}</pre>
    </div>
  );
}

function Field({ label, field, errors, children }: { label: string; field: DraftField; errors: Partial<Record<DraftField | '', string>>; children: ReactNode }) {
  return (
    <div className={errors[field] ? 'settings-field invalid' : 'settings-field'}>
      <label htmlFor={`endpoint-field-${field}`}><span className="settings-label">{label}</span></label>
      {children}
      {errors[field] ? <div className="settings-error" role="alert" data-testid={`endpoint-error-${field}`}>{errors[field]}</div> : null}
    </div>
  );
}

function EndpointForm({ draft }: { draft: EndpointDraft }) {
  const saving = useApp((s) => s.endpointSaving);
  const errors = errorsByField(useApp((s) => s.endpointErrors));
  const st = appStore().getState();
  const presets = useApp((s) => s.vlmPresets);
  const preset = presets.find((p) => p.id === draft.preset);
  const text = (field: Exclude<DraftField, 'preset' | 'format' | 'coordinates' | 'server' | 'apiKey'>, placeholder = '') => (
    <input
      id={`endpoint-field-${field}`} data-testid={`endpoint-field-${field}`} value={draft[field]} placeholder={placeholder}
      disabled={field === 'name' && draft.original !== null}
      onChange={(e) => st.setEndpointDraft({ [field]: e.target.value })}
    />
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void st.saveEndpointDraft();
  };
  const keyState = draft.keyChange === 'clear' ? 'will be cleared' : draft.keyChange === 'set' ? 'will be replaced' : draft.hasKey ? 'set' : 'not set';
  return (
    <form className="settings-fields endpoint-form" data-testid="endpoint-form" onSubmit={submit}>
      <h4>{draft.original ? `Edit ${draft.original}` : 'New endpoint'}</h4>
      <Field label="Name (the policy is vlm:<name>)" field="name" errors={errors}>{text('name', 'e.g. qwen-local')}</Field>
      <Field label="Preset (ask a known model as its authors' agent asks it)" field="preset" errors={errors}>
        <select id="endpoint-field-preset" data-testid="endpoint-field-preset" value={draft.preset} onChange={(e) => st.chooseEndpointPreset(e.target.value as EndpointDraft['preset'])}>
          <option value="">none: the format's own prompt</option>
          {presets.map((p) => <option key={p.id} value={p.id}>{p.id}</option>)}
        </select>
        {preset ? <div className="muted" data-testid="endpoint-preset-follows">Follows {preset.follows}. It sets the fields below and fills the rest.</div> : null}
      </Field>
      {preset?.promptFile || draft.promptFile ? (
        <Field label={`Prompt file${preset?.promptFile ? `: ${preset.promptFile}` : ''}`} field="promptFile" errors={errors}>{text('promptFile', 'a path on the workbench\'s machine')}</Field>
      ) : null}
      <Field label="Base URL (…/v1)" field="baseUrl" errors={errors}>{text('baseUrl', 'http://host:8000/v1')}</Field>
      <Field label="Model" field="model" errors={errors}>{text('model', 'as the server names it')}</Field>
      <Field label="Action format" field="format" errors={errors}>
        <select id="endpoint-field-format" data-testid="endpoint-field-format" value={draft.format} onChange={(e) => st.setEndpointDraft({ format: e.target.value as EndpointDraft['format'] })}>
          {Object.entries(FORMAT_LABELS).map(([id, label]) => <option key={id} value={id}>{id} — {label}</option>)}
        </select>
      </Field>
      <Field label="Coordinate space" field="coordinates" errors={errors}>
        <select id="endpoint-field-coordinates" data-testid="endpoint-field-coordinates" value={draft.coordinates} onChange={(e) => st.setEndpointDraft({ coordinates: e.target.value as EndpointDraft['coordinates'] })}>
          <option value="">the format's own</option>
          {Object.entries(COORDINATE_LABELS).map(([id, label]) => <option key={id} value={id}>{id} — {label}</option>)}
        </select>
      </Field>
      <Field label="Server (how the screenshot's pixel bounds are sent)" field="server" errors={errors}>
        <select id="endpoint-field-server" data-testid="endpoint-field-server" value={draft.server} onChange={(e) => st.setEndpointDraft({ server: e.target.value as EndpointDraft['server'] })}>
          {Object.entries(SERVER_LABELS).map(([id, label]) => <option key={id} value={id}>{label}</option>)}
        </select>
      </Field>
      <Field label={`API key (${keyState}; write-only)`} field="apiKey" errors={errors}>
        <div className="row">
          <input
            id="endpoint-field-apiKey" data-testid="endpoint-field-apiKey" type="password" autoComplete="off" value={draft.apiKey}
            placeholder={draft.hasKey ? 'type to replace the stored key' : 'none (or give the variable below)'}
            onChange={(e) => st.setEndpointDraft({ apiKey: e.target.value, keyChange: e.target.value ? 'set' : 'keep' })}
          />
          {draft.hasKey ? (
            <button type="button" data-testid="endpoint-key-clear" onClick={() => st.setEndpointDraft({ apiKey: '', keyChange: draft.keyChange === 'clear' ? 'keep' : 'clear' })}>
              {draft.keyChange === 'clear' ? 'Keep key' : 'Clear key'}
            </button>
          ) : null}
        </div>
      </Field>
      <Field label="…or read the key from this environment variable of the workbench" field="apiKeyEnv" errors={errors}>{text('apiKeyEnv', 'e.g. OPENAI_API_KEY')}</Field>
      <Field label="Temperature (0 = greedy)" field="temperature" errors={errors}>{text('temperature')}</Field>
      <Field label="max_tokens per completion" field="maxTokens" errors={errors}>{text('maxTokens')}</Field>
      <Field label="Request timeout (ms)" field="timeoutMs" errors={errors}>{text('timeoutMs')}</Field>
      <Field label="Requests in flight at once" field="maxConcurrency" errors={errors}>{text('maxConcurrency')}</Field>
      <Field label="Earlier steps in the prompt" field="historySteps" errors={errors}>{text('historySteps')}</Field>
      {errors[''] ? <div className="settings-error" role="alert" data-testid="endpoint-error">{errors['']}</div> : null}
      <div className="row">
        <button type="submit" className="primary" data-testid="endpoint-save" disabled={saving}>{saving ? 'Saving…' : 'Save endpoint'}</button>
        <button type="button" onClick={() => st.closeEndpointDraft()}>Cancel</button>
      </div>
    </form>
  );
}
