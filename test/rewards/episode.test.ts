import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import { runEpisode } from '../../core/episode/runner.js';
import { configOfKinds, computeRewards } from '../../core/rewards/compose.js';
import { rewardEpisodeFromTrajectory, SubgoalTracker } from '../../core/rewards/episode.js';
import {
  getScreenshot, getSubgoalProgress, getTree, loadTrajectory, putRewardValues, putSubgoalProgress, StepNotFoundError, SubgoalProgressError, UnscoredReasonError,
  type WritableDB,
} from '../../core/store/index.js';
import { openStore } from '../../core/store/db.js';
import { StoreRecorder } from '../../core/store/recorder.js';
import { createRun } from '../../core/store/runs.js';
import type { EpisodeId, RunId } from '../../core/store/ids.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { imageUrls, replyChat, startFakeChat } from '../helpers/fake-chat.js';
import { device } from '../helpers/simdroid.js';
import { recordSynthetic, scriptedPolicy } from '../store/helpers.js';

let db: WritableDB;
let run: RunId;
beforeEach(() => {
  db = openStore(':memory:');
  run = createRun(db, { kind: 'single', name: 'rewards' }).id;
});
const d = device();
afterAll(() => d.close());

describe('ground-truth subgoal progress', () => {
  it('is captured per step while an oracle episode runs, stored, and handed to reward components', async () => {
    const instance = instantiate(getTemplate('ContactsAddContact'), 3);
    const recorder = new StoreRecorder(db, run);
    const tracker = new SubgoalTracker(d, instance);
    const result = await runEpisode({ device: d, instance, policy: new OraclePolicy(), recorder, onStepDone: tracker.onStepDone });
    expect(result.status).toBe('success');
    const progress = tracker.progress();
    expect(progress.names).toEqual(instance.template.subgoals(instance.params).map((s) => s.name));
    expect(progress.done).toHaveLength(result.steps.length);
    // The oracle passes every subgoal in order: the count climbs from below the total to the total.
    expect(progress.done.at(-1)).toBe(progress.names.length);
    expect(progress.done[0]).toBeLessThan(progress.names.length);
    expect(progress.done.every((n, i) => i === 0 || n >= progress.done[i - 1]!)).toBe(true);

    const id = recorder.episodeId!;
    putSubgoalProgress(db, id, progress);
    expect(getSubgoalProgress(db, id)).toEqual(progress);
    const ep = rewardEpisodeFromTrajectory(loadTrajectory(db, id), (h) => getTree(db, h));
    expect(ep.subgoalsDone).toEqual(progress.done);
    expect(ep.subgoalNames).toEqual(progress.names);
    expect(ep.success).toBe(true);
    expect(ep.params).toEqual(instance.params);
    expect(ep.steps.map((s) => s.description)).toEqual(result.steps.map((s) => s.description));
    expect(ep.steps[0]!.tree).toMatch(/^<\?xml|<hierarchy/);
  });

  it('a step that failed keeps the previous count without reading the device', async () => {
    const instance = instantiate(getTemplate('ContactsAddContact'), 3);
    const tracker = new SubgoalTracker(d, instance);
    const policy = scriptedPolicy('bad', [{ action: { action_type: 'click', index: 999 } }, { action: { action_type: 'status', goal_status: 'infeasible' } }]);
    const result = await runEpisode({ device: d, instance, policy, onStepDone: tracker.onStepDone });
    expect(result.steps[0]!.error?.name).toBe('ElementIndexError');
    expect(tracker.progress().done).toEqual([0, 0]);
  });

  it('a capture that fails (the device) ends the episode as an environment error, the step unrecorded', async () => {
    const instance = instantiate(getTemplate('ContactsAddContact'), 3);
    const recorder = new StoreRecorder(db, run);
    const result = await runEpisode({
      device: d, instance, policy: new OraclePolicy(), recorder,
      onStepDone: async () => { throw new Error('device went away'); },
    });
    expect(result.terminatedBy).toBe('environment_error');
    expect(result.status).toBe('error');
    expect(result.error?.message).toBe('step-done: Error: device went away');
    expect(result.steps).toHaveLength(0);
    expect(loadTrajectory(db, recorder.episodeId!).steps).toHaveLength(0);
  });

  it('is refused when it does not fit the stored steps', () => {
    const id = recordSynthetic(db, run, { templateId: 'ContactsAddContact', steps: 3, startedAt: 1 });
    const names = ['a', 'b'];
    expect(() => putSubgoalProgress(db, id, { names, done: [0, 1] })).toThrow(SubgoalProgressError);
    expect(() => putSubgoalProgress(db, id, { names, done: [0, 2, 1] })).toThrow(/step 2 count decreases/);
    expect(() => putSubgoalProgress(db, id, { names, done: [0, 1, 3] })).toThrow(/integer in 0\.\.2/);
    expect(getSubgoalProgress(db, id)).toBeNull();
  });
});

describe('rewardEpisodeFromTrajectory', () => {
  it('gives no verdict for an episode that ended in an error, saying how it ended', () => {
    const id = recordSynthetic(db, run, { templateId: 'ContactsAddContact', steps: 2, status: 'error', startedAt: 1 });
    const ep = rewardEpisodeFromTrajectory(loadTrajectory(db, id), (h) => getTree(db, h));
    expect(ep.success).toBeNull();
    expect(ep.verdictNote).toBe('episode error, ended by policy_error (PolicyCrash: boom)');
    expect(ep.subgoalsDone).toBeUndefined();
  });

  it('reads each distinct tree once', () => {
    const id = recordSynthetic(db, run, { templateId: 'ContactsAddContact', steps: 3, startedAt: 1 });
    const asked: string[] = [];
    const traj = loadTrajectory(db, id);
    traj.steps.forEach((s) => { s.tree = traj.steps[0]!.tree; });
    rewardEpisodeFromTrajectory(traj, (h) => (asked.push(h), getTree(db, h)));
    expect(asked).toHaveLength(1);
  });
});

