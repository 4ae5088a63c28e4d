import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { EpisodeRecorder, EpisodeResult, ObservationRecord } from '../../core/episode/record.js';
import { runEpisode } from '../../core/episode/runner.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { getScreenshot, getTree, pngSize } from '../../core/store/content.js';
import { openStore, type WritableDB } from '../../core/store/db.js';
import { RecorderStateError } from '../../core/store/errors.js';
import { StoreRecorder } from '../../core/store/recorder.js';
import { createRun, type Run } from '../../core/store/runs.js';
import { loadTrajectory } from '../../core/store/trajectory.js';
import { device } from '../helpers/simdroid.js';
import { recordEpisode, scriptedPolicy } from './helpers.js';

const d = device();
afterAll(() => d.close());
let db: WritableDB;
let run: Run;
beforeEach(() => {
  db = openStore(':memory:');
  run = createRun(db, { kind: 'suite', name: 'recorder test', config: { split: 'all', part: 'test', policy: 'oracle' } });
});

/** Forwards to the store's recorder and keeps the observations the runner handed over. */
function spying(store: StoreRecorder, seen: ObservationRecord[]): EpisodeRecorder {
  return {
    begin: (s) => store.begin(s),
    step: (s, o) => {
      seen.push(o);
      store.step(s, o);
    },
    end: (r, f) => {
      seen.push(f);
      store.end(r, f);
    },
  };
}

