import { beforeAll, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { openStore, type WritableDB } from '../../core/store/db.js';
import { EpisodeNotFoundError, RunNotFoundError } from '../../core/store/errors.js';
import { asEpisodeId, asRunId, type EpisodeId } from '../../core/store/ids.js';
import { listEpisodes, successfulEpisodes } from '../../core/store/queries.js';
import { createRun, finishRun, getRun, listRuns, type Run } from '../../core/store/runs.js';
import { loadTrajectory } from '../../core/store/trajectory.js';
import { recordSynthetic } from './helpers.js';

/**
 * A store of made-up episodes across apps, statuses, runs and policies, each at a known time:
 *   run A (oracle): Contacts ×4 (success, success, failure, error), Clock ×2 (success, failure)
 *   run B (random): Contacts ×1 (failure), Clock ×2 (interrupted-to-be: running, success), Calendar ×1 (success, "100% done" instruction)
 */
let db: WritableDB;
let runA: Run;
let runB: Run;
const ids: Record<string, EpisodeId> = {};
const T0 = 1_700_000_000_000;

beforeAll(() => {
  db = openStore(':memory:');
  runA = createRun(db, { kind: 'suite', name: 'A', createdAt: T0 });
  runB = createRun(db, { kind: 'training', name: 'B', createdAt: T0 + 1 });
  const add = (key: string, run: Run, templateId: string, seed: number, status: 'success' | 'failure' | 'error' | 'running', minute: number, extra = {}) => {
    ids[key] = recordSynthetic(db, run.id, { templateId, seed, status, startedAt: T0 + minute * 60_000, policy: run === runA ? 'oracle' : 'random', ...extra });
  };
  add('c1', runA, 'ContactsAddContact', 1, 'success', 1);
  add('c2', runA, 'ContactsAddContact', 2, 'success', 2);
  add('c3', runA, 'ContactsAddContact', 3, 'failure', 3);
  add('c4', runA, 'ContactsDeleteContact', 1, 'error', 4);
  add('k1', runA, 'ClockAddAlarm', 1, 'success', 5);
  add('k2', runA, 'ClockDeleteAlarm', 1, 'failure', 6);
  add('c5', runB, 'ContactsAddContact', 1, 'failure', 7);
  add('k3', runB, 'ClockAddAlarm', 2, 'running', 8);
  add('k4', runB, 'ClockAddAlarm', 3, 'success', 9);
  add('d1', runB, 'CalendarAddEvent', 1, 'success', 10, { instruction: 'Mark the plan 100% done' });
});

const keysOf = (rows: Array<{ id: EpisodeId }>) => rows.map((r) => Object.keys(ids).find((k) => ids[k] === r.id));

describe('listEpisodes', () => {
  it('pages newest first by default, with the total and per-status counts', () => {
    const page = listEpisodes(db, { limit: 3 });
    expect(keysOf(page.rows)).toEqual(['d1', 'k4', 'k3']);
    expect(page.total).toBe(10);
    expect(page.counts).toEqual({ running: 1, success: 5, failure: 3, error: 1, interrupted: 0 });
    expect(keysOf(listEpisodes(db, { limit: 3, offset: 3 }).rows)).toEqual(['c5', 'k2', 'k1']);
    expect(keysOf(listEpisodes(db, { limit: 2, order: 'oldest' }).rows)).toEqual(['c1', 'c2']);
  });

  it('summarises each row: template, app, difficulty, seed, instruction, steps, duration', () => {
    const [row] = listEpisodes(db, { limit: 1, order: 'oldest' }).rows;
    expect(row).toMatchObject({
      templateId: 'ContactsAddContact', app: 'Contacts', difficulty: 'easy', seed: 1, instruction: 'Do ContactsAddContact #1',
      policy: 'oracle', status: 'success', steps: 2, startedAt: T0 + 60_000, durationMs: 1000,
    });
    expect(row!.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(listEpisodes(db, { status: 'running' }).rows[0]!.durationMs).toBeNull();
  });

  it('counts the steps a person overrode in each row (an overridden episode is marked in the list)', () => {
    db.prepare('UPDATE steps SET overridden = 1 WHERE episode_id = ?').run(ids.c3);
    const rows = listEpisodes(db, { templateId: 'ContactsAddContact', order: 'oldest' }).rows;
    expect(rows.map((r) => r.overriddenSteps)).toEqual([0, 0, 2, 0]);
    db.prepare('UPDATE steps SET overridden = 0 WHERE episode_id = ?').run(ids.c3);
  });

  it('filters by template, app, run and policy', () => {
    expect(keysOf(listEpisodes(db, { templateId: 'ContactsAddContact', order: 'oldest' }).rows)).toEqual(['c1', 'c2', 'c3', 'c5']);
    expect(keysOf(listEpisodes(db, { app: 'Clock', order: 'oldest' }).rows)).toEqual(['k1', 'k2', 'k3', 'k4']);
    expect(keysOf(listEpisodes(db, { runId: runB.id, order: 'oldest' }).rows)).toEqual(['c5', 'k3', 'k4', 'd1']);
    expect(listEpisodes(db, { policy: 'random' }).total).toBe(4);
  });

  it('filters by one status or several; counts stay those of the rest of the filter', () => {
    const page = listEpisodes(db, { app: 'Contacts', status: 'failure', order: 'oldest' });
    expect(keysOf(page.rows)).toEqual(['c3', 'c5']);
    expect(page.total).toBe(2);
    expect(page.counts).toEqual({ running: 0, success: 2, failure: 2, error: 1, interrupted: 0 });
    const several = listEpisodes(db, { status: ['error', 'running'], order: 'oldest' });
    expect(keysOf(several.rows)).toEqual(['c4', 'k3']);
    expect(several.total).toBe(2);
  });

  it('filters by start time, since inclusive and until exclusive', () => {
    expect(keysOf(listEpisodes(db, { since: T0 + 5 * 60_000, until: T0 + 7 * 60_000, order: 'oldest' }).rows)).toEqual(['k1', 'k2']);
  });

  it('searches instructions for a literal substring', () => {
    expect(keysOf(listEpisodes(db, { search: '100%' }).rows)).toEqual(['d1']);
    expect(keysOf(listEpisodes(db, { search: 'contactsaddcontact #3' }).rows)).toEqual(['c3']);
    expect(listEpisodes(db, { search: '_' }).total).toBe(0);
  });

  it('sorts by a column either way, ties by id, a rollout column with other episodes last; pages follow the sort', () => {
    expect(keysOf(listEpisodes(db, { sort: { by: 'seed', dir: 'desc' }, runId: runA.id }).rows)).toEqual(['c3', 'c2', 'k2', 'k1', 'c4', 'c1']);
    expect(keysOf(listEpisodes(db, { sort: { by: 'template', dir: 'asc' }, limit: 2 }).rows)).toEqual(['d1', 'k1']);
    expect(keysOf(listEpisodes(db, { sort: { by: 'template', dir: 'asc' }, limit: 2, offset: 2 }).rows)).toEqual(['k3', 'k4']);
    // Two of run B's episodes are rollouts with scores: they sort by reward, the rest after them in either direction.
    db.prepare('INSERT INTO training_rollouts (episode_id, iteration, group_index, rollout_index, reward, advantage) VALUES (?, 1, 0, 0, 0.5, -0.7), (?, 2, 0, 1, 1, 0.7)')
      .run(ids.c5, ids.k4);
    try {
      expect(keysOf(listEpisodes(db, { sort: { by: 'reward', dir: 'desc' }, runId: runB.id }).rows)).toEqual(['k4', 'c5', 'd1', 'k3']);
      expect(keysOf(listEpisodes(db, { sort: { by: 'advantage', dir: 'asc' }, runId: runB.id }).rows)).toEqual(['c5', 'k4', 'k3', 'd1']);
      expect(loadTrajectory(db, ids.k4!).rollout).toEqual({ iteration: 2, group: 0, index: 1, reward: 1, advantage: 0.7 });
      expect(loadTrajectory(db, ids.d1!).rollout).toBeUndefined();
    } finally {
      db.prepare('DELETE FROM training_rollouts').run();
    }
    expect(() => listEpisodes(db, { sort: { by: 'colour' as 'id', dir: 'asc' } })).toThrow(ZodError);
  });

  it('rejects a malformed filter at the boundary', () => {
    expect(() => listEpisodes(db, { limit: 0 })).toThrow(ZodError);
    expect(() => listEpisodes(db, { status: 'finished' as never })).toThrow(ZodError);
  });
});

describe('successfulEpisodes', () => {
  it("lists a template's successes newest first, leaving out the one being compared", () => {
    expect(keysOf(successfulEpisodes(db, 'ClockAddAlarm'))).toEqual(['k4', 'k1']);
    expect(keysOf(successfulEpisodes(db, 'ClockAddAlarm', { excludeEpisode: ids.k4 }))).toEqual(['k1']);
    expect(keysOf(successfulEpisodes(db, 'ContactsAddContact', { limit: 1 }))).toEqual(['c2']);
    expect(successfulEpisodes(db, 'ClockDeleteAlarm')).toEqual([]);
  });
});

describe('runs', () => {
  it('lists runs newest first with their episode counts', () => {
    finishRun(db, runA.id, 'finished', T0 + 3_600_000);
    const runs = listRuns(db);
    expect(runs.map((r) => r.name)).toEqual(['B', 'A']);
    expect(runs[1]).toMatchObject({ kind: 'suite', status: 'finished', finishedAt: T0 + 3_600_000, episodes: 6, counts: { success: 3, failure: 2, error: 1, running: 0, interrupted: 0 } });
    expect(runs[0]).toMatchObject({ kind: 'training', status: 'running', episodes: 4, counts: { running: 1 } });
  });

  it('names a missing run or episode in its error', () => {
    expect(() => getRun(db, asRunId(999))).toThrow(RunNotFoundError);
    expect(() => finishRun(db, asRunId(999))).toThrow(RunNotFoundError);
    expect(() => loadTrajectory(db, asEpisodeId(999))).toThrow(expect.objectContaining({ name: 'EpisodeNotFoundError', episodeId: 999 }));
    expect(() => loadTrajectory(db, asEpisodeId(999))).toThrow(EpisodeNotFoundError);
  });
});