describe('step screenshots', () => {
  it('are read from the store lazily, on first access, once per distinct hash', () => {
    const id = recordSynthetic(db, run, { templateId: 'ContactsAddContact', steps: 3, startedAt: 1 });
    const traj = loadTrajectory(db, id);
    traj.steps[2]!.screenshot = traj.steps[0]!.screenshot;
    const asked: string[] = [];
    const ep = rewardEpisodeFromTrajectory(traj, (h) => getTree(db, h), (h) => (asked.push(h), getScreenshot(db, h)));
    expect(asked).toEqual([]);
    expect(ep.steps[0]!.screenshot).toEqual(getScreenshot(db, traj.steps[0]!.screenshot!));
    expect(ep.steps[2]!.screenshot).toBe(ep.steps[0]!.screenshot);
    expect(ep.steps[1]!.screenshot).toEqual(getScreenshot(db, traj.steps[1]!.screenshot!));
    expect(ep.steps[0]!.screenshot).not.toEqual(ep.steps[1]!.screenshot);
    expect(asked).toEqual([traj.steps[0]!.screenshot, traj.steps[1]!.screenshot]);
  });

  it('are absent without a reader, or for a step recorded without one', () => {
    const id = recordSynthetic(db, run, { templateId: 'ContactsAddContact', steps: 2, startedAt: 1 });
    const traj = loadTrajectory(db, id);
    expect(rewardEpisodeFromTrajectory(traj, (h) => getTree(db, h)).steps.some((s) => 'screenshot' in s)).toBe(false);
    traj.steps[1]!.screenshot = null;
    const ep = rewardEpisodeFromTrajectory(traj, (h) => getTree(db, h), (h) => getScreenshot(db, h));
    expect(ep.steps.map((s) => s.screenshot === undefined)).toEqual([false, true]);
  });

  it('reach the VLM shepherd judge through the registry', async () => {
    const fake = await startFakeChat((_req, res) => replyChat(res, '{"result": 1, "reason": "fine"}'));
    try {
      const baseUrl = fake.url;
      const id = recordSynthetic(db, run, { templateId: 'ContactsAddContact', steps: 2, startedAt: 1 });
      const traj = loadTrajectory(db, id);
      traj.steps[1]!.screenshot = null;
      const ep = rewardEpisodeFromTrajectory(traj, (h) => getTree(db, h), (h) => getScreenshot(db, h));
      const config = { components: [{ kind: 'shepherd', weight: 1, options: { judge: { kind: 'vlm', baseUrl, model: 'm', retries: 0, logprobs: false } } }] };
      const r = await computeRewards(ep, config);
      expect(fake.requests.flatMap(imageUrls)).toEqual([`data:image/png;base64,${getScreenshot(db, traj.steps[0]!.screenshot!).toString('base64')}`]);
      expect(r.byKind.shepherd!.map((v) => v.value)).toEqual([1, null]);
      expect(r.byKind.shepherd![1]!.explanation).toMatch(/no screenshot recorded/);
    } finally {
      await fake.close();
    }
  });
});

describe('stored reward values', () => {
  let id: EpisodeId;
  beforeEach(() => {
    id = recordSynthetic(db, run, { templateId: 'ContactsAddContact', steps: 3, status: 'error', startedAt: 1 });
  });

  it('numbers go to the rewards by kind, unscored steps keep their reason for the viewer', async () => {
    const ep = rewardEpisodeFromTrajectory(loadTrajectory(db, id), (h) => getTree(db, h));
    const r = await computeRewards(ep, configOfKinds(['outcome', 'format']));
    for (const [kind, values] of Object.entries(r.byKind)) putRewardValues(db, id, kind, values);
    const steps = loadTrajectory(db, id).steps;
    expect(steps.map((s) => s.rewards.format?.value)).toEqual([0, 0, 0]);
    // The recorder's own outcome row (0 for an error episode) is replaced: no verdict is not a 0.
    expect(steps.map((s) => s.rewards.outcome)).toEqual([undefined, undefined, undefined]);
    expect(steps.map((s) => s.unscored?.outcome)).toEqual(Array(3).fill('no checker verdict: episode error, ended by policy_error (PolicyCrash: boom)'));
    expect(steps[0]!.unscored?.format).toBeUndefined();
  });

  it('recomputing a kind replaces both its values and its reasons', () => {
    putRewardValues(db, id, 'shepherd', [{ step: 0, value: null, explanation: 'endpoint timed out' }, { step: 1, value: 0.5, explanation: 'P = 0.5' }]);
    putRewardValues(db, id, 'shepherd', [{ step: 0, value: 0.9, explanation: 'P = 0.9' }]);
    const steps = loadTrajectory(db, id).steps;
    expect(steps.map((s) => s.rewards.shepherd?.value)).toEqual([0.9, undefined, undefined]);
    expect(steps.some((s) => s.unscored)).toBe(false);
  });

  it('refuses an unscored step without a reason, or a step the episode does not have', () => {
    expect(() => putRewardValues(db, id, 'admire', [{ step: 0, value: null, explanation: ' ' }])).toThrow(UnscoredReasonError);
    expect(() => putRewardValues(db, id, 'admire', [{ step: 7, value: null, explanation: 'x' }])).toThrow(StepNotFoundError);
  });
});
