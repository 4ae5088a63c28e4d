import { spawn, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../core/store/db.js';
import { RunLiveError } from '../../core/store/errors.js';
import { schemaVersion } from '../../core/store/migrate.js';
import { createRun, finishRun, getRun, interruptRun, resumeRun, runOwner } from '../../core/store/runs.js';
import { loadTrajectory } from '../../core/store/trajectory.js';
import { currentProcess, ownerState, processStart, type ProcessOwner } from '../../core/util/process-owner.js';
import { recordSynthetic, tempDir } from './helpers.js';

/**
 * Issue 32: a run belongs to the process recording it (migration 12). A resume of a run another live process records
 * is refused, in the transaction that claims it; a run whose process died is 'interrupted' the next time the store
 * opens, not shown as live.
 */
const tmp = tempDir('awb-owners-');
afterAll(() => tmp.cleanup());
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** Another real process on this host, alive until killed. */
async function otherProcess(): Promise<{ child: ChildProcess; owner: ProcessOwner }> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(child);
  await new Promise((r) => child.once('spawn', r));
  return { child, owner: { pid: child.pid!, host: hostname(), start: processStart(child.pid!) } };
}

const setOwner = (db: Database.Database, runId: number, owner: ProcessOwner) => db.prepare('UPDATE runs SET owner = ? WHERE id = ?').run(JSON.stringify(owner), runId);

describe('run owners', () => {
  it('a run records the process that created it until it finishes', () => {
    const db = openStore(':memory:');
    const run = createRun(db, { kind: 'suite', name: 'mine' });
    expect(runOwner(db, run.id)).toEqual(currentProcess());
    finishRun(db, run.id);
    expect(runOwner(db, run.id)).toBeNull();
    db.close();
  });

  it('a resume of a run another live process records is refused, naming it; once it is gone the resume goes on', async () => {
    const path = join(tmp.dir, 'live.db');
    const db = openStore(path);
    const run = createRun(db, { kind: 'suite', name: 'someone else\'s' });
    const { child, owner } = await otherProcess();
    setOwner(db, run.id, owner);
    const cut = recordSynthetic(db, run.id, { templateId: 'ClockAddAlarm', seed: 2, status: 'running', startedAt: 4 });
    const err = (() => {
      try {
        resumeRun(db, run.id);
      } catch (e) {
        return e as RunLiveError;
      }
    })();
    expect(err).toBeInstanceOf(RunLiveError);
    expect(err!.message).toMatch(new RegExp(`^Run ${run.id} is being recorded by process ${owner.pid} \\(.*node.*\\) on `));
    // Nothing changed: the episode it is recording is still running, the run still its.
    expect(loadTrajectory(db, cut).episode.status).toBe('running');
    expect(runOwner(db, run.id)).toEqual(owner);

    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const state = resumeRun(db, run.id);
    expect(state.interrupted).toEqual([cut]);
    expect(runOwner(db, run.id)).toEqual(currentProcess());
    db.close();
  });

  it('the next open marks a run whose process died interrupted, with the episode it was recording', async () => {
    const path = join(tmp.dir, 'dead.db');
    const db = openStore(path);
    const dead = createRun(db, { kind: 'suite', name: 'crashed' });
    const live = createRun(db, { kind: 'suite', name: 'live' });
    const away = createRun(db, { kind: 'suite', name: 'another host' });
    const reused = createRun(db, { kind: 'training', name: 'pid reused' });
    const legacy = createRun(db, { kind: 'single', name: 'recorded before owners' });
    const cut = recordSynthetic(db, dead.id, { templateId: 'ClockAddAlarm', seed: 2, status: 'running', steps: 2, startedAt: 4 });
    const { child, owner } = await otherProcess();
    setOwner(db, dead.id, owner);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const other = await otherProcess();
    setOwner(db, live.id, other.owner);
    setOwner(db, away.id, { ...other.owner, host: `${hostname()}-elsewhere` });
    // The pid of a live process, but a start time it does not have: the kernel gave the pid to someone else.
    setOwner(db, reused.id, { ...other.owner, start: '1' });
    db.prepare('UPDATE runs SET owner = NULL WHERE id = ?').run(legacy.id);
    db.close();

    const again = openStore(path);
    expect(getRun(again, dead.id).status).toBe('interrupted');
    expect(getRun(again, reused.id).status).toBe('interrupted');
    expect(loadTrajectory(again, cut).episode).toMatchObject({ status: 'interrupted', stepsCount: 2 });
    for (const r of [live, away, legacy]) expect(getRun(again, r.id).status, r.name).toBe('running');
    again.close();
  });

  it('ownerState: this process is alive, a pid with another start time is dead, another host cannot be told', () => {
    const me = currentProcess();
    expect(ownerState(me)).toBe('alive');
    if (me.start !== null) expect(ownerState({ ...me, start: `${me.start}0` })).toBe('dead');
    expect(ownerState({ ...me, host: `${me.host}-x` })).toBe('elsewhere');
  });

  it('interruptRun ends the run and the episode it was recording where they are', () => {
    const db = openStore(':memory:');
    const run = createRun(db, { kind: 'single', name: 'stopped' });
    const done = recordSynthetic(db, run.id, { templateId: 'ClockAddAlarm', seed: 1, status: 'success', startedAt: 1 });
    const cut = recordSynthetic(db, run.id, { templateId: 'ClockAddAlarm', seed: 2, status: 'running', steps: 3, startedAt: 2 });
    expect(interruptRun(db, run.id)).toEqual([cut]);
    expect(getRun(db, run.id).status).toBe('interrupted');
    expect(loadTrajectory(db, cut).episode).toMatchObject({ status: 'interrupted', stepsCount: 3 });
    expect(loadTrajectory(db, done).episode.status).toBe('success');
    db.close();
  });

  it('version 12 adds the owner column to a version-11 store: its running runs have no owner and stay as they are', () => {
    const path = join(tmp.dir, 'v11.db');
    const db = openStore(path);
    const run = createRun(db, { kind: 'suite', name: 'old' });
    db.exec('ALTER TABLE runs DROP COLUMN owner');
    db.pragma('user_version = 11');
    db.close();
    const again = openStore(path);
    expect(schemaVersion(again)).toBe(12);
    expect(runOwner(again, run.id)).toBeNull();
    expect(getRun(again, run.id).status).toBe('running');
    expect(() => again.prepare('UPDATE runs SET owner = ? WHERE id = ?').run('{not json', run.id)).toThrow(/CHECK constraint/);
    again.close();
  });
});
