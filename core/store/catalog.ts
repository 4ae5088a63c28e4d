import { getTemplate, UnknownTemplateError } from '../tasks/registry.js';
import type { Difficulty } from '../tasks/task.js';
import { prepare, type WritableDB } from './db.js';
import { canonicalJson, fromJson } from './json.js';

/** Devices, task templates and task instances: the things episodes refer to. */

export const DEVICE_KINDS = ['simdroid', 'emulator', 'device'] as const;
export type DeviceKind = (typeof DEVICE_KINDS)[number];

export interface DeviceInfo {
  serial: string;
  width: number;
  height: number;
  density: number;
}

/** What kind of device a serial names, by adb's conventions (`emulator-5554`) and SimDroid's (`simdroid-…`). */
export function deviceKindOf(serial: string): DeviceKind {
  if (serial.startsWith('simdroid')) return 'simdroid';
  if (/^emulator-\d+$/.test(serial)) return 'emulator';
  return 'device';
}

/** Inserts or refreshes a device by serial (an import of older episodes keeps the seen-times' extremes); returns its row id. */
export function upsertDevice(db: WritableDB, device: DeviceInfo, kind: DeviceKind, now: number): number {
  return prepare<unknown[], number>(db, `
    INSERT INTO devices (serial, kind, width, height, density, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (serial) DO UPDATE SET kind = excluded.kind, width = excluded.width, height = excluded.height,
      density = excluded.density, first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)
    RETURNING id`).pluck().get(device.serial, kind, device.width, device.height, device.density, now, now)!;
}

export interface TemplateInfo {
  id: string;
  /** The app the template is filed under (its first); null when unknown. */
  app: string | null;
  apps: string[];
  difficulty: Difficulty | null;
  kind: 'completion' | 'information_retrieval' | null;
  tags: string[];
  template: string | null;
}

export interface TemplateRow {
  id: string;
  app: string | null;
  apps: string;
  difficulty: Difficulty | null;
  kind: 'completion' | 'information_retrieval' | null;
  tags: string;
  template: string | null;
}

export function rowToTemplate(r: TemplateRow): TemplateInfo {
  return { id: r.id, app: r.app, apps: fromJson<string[]>(r.apps), difficulty: r.difficulty, kind: r.kind, tags: fromJson<string[]>(r.tags), template: r.template };
}

/**
 * Makes sure a template row exists. The registry is the truth for templates this build knows (its
 * row is refreshed); for any other id (imported data) the row keeps what is known, filling only
 * what was missing.
 */
export function ensureTemplate(db: WritableDB, id: string, known: Partial<Omit<TemplateInfo, 'id'>> = {}): void {
  let t;
  try {
    t = getTemplate(id);
  } catch (e) {
    if (!(e instanceof UnknownTemplateError)) throw e;
  }
  if (t) {
    prepare(db, `
      INSERT INTO task_templates (id, app, apps, difficulty, kind, tags, template, in_registry) VALUES (?, ?, ?, ?, ?, ?, ?, 1)
      ON CONFLICT (id) DO UPDATE SET app = excluded.app, apps = excluded.apps, difficulty = excluded.difficulty,
        kind = excluded.kind, tags = excluded.tags, template = excluded.template, in_registry = 1`)
      .run(t.id, t.apps[0], JSON.stringify(t.apps), t.difficulty, t.kind, JSON.stringify(t.tags), t.template);
    return;
  }
  const apps = known.apps ?? [];
  prepare(db, `
    INSERT INTO task_templates (id, app, apps, difficulty, kind, tags, template, in_registry) VALUES (?, ?, ?, ?, ?, ?, ?, 0)
    ON CONFLICT (id) DO UPDATE SET
      app = coalesce(task_templates.app, excluded.app),
      apps = CASE WHEN task_templates.apps = '[]' THEN excluded.apps ELSE task_templates.apps END,
      difficulty = coalesce(task_templates.difficulty, excluded.difficulty),
      kind = coalesce(task_templates.kind, excluded.kind),
      tags = CASE WHEN task_templates.tags = '[]' THEN excluded.tags ELSE task_templates.tags END,
      template = coalesce(task_templates.template, excluded.template)`)
    .run(id, known.app ?? apps[0] ?? null, JSON.stringify(apps), known.difficulty ?? null, known.kind ?? null,
      JSON.stringify(known.tags ?? []), known.template ?? null);
}

export interface InstanceKey {
  templateId: string;
  seed: number;
  params: unknown;
  instruction: string;
}

/**
 * The row id of a task instance, inserting it if new. Instances are keyed by template, seed and
 * parameters (canonical JSON, keys sorted); the first instruction recorded for them is kept.
 */
export function ensureInstance(db: WritableDB, inst: InstanceKey): number {
  const params = canonicalJson(inst.params);
  const found = prepare<unknown[], number>(db, 'SELECT id FROM task_instances WHERE template_id = ? AND seed = ? AND params = ?')
    .pluck().get(inst.templateId, inst.seed, params);
  if (found !== undefined) return found;
  return Number(prepare(db, 'INSERT INTO task_instances (template_id, seed, params, instruction) VALUES (?, ?, ?, ?)')
    .run(inst.templateId, inst.seed, params, inst.instruction).lastInsertRowid);
}
