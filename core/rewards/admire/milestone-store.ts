import { inTransaction, prepare, type ReadableDB, type WritableDB } from '../../store/db.js';
import { parseJson } from './json.js';
import type { DistillerKind } from './distill.js';

/** One version of a template's milestone list. */
export interface MilestoneVersion {
  templateId: string;
  /** 1, 2, … in the order they were distilled. */
  version: number;
  milestones: string[];
  distiller: DistillerKind;
  /** Successes kept for the template when this version was distilled. */
  successes: number;
  createdAt: number;
}

/** Where milestone memories persist: the trajectory store (migration 0004), or memory for tests. */
export interface MilestoneStore {
  latest(templateId: string): MilestoneVersion | null;
  /** Oldest first. */
  versions(templateId: string): MilestoneVersion[];
  /** Stores the next version; `v.version` must be the latest + 1. */
  putVersion(v: MilestoneVersion): void;
  /** The kept exemplars (abstracted descriptions), oldest first. */
  exemplars(templateId: string): string[][];
  /** Appends exemplars and keeps only the newest `keep`. */
  addExemplars(templateId: string, list: ReadonlyArray<readonly string[]>, keep: number, now: number): void;
  templates(): string[];
}

export class MilestoneVersionError extends Error {
  override name = 'MilestoneVersionError';
  constructor(readonly templateId: string, readonly expected: number, readonly got: number) {
    super(`Milestones of ${templateId}: the next version is ${expected}, got ${got}`);
  }
}

function checkNext(latest: MilestoneVersion | null, v: MilestoneVersion): void {
  const expected = (latest?.version ?? 0) + 1;
  if (v.version !== expected) throw new MilestoneVersionError(v.templateId, expected, v.version);
}

export class MemoryMilestoneStore implements MilestoneStore {
  private readonly byTemplate = new Map<string, MilestoneVersion[]>();
  private readonly ex = new Map<string, string[][]>();
  latest(t: string) { return this.byTemplate.get(t)?.at(-1) ?? null; }
  versions(t: string) { return [...(this.byTemplate.get(t) ?? [])]; }
  putVersion(v: MilestoneVersion) {
    checkNext(this.latest(v.templateId), v);
    this.byTemplate.set(v.templateId, [...this.versions(v.templateId), { ...v, milestones: [...v.milestones] }]);
  }
  exemplars(t: string) { return (this.ex.get(t) ?? []).map((e) => [...e]); }
  addExemplars(t: string, list: ReadonlyArray<readonly string[]>, keep: number) {
    this.ex.set(t, [...(this.ex.get(t) ?? []), ...list.map((e) => [...e])].slice(-keep));
  }
  templates() { return [...this.byTemplate.keys()].sort(); }
}

interface VersionRow {
  template_id: string;
  version: number;
  milestones: string;
  distiller: DistillerKind;
  successes: number;
  created_at: number;
}

const rowToVersion = (r: VersionRow): MilestoneVersion => ({
  templateId: r.template_id, version: r.version, milestones: parseJson(r.milestones, 'milestone_versions.milestones', isStringArray),
  distiller: r.distiller, successes: r.successes, createdAt: r.created_at,
});

const isStringArray = (x: unknown): x is string[] => Array.isArray(x) && x.every((s) => typeof s === 'string');

/** A template's stored milestone versions, oldest first, through a read-only handle (the failure analysis reads them, never writes). */
export function storedMilestoneVersions(db: ReadableDB, templateId: string): MilestoneVersion[] {
  return prepare<[string], VersionRow>(db, 'SELECT * FROM milestone_versions WHERE template_id = ? ORDER BY version').all(templateId).map(rowToVersion);
}

/** The trajectory store's milestone tables (migration 0004). */
export class SqliteMilestoneStore implements MilestoneStore {
  constructor(private readonly db: WritableDB) {}

  latest(templateId: string): MilestoneVersion | null {
    const r = prepare<[string], VersionRow>(this.db as ReadableDB, 'SELECT * FROM milestone_versions WHERE template_id = ? ORDER BY version DESC LIMIT 1').get(templateId);
    return r ? rowToVersion(r) : null;
  }

  versions(templateId: string): MilestoneVersion[] {
    return storedMilestoneVersions(this.db, templateId);
  }

  putVersion(v: MilestoneVersion): void {
    inTransaction(this.db, () => {
      checkNext(this.latest(v.templateId), v);
      prepare(this.db, 'INSERT INTO milestone_versions (template_id, version, milestones, distiller, successes, created_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(v.templateId, v.version, JSON.stringify(v.milestones), v.distiller, v.successes, v.createdAt);
    });
  }

  exemplars(templateId: string): string[][] {
    return prepare<[string], string>(this.db, 'SELECT descriptions FROM milestone_exemplars WHERE template_id = ? ORDER BY id').pluck().all(templateId)
      .map((d) => parseJson(d, 'milestone_exemplars.descriptions', isStringArray));
  }

  addExemplars(templateId: string, list: ReadonlyArray<readonly string[]>, keep: number, now: number): void {
    inTransaction(this.db, () => {
      const insert = prepare(this.db, 'INSERT INTO milestone_exemplars (template_id, descriptions, added_at) VALUES (?, ?, ?)');
      for (const e of list) insert.run(templateId, JSON.stringify(e), now);
      prepare(this.db, `DELETE FROM milestone_exemplars WHERE template_id = ? AND id NOT IN
        (SELECT id FROM milestone_exemplars WHERE template_id = ? ORDER BY id DESC LIMIT ?)`).run(templateId, templateId, keep);
    });
  }

  templates(): string[] {
    return prepare<[], string>(this.db, 'SELECT DISTINCT template_id FROM milestone_versions ORDER BY template_id').pluck().all();
  }
}
