import type { CheckpointInfo, ConfigField, ConfigPreset } from '../../../../core/api/types.js';

/**
 * The training form holds one text per field path ('loss.clipEps'); these convert between it and
 * a nested config. Nothing is validated here: a value that does not convert is sent as typed, and
 * the trainer's schema on the server names the problem. Only fields that differ from their default
 * are sent, so the server fills the rest and the persisted config stays the schema's.
 */
export type ConfigFormValues = Record<string, string>;

function toText(f: ConfigField, v: unknown): string {
  if (v === null || v === undefined) return '';
  if (f.kind === 'json') return JSON.stringify(v);
  return String(v);
}

export function defaultFormValues(fields: readonly ConfigField[]): ConfigFormValues {
  return Object.fromEntries(fields.map((f) => [f.path, toText(f, f.default)]));
}

/** A nested object's leaves by dotted path (arrays are leaves). */
export function flattenConfig(obj: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) Object.assign(out, flattenConfig(v as Record<string, unknown>, path));
    else out[path] = v;
  }
  return out;
}

/** The form with a preset's fields set (other fields keep what is typed, so presets combine). */
export function applyPreset(values: ConfigFormValues, fields: readonly ConfigField[], preset: ConfigPreset, warmStart: string | null = null): ConfigFormValues {
  const byPath = new Map(fields.map((f) => [f.path, f]));
  const next = { ...values };
  for (const [path, v] of Object.entries(flattenConfig(preset.config))) {
    const f = byPath.get(path);
    if (f) next[path] = toText(f, v);
  }
  if (preset.warmStart && warmStart !== null && byPath.has('init')) next.init = warmStart;
  return next;
}

/** The warm start a preset starts from: the newest checkpoint, as a policy choice name; null when there is none. */
export function newestCheckpoint(checkpoints: readonly CheckpointInfo[]): string | null {
  const newest = [...checkpoints].sort((a, b) => b.updatedAt - a.updatedAt)[0];
  return newest ? `checkpoint:${newest.name}` : null;
}

/** The typed value of one field's text, or undefined to leave the field out (empty and optional / defaulted). */
export function fieldValue(f: ConfigField, text: string): unknown {
  const t = text.trim();
  if (t === '') return f.nullable ? null : undefined;
  const option = f.options?.find((o) => String(o) === t);
  if (option !== undefined) return option;
  switch (f.kind) {
    case 'boolean':
      return t === 'true' ? true : t === 'false' ? false : t;
    case 'integer':
    case 'number':
      return Number.isFinite(Number(t)) ? Number(t) : t;
    case 'json':
      try {
        return JSON.parse(t) as unknown;
      } catch {
        return t; // sent as typed: the server says what it expected
      }
    case 'choice':
    case 'text':
      return t;
  }
}

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = obj;
  for (const k of keys.slice(0, -1)) node = (node[k] ??= {}) as Record<string, unknown>;
  node[keys.at(-1)!] = value;
}

/** The config to send: every field whose value differs from its default, nested by path. */
export function configFromForm(values: ConfigFormValues, fields: readonly ConfigField[]): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const f of fields) {
    const v = fieldValue(f, values[f.path] ?? '');
    if (v === undefined) continue;
    if (JSON.stringify(v) === JSON.stringify(f.default)) continue;
    setPath(config, f.path, v);
  }
  return config;
}

/** Fields grouped by their first path segment; top-level leaves form the first group (''). */
export function groupFields(fields: readonly ConfigField[]): Array<{ group: string; fields: ConfigField[] }> {
  const groups = new Map<string, ConfigField[]>();
  for (const f of fields) {
    const group = f.path.includes('.') ? f.path.slice(0, f.path.indexOf('.')) : '';
    groups.set(group, [...(groups.get(group) ?? []), f]);
  }
  const out = [...groups].map(([group, fs]) => ({ group, fields: fs }));
  return [...out.filter((g) => g.group === ''), ...out.filter((g) => g.group !== '')];
}
