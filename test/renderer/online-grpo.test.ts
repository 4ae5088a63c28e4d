import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnlineGrpoRunInfo } from '../../core/api/job-types.js';
import type { AppStore } from '../../renderer/src/store/index.js';
import { bridgedWorkbench, type BridgedWorkbench } from '../helpers/bridged-workbench.js';
import { upsertOnlineRun } from '../../renderer/src/store/slices/jobs.js';
import type { PolicyInfo } from '../../core/api/types.js';
import { errorsByField, initChoices, iterationLine, ONLINE_FORM_INITIAL, onlineRequest } from '../../renderer/src/views/jobs/online-form.js';

const run = (runId: number, over: Partial<OnlineGrpoRunInfo> = {}): OnlineGrpoRunInfo => ({
  runId, activityId: `a${runId}`, name: `online ${runId}`, trainer: 't', policyKind: 'builtin', iterations: 2, state: 'running', startedAt: runId,
  finishedAt: null, policy: 'a fresh model', done: [], log: [], error: null, finalPolicy: null, ...over,
});

describe('the Online GRPO form and the jobs slice\'s online part', () => {
  it('onlineRequest converts the fields (blank = default) and lists every problem at its field', () => {
    expect(onlineRequest({ ...ONLINE_FORM_INITIAL, trainer: 'gpu', init: 'warm.json', config: '{"epochs": 2}', seed: '' })).toEqual({
      request: {
        trainer: 'gpu', policy: { kind: 'builtin', init: 'warm.json' }, iterations: 2, split: 'unseen-instance', part: 'train',
        limit: 4, groupSize: 4, temperature: 1, maxSteps: 20, config: { epochs: 2 },
      },
    });
    expect(onlineRequest({ ...ONLINE_FORM_INITIAL, trainer: 'gpu', kind: 'vlm', endpoint: 'lab', baseModel: ' Qwen/VL ' })).toMatchObject({
      request: { policy: { kind: 'vlm', endpoint: 'lab', baseModel: 'Qwen/VL' } },
    });
    const bad = onlineRequest({ ...ONLINE_FORM_INITIAL, kind: 'vlm', iterations: '0', groupSize: '1', temperature: '3', maxSteps: 'x', config: '[1]' });
    expect(bad).toEqual({
      errors: {
        trainer: expect.stringMatching(/add a trainer/), iterations: 'a whole number ≥ 1, got "0"', groupSize: 'a whole number ≥ 2, got "1"',
        temperature: 'in (0, 2], got "3"', maxSteps: 'a whole number ≥ 1, got "x"', config: expect.stringMatching(/a JSON object/),
        endpoint: expect.stringMatching(/choose an endpoint profile/), baseModel: expect.stringMatching(/the model the trainer loads/),
      },
    });
    expect(onlineRequest({ ...ONLINE_FORM_INITIAL, trainer: 'gpu', config: '{epochs' })).toEqual({ errors: { config: expect.stringMatching(/^not JSON/) } });
  });

  it('errorsByField puts the server\'s issue paths at the form\'s fields', () => {
    expect(errorsByField({ 'policy.init': 'no file', 'policy.baseModel': 'not loadable', 'config.epochs': 'too small', trainer: 'unknown', iterations: 'too many', odd: 'x' }))
      .toEqual({ init: 'no file', baseModel: 'not loadable', config: 'epochs: too small', trainer: 'unknown', iterations: 'too many', '': 'x' });
  });

  it('initChoices offers the trainable choices only: checkpoints and registered .json (an .onnx export, an adapter, a VLM cannot be trained)', () => {
    const info = (name: PolicyInfo['name'], kind: PolicyInfo['kind'], trainable: boolean): PolicyInfo => ({ name, description: '', kind, trainable, evaluable: true, checkpoint: null, app: null });
    expect(initChoices([
      info('oracle', 'builtin', false), info('checkpoint:run-1', 'checkpoint', true), info('checkpoint:a.json', 'policy-file', true),
      info('checkpoint:a.onnx', 'onnx', false), info('adapter:run-1/clock', 'adapter', false), info('vlm:x', 'vlm', false),
    ])).toEqual(['checkpoint:run-1', 'checkpoint:a.json']);
  });

  it('iterationLine names the success rate, reward, job and the policy switched to; upsertOnlineRun keeps newest first', () => {
    const it1 = { iteration: 1, successRate: 0.375, rewardMean: 0.375, groupsSkipped: 0, job: { localId: 4, remoteId: '000004-ab' }, policy: '/d/jobs/t/000004-ab/policy.json', metrics: {} };
    expect(iterationLine({ iterations: 2 }, it1)).toBe('iteration 1/2: success 38%, reward 0.375; job 4 (000004-ab) → /d/jobs/t/000004-ab/policy.json');
    expect(iterationLine({ iterations: 2 }, { ...it1, job: null, groupsSkipped: 2, policy: 'p' })).toBe('iteration 1/2: success 38%, reward 0.375; nothing submitted (2 group(s) without a reward spread), policy stays p');
    const runs = upsertOnlineRun(upsertOnlineRun([], run(1)), run(2));
    expect(runs.map((r) => r.runId)).toEqual([2, 1]);
    expect(upsertOnlineRun(runs, run(1, { state: 'finished' })).map((r) => [r.runId, r.state])).toEqual([[2, 'running'], [1, 'finished']]);
  });
});

describe('the jobs slice\'s startOnlineGrpo against the real workbench (over the bridge, no trainer reachable)', () => {
  let bridged: BridgedWorkbench;
  let store: AppStore;

  beforeAll(async () => {
    bridged = await bridgedWorkbench('awb-online-slice-', {}, (dir) => {
      mkdirSync(join(dir, 'policies'));
      writeFileSync(join(dir, 'policies', 'm.onnx'), 'not really onnx');
    });
    ({ store } = bridged);
  });
  afterAll(() => bridged.close());

  it('a refusal lands at its field (the input schema\'s and the workbench\'s), nothing is added, and the form is not busy', async () => {
    const st = () => store.getState();
    await st().startOnlineGrpo({ trainer: 'nowhere', policy: { kind: 'builtin' }, iterations: 1 });
    expect(errorsByField(st().onlineErrors)).toEqual({ trainer: expect.stringMatching(/nowhere/) });
    await st().startOnlineGrpo({ trainer: 'nowhere', policy: { kind: 'builtin', init: '../up.json' }, iterations: 1 });
    expect(errorsByField(st().onlineErrors)).toEqual({ init: expect.stringMatching(/names, not paths/) });
    await st().startOnlineGrpo({ trainer: 'nowhere', policy: { kind: 'builtin', init: 'm.onnx' }, iterations: 1 });
    expect(errorsByField(st().onlineErrors)).toEqual({ init: expect.stringMatching(/\.onnx export cannot be trained/) });
    expect(st().onlineRuns).toEqual([]);
    expect(st().onlineBusy).toBe(false);
    await st().loadJobs();
    expect(st().onlineRuns).toEqual([]);
  });
});