describe('StoreRecorder', () => {
  it('records a successful oracle episode: every step with its screenshot and tree, the ending, an outcome reward', async () => {
    const store = new StoreRecorder(db, run.id);
    const seen: ObservationRecord[] = [];
    const instance = instantiate(getTemplate('ContactsAddContact'), 1);
    const result = await runEpisode({ device: d, instance, policy: new OraclePolicy(), screenshots: 'half', recorder: spying(store, seen) });
    expect(result.status).toBe('success');

    const t = loadTrajectory(db, store.episodeId!);
    expect(t.episode).toMatchObject({
      runId: run.id, policy: 'oracle', status: 'success', success: true, terminatedBy: 'status', error: null,
      stepsCount: result.steps.length, startedAt: result.startedAt, finishedAt: result.finishedAt, timings: result.timings,
      device: { serial: d.serial, width: 1080, height: 2400, density: 420 },
    });
    expect(t.episode.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(t.instance).toMatchObject({ templateId: 'ContactsAddContact', seed: 1, params: instance.params, instruction: instance.instruction });
    expect(t.instance.template).toMatchObject({ app: 'Contacts', difficulty: instance.template.difficulty, kind: 'completion' });

    // The stored steps are the runner's records, field for field.
    expect(t.steps.map(({ screenshot: _s, tree: _t, rewards: _r, ...step }) => step)).toEqual(result.steps);
    t.steps.forEach((s, i) => {
      expect(getScreenshot(db, s.screenshot!).equals(seen[i]!.screenshot!)).toBe(true);
      expect(getTree(db, s.tree!)).toBe(seen[i]!.xml);
    });
    expect(pngSize(getScreenshot(db, t.steps[0]!.screenshot!))).toEqual({ width: 540, height: 1200 });
    expect(getTree(db, t.final.tree!)).toBe(seen.at(-1)!.xml);
    expect(t.final.screenshot).not.toBeNull();

    const last = t.steps.length - 1;
    expect(t.steps[last]!.rewards).toEqual({ outcome: { value: 1, explanation: 'checker: success' } });
    expect(t.steps.slice(0, last).every((s) => Object.keys(s.rewards).length === 0)).toBe(true);
  });

  it('records a failure ended by a malformed action, with the parse error on the step', async () => {
    const { id, result } = await recordEpisode(db, run.id, d, 'ContactsAddContact', 2,
      scriptedPolicy('garbage', [
        { action: { action_type: 'navigate_home' }, thought: 'Start from home.', candidates: [{ action: { action_type: 'navigate_back' }, score: 0.25 }] },
        { action: '{"action_type": "click", "index": ', thought: 'Tap the add button.' },
      ]));
    expect(result.terminatedBy).toBe('malformed_action');
    const t = loadTrajectory(db, id);
    expect(t.steps.map(({ screenshot: _s, tree: _t, rewards: _r, ...step }) => step)).toEqual(result.steps);
    expect(t.steps[0]).toMatchObject({ thought: 'Start from home.', candidates: [{ action: { action_type: 'navigate_back' }, score: 0.25 }] });
    expect(t.episode).toMatchObject({ status: 'failure', success: false, terminatedBy: 'malformed_action', stepsCount: 2, error: { name: 'ActionParseError' } });
    expect(t.steps[1]).toMatchObject({ raw: '{"action_type": "click", "index": ', error: { name: 'ActionParseError' } });
    expect(t.steps[1]!.action).toBeUndefined();
    expect(t.steps[1]!.rewards.outcome).toEqual({ value: 0, explanation: 'checker: failure (ended by malformed_action)' });
  });

  it('records an impossible action as a step error and goes on', async () => {
    const { id, result } = await recordEpisode(db, run.id, d, 'ContactsAddContact', 2,
      scriptedPolicy('clumsy', [{ action: { action_type: 'click', index: 9999 } }, { action: { action_type: 'status', goal_status: 'complete' } }]));
    const t = loadTrajectory(db, id);
    expect(t.steps.map(({ screenshot: _s, tree: _t, rewards: _r, ...step }) => step)).toEqual(result.steps);
    expect(t.steps[0]).toMatchObject({ action: { action_type: 'click', index: 9999 }, error: { name: expect.any(String) } });
    expect(t.episode).toMatchObject({ status: 'failure', terminatedBy: 'status', stepsCount: 2 });
  });

  it('records an error when the policy throws, keeping the steps before it', async () => {
    const { id, result } = await recordEpisode(db, run.id, d, 'ContactsAddContact', 3,
      scriptedPolicy('crashy', [{ action: { action_type: 'navigate_home' } }, { action: { action_type: 'wait', seconds: 1 } }, new RangeError('model exploded')]));
    expect(result.status).toBe('error');
    const t = loadTrajectory(db, id);
    expect(t.episode).toMatchObject({
      status: 'error', success: false, terminatedBy: 'policy_error', stepsCount: 2, error: { name: 'RangeError', message: 'model exploded' },
    });
    expect(t.steps.map((s) => s.action?.action_type)).toEqual(['navigate_home', 'wait']);
    expect(t.steps[1]!.rewards.outcome).toEqual({ value: 0, explanation: 'no verdict: policy_error (RangeError: model exploded)' });
  });

  it('gives an episode without steps no reward', async () => {
    const { id } = await recordEpisode(db, run.id, d, 'ContactsAddContact', 4, scriptedPolicy('idle', []));
    const t = loadTrajectory(db, id);
    expect(t.episode).toMatchObject({ status: 'failure', terminatedBy: 'policy_done', stepsCount: 0 });
    expect(t.steps).toEqual([]);
    expect(db.prepare('SELECT count(*) FROM step_rewards').pluck().get()).toBe(0);
  });

  it('upserts the device by serial and the instance by template, seed and parameters', async () => {
    await recordEpisode(db, run.id, d, 'ContactsAddContact', 1);
    await recordEpisode(db, run.id, d, 'ContactsAddContact', 1);
    await recordEpisode(db, run.id, d, 'ContactsAddContact', 2, scriptedPolicy('idle', []));
    expect(db.prepare('SELECT serial, kind FROM devices').all()).toEqual([{ serial: d.serial, kind: 'simdroid' }]);
    expect(db.prepare('SELECT template_id, seed FROM task_instances ORDER BY seed').all()).toEqual([
      { template_id: 'ContactsAddContact', seed: 1 }, { template_id: 'ContactsAddContact', seed: 2 },
    ]);
    expect(db.prepare('SELECT count(*) FROM episodes').pluck().get()).toBe(3);
  });

  it('records an episode the runner ended without beginning (reset failed), with the instance from the registry', () => {
    const store = new StoreRecorder(db, run.id);
    const instance = instantiate(getTemplate('ContactsAddContact'), 5);
    const result: EpisodeResult = {
      templateId: instance.template.id, seed: 5, instruction: instance.instruction, policy: 'oracle', steps: [], success: false,
      status: 'error', outcome: { actions: [] }, terminatedBy: 'environment_error', error: { name: 'EnvironmentError', message: 'reset: adb offline' },
      timings: { resetMs: 0, checkMs: 0, totalMs: 3 }, startedAt: 1000, finishedAt: 1003,
    };
    store.end(result, { xml: '' });
    const t = loadTrajectory(db, store.episodeId!);
    expect(t.episode).toMatchObject({ status: 'error', terminatedBy: 'environment_error', device: null, error: result.error });
    expect(t.instance.params).toEqual(instance.params);
    expect(t.final).toEqual({ screenshot: null, tree: null });
  });

  it('refuses steps before begin and a second begin while an episode is open', () => {
    const store = new StoreRecorder(db, run.id);
    const step = {
      index: 0, raw: null, foreground: { package: 'p', activity: 'a' }, startedAt: 0, timings: { observeMs: 0, policyMs: 0, actMs: 0, settleMs: 0 },
    };
    expect(() => store.step(step, { xml: '<hierarchy/>' })).toThrow(RecorderStateError);
    const start = {
      templateId: 'ContactsAddContact', seed: 1, instruction: 'x', params: {}, policy: 'p',
      device: { serial: 'emulator-5554', width: 1, height: 1, density: 1 }, maxSteps: 3, startedAt: 0,
    };
    store.begin(start);
    expect(() => store.begin(start)).toThrow(RecorderStateError);
    expect(db.prepare('SELECT kind FROM devices').pluck().get()).toBe('emulator');
  });
});
