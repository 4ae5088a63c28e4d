import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, openStoreReadonly, type WritableDB } from '../../core/store/db.js';
import { checkMigrationList, LATEST_VERSION, migrate, schemaVersion } from '../../core/store/migrate.js';
import { MIGRATIONS } from '../../core/store/migrations/index.js';
import { createRun, listRuns } from '../../core/store/runs.js';
import { MigrationListError, StoreNeedsMigrationError, StoreVersionFromFutureError } from '../../core/store/errors.js';
import { dropVersion10, tempDir } from './helpers.js';

const TABLES = [
  'devices', 'episode_subgoals', 'episodes', 'milestone_exemplars', 'milestone_versions', 'remote_jobs', 'runs', 'screenshots', 'step_reward_unscored', 'step_rewards', 'steps',
  'task_instances', 'task_templates', 'training_metrics', 'training_rollouts', 'ui_trees',
];

/** What version 8 added (to turn a fresh store back into an older version's). */
const DROP_VERSION_8 = `DROP INDEX steps_screenshot; DROP INDEX steps_tree;
  ALTER TABLE training_rollouts DROP COLUMN advantage; ALTER TABLE training_rollouts DROP COLUMN reward`;
/** What version 9 added: the checker's verdict with its conditions. */
const DROP_VERSION_9 = 'ALTER TABLE episodes DROP COLUMN verdict';

/** What version 11 added: each step's recorded request. */
const DROP_VERSION_11 = 'ALTER TABLE steps DROP COLUMN request';
/** What version 12 added: the process recording a run. */
const DROP_VERSION_12 = 'ALTER TABLE runs DROP COLUMN owner';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

