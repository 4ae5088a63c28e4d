import { beforeEach, describe, expect, it } from 'vitest';
import { openStore, type WritableDB } from '../../core/store/db.js';
import { RunNotFoundError } from '../../core/store/errors.js';
import { asRunId } from '../../core/store/ids.js';
import { listEpisodes } from '../../core/store/queries.js';
import { createRun, finishRun, getRun, resumeRun, type Run } from '../../core/store/runs.js';
import { loadTrajectory } from '../../core/store/trajectory.js';
import { recordSynthetic } from './helpers.js';

let db: WritableDB;
let run: Run;
beforeEach(() => {
  db = openStore(':memory:');
  run = createRun(db, { kind: 'suite', name: 'resumable', config: { split: 'unseen-instance', part: 'test', policy: 'oracle', parallel: 1 } });
});

describe('resumeRun', () => {
  it('marks running episodes interrupted, keeps their steps, and reports the finished instances', () => {
    recordSynthetic(db, run.id, { templateId: 'ContactsAddContact', seed: 1, status: 'success', startedAt: 1 });
    recordSynthetic(db, run.id, { templateId: 'ContactsAddContact', seed: 2, status: 'failure', startedAt: 2 });
    recordSynthetic(db, run.id, { templateId: 'ClockAddAlarm', seed: 1, status: 'error', startedAt: 3 });
    const cut = recordSynthetic(db, run.id, { templateId: 'ClockAddAlarm', seed: 2, status: 'running', steps: 3, startedAt: 4 });
    const other = createRun(db, { kind: 'suite', name: 'other' });
    const elsewhere = recordSynthetic(db, other.id, { templateId: 'ClockAddAlarm', seed: 9, status: 'running', startedAt: 5 });

    const state = resumeRun(db, run.id);
    expect(state.interrupted).toEqual([cut]);
    // An environment error is not finished (issue 16, D5): the resume runs it again; the agent's success and failure are.
    expect([...state.finished].sort((a, b) => a.templateId.localeCompare(b.templateId) || a.seed - b.seed)).toEqual([
      { templateId: 'ContactsAddContact', seed: 1 }, { templateId: 'ContactsAddContact', seed: 2 },
    ]);
    expect([...state.errored]).toEqual([{ templateId: 'ClockAddAlarm', seed: 1 }]);
    expect(state.finished.has('ClockAddAlarm', 2)).toBe(false);
    expect(state.finished.size).toBe(2);

    const t = loadTrajectory(db, cut);
    expect(t.episode).toMatchObject({ status: 'interrupted', stepsCount: 3, finishedAt: null });
    expect(t.steps).toHaveLength(3);
    expect(loadTrajectory(db, elsewhere).episode.status).toBe('running');
    expect(listEpisodes(db, { runId: run.id }).counts).toMatchObject({ interrupted: 1, running: 0 });
  });

  it('sets the run running again and changes nothing the second time', () => {
    finishRun(db, run.id, 'interrupted');
    const cut = recordSynthetic(db, run.id, { templateId: 'ClockAddAlarm', seed: 2, status: 'running', startedAt: 4 });
    expect(resumeRun(db, run.id).interrupted).toEqual([cut]);
    expect(getRun(db, run.id)).toMatchObject({ status: 'running', finishedAt: null });
    const again = resumeRun(db, run.id);
    // The cut episode is still the one that runs again; nothing else was marked.
    expect(again.interrupted).toEqual([cut]);
    expect(listEpisodes(db, { runId: run.id }).counts).toMatchObject({ interrupted: 1, running: 0 });
    expect(again.run.config).toEqual({ split: 'unseen-instance', part: 'test', policy: 'oracle', parallel: 1 });
  });

  it('names a missing run', () => {
    expect(() => resumeRun(db, asRunId(77))).toThrow(RunNotFoundError);
  });
});
