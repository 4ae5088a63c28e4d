import type { CoordinateSpace, EndpointInfo, EndpointSave, EndpointSettings, VlmFormatId, VlmPresetId, VlmPresetInfo, VlmServer } from '../../../../core/api/types.js';

/**
 * The endpoint profile form (Settings → Endpoints): text per field, converted to a saveEndpoint
 * input. Nothing is validated here: a number that does not parse is sent as typed, so the server's
 * schema (core/policy/vlm/settings.ts, the one source of the rules) names the problem at its field.
 * Fields the form does not show (extraBody, minPixels, …) are kept from the stored profile.
 *
 * A preset (docs/policy-vlm.md "Presets", as `awb endpoints add --preset`) sets the fields the form shows to its own
 * values when it is chosen, and fills the rest itself; a profile switched to another preset (or to none) drops what
 * the old one filled, so what is saved is the new preset's request with the shown fields as they stand. A preset whose
 * prompt ships in no installed package asks for its file (`promptTemplate.file`).
 *
 * The key is write-only: the form never holds the stored key (the API never sends it), only a new
 * one typed here, or the wish to forget the stored one.
 */

/** Labels per format and coordinate space: a Record, so a format added in core without a label here does not compile. */
export const FORMAT_LABELS: Record<VlmFormatId, string> = {
  androidworld: 'AndroidWorld JSON (M3A / T3A)',
  'ui-tars': 'UI-TARS',
  mobilerl: 'MobileRL',
  'qwen-mobile-use': 'Qwen mobile_use',
};
export const COORDINATE_LABELS: Record<CoordinateSpace, string> = {
  screen: 'screen pixels',
  image: 'image pixels (as sent)',
  'relative-1000': 'relative 0–1000',
  'relative-999': 'relative 0–999 (MobileRL)',
  'smart-resize': 'Qwen smart-resize',
};
export const SERVER_LABELS: Record<VlmServer, string> = {
  vllm: 'vLLM (pixel bounds in mm_processor_kwargs)',
  transformers: 'transformers serve (pixel bounds in chat_template_kwargs)',
  other: 'other (pixel bounds not sent)',
};

export type KeyChange = 'keep' | 'set' | 'clear';

export interface EndpointDraft {
  /** The profile being edited (its name is fixed), or null for a new one. */
  original: string | null;
  name: string;
  /** '' = no preset (the format's own prompt and the fields below). */
  preset: VlmPresetId | '';
  /** The file a preset reads its official prompt from ('' = none given). */
  promptFile: string;
  baseUrl: string;
  model: string;
  format: VlmFormatId;
  /** '' = the format's own space. */
  coordinates: CoordinateSpace | '';
  /** Which server answers, for the field that carries the pixel bounds. */
  server: VlmServer;
  apiKeyEnv: string;
  temperature: string;
  maxTokens: string;
  timeoutMs: string;
  maxConcurrency: string;
  historySteps: string;
  /** A new key typed (write-only), used when `keyChange` is 'set'. */
  apiKey: string;
  keyChange: KeyChange;
  /** Whether the edited profile has a stored key (shown as "set"). */
  hasKey: boolean;
  /** The stored settings the form started from (their other fields are kept). */
  base: EndpointSettings | null;
}

/** The form's text fields, and the field path the server reports their problems under. */
export const DRAFT_FIELDS = {
  name: 'name', preset: 'preset', promptFile: 'promptTemplate', baseUrl: 'endpoint.baseUrl', model: 'endpoint.model', format: 'format', coordinates: 'coordinates', server: 'endpoint.server',
  apiKeyEnv: 'endpoint.apiKeyEnv', temperature: 'temperature', maxTokens: 'maxTokens', timeoutMs: 'endpoint.timeoutMs',
  maxConcurrency: 'endpoint.maxConcurrency', historySteps: 'historySteps', apiKey: 'apiKey',
} as const satisfies Partial<Record<keyof EndpointDraft, string>>;
export type DraftField = keyof typeof DRAFT_FIELDS;

export function newDraft(): EndpointDraft {
  return {
    original: null, name: '', preset: '', promptFile: '', baseUrl: 'http://127.0.0.1:8000/v1', model: '', format: 'androidworld', coordinates: '', server: 'vllm', apiKeyEnv: '',
    temperature: '0', maxTokens: '512', timeoutMs: '60000', maxConcurrency: '4', historySteps: '4', apiKey: '', keyChange: 'keep', hasKey: false, base: null,
  };
}

