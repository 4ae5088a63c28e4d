import type { SettingField, Settings } from '../../../../core/api/settings.js';

/**
 * The settings form holds text per field; these convert between it and settings values. Nothing
 * is validated here: a value that does not parse is sent as typed, so the server's schema (the one
 * source of the rules) names the problem.
 */
export type FormValues = Record<string, string>;

export function formValues(settings: Settings, fields: readonly SettingField[]): FormValues {
  const out: FormValues = {};
  for (const f of fields) {
    const v = settings[f.key];
    out[f.key] = v === null || v === undefined ? '' : String(v);
  }
  return out;
}

function fromText(f: SettingField, text: string): unknown {
  const t = text.trim();
  if (t === '' && f.nullable) return null;
  if (f.kind === 'choice') return f.options?.find((o) => String(o) === t) ?? t;
  if (f.kind === 'integer') return t !== '' && Number.isFinite(Number(t)) ? Number(t) : t;
  return t;
}

/** The fields whose value differs from the saved settings, converted to their types where they parse. */
export function patchFromForm(values: FormValues, settings: Settings, fields: readonly SettingField[]): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const f of fields) {
    const v = fromText(f, values[f.key] ?? '');
    if (v !== settings[f.key]) patch[f.key] = v;
  }
  return patch;
}