function tables(db: Database.Database): Array<{ name: string; strict: number }> {
  return db.prepare(`SELECT name, strict FROM pragma_table_list WHERE schema = 'main' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as Array<{ name: string; strict: number }>;
}

describe('store migrations', () => {
  it('migrates an empty database to the latest version, every table STRICT', () => {
    const db = openStore(':memory:');
    expect(schemaVersion(db)).toBe(LATEST_VERSION);
    expect(tables(db)).toEqual(TABLES.map((name) => ({ name, strict: 1 })));
    db.close();
  });

  it('makes mandatory relations NOT NULL foreign keys', () => {
    const db = openStore(':memory:');
    const notNull = (table: string, column: string) =>
      (db.prepare(`SELECT "notnull" FROM pragma_table_info(?) WHERE name = ?`).pluck().get(table, column) as number);
    for (const [table, column] of [['episodes', 'run_id'], ['episodes', 'instance_id'], ['steps', 'episode_id'], ['task_instances', 'template_id'], ['step_rewards', 'episode_id']] as const) {
      expect(notNull(table, column), `${table}.${column}`).toBe(1);
    }
    expect(() => db.prepare(`INSERT INTO episodes (uid, run_id, instance_id, policy, status, started_at) VALUES ('u', 99, 99, 'p', 'running', 0)`).run())
      .toThrow(/FOREIGN KEY/);
    db.close();
  });

  it('opens in WAL mode with synchronous NORMAL and foreign keys on', () => {
    const path = join(tmp.dir, 'store.db');
    const db = openStore(path);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBeGreaterThan(0);
    db.close();
  });

  it('reopens an up-to-date store without changing it', () => {
    const path = join(tmp.dir, 'store.db');
    const db = openStore(path);
    createRun(db, { kind: 'single', name: 'kept' });
    db.close();
    const again = openStore(path);
    expect(schemaVersion(again)).toBe(LATEST_VERSION);
    expect(listRuns(again).map((r) => r.name)).toEqual(['kept']);
    again.close();
  });

  it('refuses a store from the future, naming both versions', () => {
    const path = join(tmp.dir, 'future.db');
    openStore(path).close();
    const raw = new Database(path);
    raw.pragma(`user_version = ${LATEST_VERSION + 3}`);
    raw.close();
    const err = (() => {
      try {
        openStore(path);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(StoreVersionFromFutureError);
    expect(err).toMatchObject({ found: LATEST_VERSION + 3, supported: LATEST_VERSION });
    expect(() => openStoreReadonly(path)).toThrow(StoreVersionFromFutureError);
  });

  it('refuses to read a store that needs migrating, read-only', () => {
    const path = join(tmp.dir, 'old.db');
    new Database(path).close();
    expect(() => openStoreReadonly(path)).toThrow(StoreNeedsMigrationError);
  });

  it('lists migrations as versions 1, 2, 3, … with a name each', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    for (const m of MIGRATIONS) expect(m.name).toMatch(/^[a-z0-9-]+$/);
    expect(() => checkMigrationList(MIGRATIONS)).not.toThrow();
    expect(() => checkMigrationList([{ version: 1 }, { version: 3 }])).toThrow(MigrationListError);
    expect(() => checkMigrationList([{ version: 2 }, { version: 1 }])).toThrow(MigrationListError);
  });

  it('applies pending migrations in one transaction: a failing one leaves the store as it was', () => {
    const raw = new Database(':memory:') as WritableDB;
    const failing = [...MIGRATIONS, { version: MIGRATIONS.length + 1, name: 'broken', up: () => { throw new Error('broken migration'); } }];
    expect(() => migrate(raw, ':memory:', failing.length, failing)).toThrow('broken migration');
    expect(schemaVersion(raw)).toBe(0);
    expect(tables(raw)).toEqual([]);
    expect(migrate(raw, ':memory:', 1)).toBe(1);
    expect(schemaVersion(raw)).toBe(1);
    raw.close();
  });

  it('version 7 adds each step\'s server usage to a version-6 store: old steps read without it, half a usage is refused', async () => {
    const { recordEpisode, scriptedPolicy } = await import('./helpers.js');
    const { loadSteps } = await import('../../core/store/steps.js');
    const { SimDroid } = await import('../../emulators/simdroid/simdroid.js');
    const path = join(tmp.dir, 'v6.db');
    const db = openStore(path);
    const device = new SimDroid({ serial: 'simdroid-migration-7' });
    const { id } = await recordEpisode(db, createRun(db, { kind: 'single', name: 'old' }).id, device, 'ClockStopwatchRun', 0,
      scriptedPolicy('p', [{ action: { action_type: 'navigate_home' } }]));
    device.close();
    // What version 6 had: no usage columns.
    db.exec('ALTER TABLE steps DROP COLUMN completion_tokens; ALTER TABLE steps DROP COLUMN prompt_tokens');
    db.exec(DROP_VERSION_12);
    db.exec(DROP_VERSION_11);
    dropVersion10(db);
    db.exec(DROP_VERSION_8);
    db.exec(DROP_VERSION_9);
    db.pragma('user_version = 6');
    db.close();
    const again = openStore(path);
    expect(schemaVersion(again)).toBe(LATEST_VERSION);
    expect(loadSteps(again, id)[0]!.usage).toBeUndefined();
    again.prepare('UPDATE steps SET prompt_tokens = 812, completion_tokens = 16').run();
    expect(loadSteps(again, id)[0]!.usage).toEqual({ promptTokens: 812, completionTokens: 16 });
    expect(() => again.prepare('UPDATE steps SET completion_tokens = NULL').run()).toThrow(/CHECK constraint/);
    again.close();
  });

  it('version 8 adds a reward and an advantage to a version-7 store\'s training rollouts: old ones read as unknown', () => {
    const path = join(tmp.dir, 'v7.db');
    const db = openStore(path);
    const run = createRun(db, { kind: 'training', name: 'old grpo' });
    db.exec(`INSERT INTO task_templates (id, app, difficulty) VALUES ('T', 'clock', 'easy')`);
    db.exec(`INSERT INTO task_instances (template_id, seed, params, instruction) VALUES ('T', 0, 'null', 'do it')`);
    db.prepare(`INSERT INTO episodes (uid, run_id, instance_id, policy, status, started_at) VALUES ('e1', ?, 1, 'builtin-grpo', 'failure', 1)`).run(run.id);
    db.exec(DROP_VERSION_12);
    db.exec(DROP_VERSION_11);
    dropVersion10(db);
    db.exec(DROP_VERSION_9);
    db.exec(DROP_VERSION_8);
    db.exec('INSERT INTO training_rollouts (episode_id, iteration, group_index, rollout_index) VALUES (1, 3, 0, 1)');
    db.pragma('user_version = 7');
    db.close();
    const again = openStore(path);
    expect(schemaVersion(again)).toBe(LATEST_VERSION);
    expect(again.prepare('SELECT iteration, reward, advantage FROM training_rollouts').get()).toEqual({ iteration: 3, reward: null, advantage: null });
    again.close();
  });

  it('version 9 stores the checker\'s conditions with the episode: old episodes read without them, the list shows the first failed one', async () => {
    const { recordSynthetic } = await import('./helpers.js');
    const { loadTrajectory } = await import('../../core/store/trajectory.js');
    const { listEpisodes } = await import('../../core/store/queries.js');
    const path = join(tmp.dir, 'v8.db');
    const db = openStore(path);
    const run = createRun(db, { kind: 'single', name: 'verdicts' }).id;
    const old = recordSynthetic(db, run, { templateId: 'ContactsAddContact', status: 'failure', startedAt: 1 });
    // What version 8 had: no verdict column.
    db.exec(DROP_VERSION_12);
    db.exec(DROP_VERSION_11);
    dropVersion10(db);
    db.exec(DROP_VERSION_9);
    db.pragma('user_version = 8');
    db.close();
    const again = openStore(path);
    expect(schemaVersion(again)).toBe(LATEST_VERSION);
    expect(loadTrajectory(again, old).episode.verdict).toBeNull();
    const verdict = { ok: false, conditions: [
      { name: 'number of contacts', ok: true, expected: '4', found: '4' },
      { name: 'contact Ann Lee has number 2412043170', ok: false, expected: '2412043170', found: '2412043107' },
    ] };
    const id = recordSynthetic(again, run, { templateId: 'ContactsAddContact', status: 'failure', startedAt: 2, verdict });
    expect(loadTrajectory(again, id).episode.verdict).toEqual(verdict);
    const reasons = Object.fromEntries(listEpisodes(again, { runId: run }).rows.map((r) => [r.id, r.reason]));
    expect(reasons).toEqual({ [old]: null, [id]: 'contact Ann Lee has number 2412043170: expected 2412043170, found 2412043107' });
    expect(() => again.prepare('UPDATE episodes SET verdict = ? WHERE id = ?').run('{not json', id)).toThrow(/CHECK constraint/);
    again.close();
  });

  it('version 10 admits runs of outside agents and keeps each step\'s prompt and reply: old rows unchanged, bad kinds still refused', async () => {
    const { recordSynthetic } = await import('./helpers.js');
    const { loadTrajectory } = await import('../../core/store/trajectory.js');
    const path = join(tmp.dir, 'v9.db');
    const db = openStore(path);
    const runs = (['suite', 'single', 'training', 'import'] as const).map((kind) => createRun(db, { kind, name: kind }).id);
    const old = recordSynthetic(db, runs[1]!, { templateId: 'ContactsAddContact', status: 'failure', startedAt: 1 });
    db.exec(DROP_VERSION_12);
    db.exec(DROP_VERSION_11);
    dropVersion10(db);
    expect(() => db.prepare(`INSERT INTO runs (uid, kind, name, status, created_at) VALUES ('e', 'env', 'too early', 'running', 1)`).run()).toThrow(/CHECK constraint/);
    db.pragma('user_version = 9');
    db.close();
    const again = openStore(path);
    expect(schemaVersion(again)).toBe(LATEST_VERSION);
    expect(again.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(again.pragma('foreign_key_check')).toEqual([]);
    expect(listRuns(again).map((r) => r.kind).sort()).toEqual(['import', 'single', 'suite', 'training']);
    expect(loadTrajectory(again, old).steps.every((st) => st.prompt === undefined && st.reply === undefined)).toBe(true);
    const env = createRun(again, { kind: 'env', name: 'outside agent' });
    expect(env.kind).toBe('env');
    expect(() => again.prepare(`INSERT INTO runs (uid, kind, name, status, created_at) VALUES ('x', 'bogus', 'b', 'running', 1)`).run()).toThrow(/CHECK constraint/);
    // A store already at the latest version is left as it is.
    again.close();
    const third = openStore(path);
    expect(schemaVersion(third)).toBe(LATEST_VERSION);
    third.close();
  });

  it('version 11 keeps the request a served model was sent per step: old steps read without it, a new one round-trips through export and import', async () => {
    const { loadTrajectory } = await import('../../core/store/trajectory.js');
    const { insertStep } = await import('../../core/store/steps.js');
    const { exportEpisodes } = await import('../../core/store/export.js');
    const { importEpisodes } = await import('../../core/store/import.js');
    const { recordSynthetic } = await import('./helpers.js');
    const path = join(tmp.dir, 'v10.db');
    const db = openStore(path);
    const run = createRun(db, { kind: 'single', name: 'requests' }).id;
    const old = recordSynthetic(db, run, { templateId: 'ContactsAddContact', status: 'failure', startedAt: 1 });
    db.exec(DROP_VERSION_12);
    db.exec(DROP_VERSION_11);
    db.pragma('user_version = 10');
    db.close();
    const again = openStore(path);
    expect(schemaVersion(again)).toBe(LATEST_VERSION);
    expect(loadTrajectory(again, old).steps.every((s) => s.request === undefined)).toBe(true);
    const id = recordSynthetic(again, run, { templateId: 'ContactsAddContact', status: 'failure', startedAt: 2 });
    const request = {
      messages: [{ role: 'system' as const, content: 'rules' }, { role: 'user' as const, content: [{ type: 'text' as const, text: 'Task' }, { type: 'image' as const, step: 0 }] }],
      format: 'qwen-mobile-use', coordinates: 'smart-resize', minPixels: 3136,
    };
    const last = loadTrajectory(again, id).steps.length;
    insertStep(again, id, { index: last, raw: {}, foreground: { package: 'p', activity: 'a' }, timings: { observeMs: 0, policyMs: 0, actMs: 0, settleMs: 0 }, startedAt: 3, request }, null, null);
    expect(loadTrajectory(again, id).steps.at(-1)!.request).toEqual(request);
    exportEpisodes(again, [id], join(tmp.dir, 'x'));
    const other = openStore(join(tmp.dir, 'other.db'));
    const [copy] = (await importEpisodes(other, join(tmp.dir, 'x'))).imported;
    expect(loadTrajectory(other, copy!).steps.at(-1)!.request).toEqual(request);
    other.close();
    again.close();
  });
});