export function draftOf(info: EndpointInfo): EndpointDraft {
  const s = info.settings;
  return {
    original: info.name, name: info.name, preset: s.preset ?? '', promptFile: s.promptTemplate && 'file' in s.promptTemplate ? s.promptTemplate.file : '', baseUrl: s.endpoint.baseUrl, model: s.endpoint.model, format: s.format, coordinates: s.coordinates ?? '', server: s.endpoint.server,
    apiKeyEnv: s.endpoint.apiKeyEnv ?? '', temperature: String(s.temperature), maxTokens: String(s.maxTokens), timeoutMs: String(s.endpoint.timeoutMs),
    maxConcurrency: String(s.endpoint.maxConcurrency), historySteps: String(s.historySteps), apiKey: '', keyChange: 'keep', hasKey: info.hasKey, base: s,
  };
}

/** A number where the text is one, else the text as typed (the server's schema says what is wrong with it). */
function num(text: string): unknown {
  const t = text.trim();
  return t !== '' && Number.isFinite(Number(t)) ? Number(t) : t;
}

/**
 * The draft with `preset` chosen: the shown fields as the preset sets them, and its model where the model field is
 * empty or still the previous preset's, and the prompt file only when both presets read the same file; '' keeps the
 * fields as they are.
 */
export function withPreset(d: EndpointDraft, id: VlmPresetId | '', presets: readonly VlmPresetInfo[]): EndpointDraft {
  const p = presets.find((x) => x.id === id);
  if (!p) return { ...d, preset: '' };
  const previous = presets.find((x) => x.id === d.preset);
  return {
    ...d, preset: p.id, model: !d.model.trim() || d.model === previous?.model ? p.model : d.model, format: p.format, coordinates: p.coordinates ?? '',
    temperature: String(p.temperature), maxTokens: String(p.maxTokens), historySteps: String(p.historySteps),
    promptFile: previous?.promptFile && previous.promptFile === p.promptFile ? d.promptFile : '',
  };
}

/** The stored settings without what a preset filled, when the draft chose another preset than the one stored (or none). */
function baseFor(d: EndpointDraft, presets: readonly VlmPresetInfo[]): Record<string, unknown> | null {
  if (!d.base) return null;
  const stored = d.base.preset ?? '';
  if (stored === d.preset) return { ...d.base };
  const drop = new Set(['preset', ...[stored, d.preset].flatMap((id) => presets.find((p) => p.id === id)?.fills ?? [])]);
  return Object.fromEntries(Object.entries(d.base).filter(([k]) => !drop.has(k)));
}

export function saveInputOf(d: EndpointDraft, presets: readonly VlmPresetInfo[] = []): EndpointSave {
  const base = baseFor(d, presets) as (Partial<EndpointSettings> & Record<string, unknown>) | null;
  const endpoint: Record<string, unknown> = { ...(base?.endpoint ?? {}), baseUrl: d.baseUrl.trim(), model: d.model.trim(), server: d.server, timeoutMs: num(d.timeoutMs), maxConcurrency: num(d.maxConcurrency) };
  if (d.apiKeyEnv.trim()) endpoint.apiKeyEnv = d.apiKeyEnv.trim();
  else delete endpoint.apiKeyEnv;
  const settings: Record<string, unknown> = {
    ...(base ?? {}), endpoint, format: d.format, temperature: num(d.temperature), maxTokens: num(d.maxTokens), historySteps: num(d.historySteps),
  };
  if (d.coordinates) settings.coordinates = d.coordinates;
  else delete settings.coordinates;
  if (d.preset) settings.preset = d.preset;
  else delete settings.preset;
  const stored = settings.promptTemplate as { file?: string } | undefined;
  if (d.promptFile.trim()) settings.promptTemplate = { file: d.promptFile.trim() };
  else if (stored && 'file' in stored) delete settings.promptTemplate;
  const input: EndpointSave = { name: d.name.trim(), settings };
  if (d.keyChange === 'set') input.apiKey = d.apiKey;
  else if (d.keyChange === 'clear') input.apiKey = null;
  return input;
}

/** How a profile's key is shown: stored ("key set"), from an environment variable, or none. */
export function keyStatus(e: Pick<EndpointInfo, 'hasKey' | 'apiKeyEnv'>): string {
  if (e.apiKeyEnv) return `key from $${e.apiKeyEnv}`;
  return e.hasKey ? 'key set' : 'no key';
}

/** The server's problems by form field: each issue's path mapped to the field showing it ('' for the rest). */
export function errorsByField(issues: Record<string, string>): Partial<Record<DraftField | '', string>> {
  const out: Partial<Record<DraftField | '', string>> = {};
  const byPath = new Map<string, DraftField>(Object.entries(DRAFT_FIELDS).map(([f, p]) => [p, f as DraftField]));
  for (const [path, message] of Object.entries(issues)) {
    // ApiInputError paths are the input's (settings.temperature); EndpointSettingsError's are the settings' own.
    const field = byPath.get(path.replace(/^settings\./, '')) ?? '';
    const label = field === '' && path ? `${path}: ${message}` : message;
    out[field] = out[field] ? `${out[field]}; ${label}` : label;
  }
  return out;
}
