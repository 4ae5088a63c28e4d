import { afterAll, describe, expect, it } from 'vitest';
import { runEpisode } from '../../core/episode/runner.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import { ReplayPolicy } from '../../core/episode/policies/replay.js';
import { HumanPolicy } from '../../core/episode/policies/human.js';
import type { Policy } from '../../core/episode/policy.js';
import type { EpisodeRecorder, EpisodeResult, EpisodeStart, ObservationRecord, StepRecord } from '../../core/episode/record.js';
import type { Device } from '../../core/device/device.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { device } from '../helpers/simdroid.js';

const d = device();
afterAll(() => d.close());
const wifi = () => instantiate(getTemplate('SystemWifiTurnOff'), 1);

class MemoryRecorder implements EpisodeRecorder {
  start?: EpisodeStart;
  steps: Array<{ step: StepRecord; before: ObservationRecord }> = [];
  result?: EpisodeResult;
  final?: ObservationRecord;
  begin(s: EpisodeStart) { this.start = s; }
  step(step: StepRecord, before: ObservationRecord) { this.steps.push({ step, before }); }
  end(r: EpisodeResult, f: ObservationRecord) { this.result = r; this.final = f; }
}

const scripted = (actions: unknown[], name = 'scripted'): Policy => {
  let i = 0;
  return { name, act: () => ({ action: actions[Math.min(i++, actions.length - 1)] }) };
};

describe('runEpisode', () => {
  it('records every step with its observation, timings, target and description, and the final screen', async () => {
    const rec = new MemoryRecorder();
    const r = await runEpisode({ device: d, instance: wifi(), policy: new OraclePolicy(), recorder: rec, screenshots: 'half' });
    expect(r).toMatchObject({ success: true, status: 'success', terminatedBy: 'status' });
    expect(rec.start).toMatchObject({ templateId: 'SystemWifiTurnOff', seed: 1, policy: 'oracle', maxSteps: 20, device: { width: 1080 } });
    expect(rec.steps).toHaveLength(r.steps.length);
    for (const { step, before } of rec.steps) {
      expect(before.xml.startsWith("<?xml version='1.0'")).toBe(true);
      expect(before.screenshot!.subarray(1, 4).toString()).toBe('PNG');
      expect(step.timings.observeMs).toBeGreaterThanOrEqual(0);
      expect(step.description).toBeTruthy();
    }
    const tap = rec.steps.find((s) => s.step.action?.action_type === 'click')!.step;
    expect(tap.target).toMatchObject({ label: expect.any(String), bounds: expect.objectContaining({ left: expect.any(Number) }) });
    expect(rec.final!.xml).toContain('hierarchy');
    expect(r.timings.totalMs).toBeGreaterThanOrEqual(r.timings.resetMs);
  });

  it('ends on the step budget (the template may set its own)', async () => {
    const r = await runEpisode({ device: d, instance: wifi(), policy: scripted([{ action_type: 'wait' }]), maxSteps: 3 });
    expect(r).toMatchObject({ terminatedBy: 'max_steps', status: 'failure' });
    expect(r.steps).toHaveLength(3);
  });

  it('records a policy that throws as an error, not a failure', async () => {
    const rec = new MemoryRecorder();
    const policy: Policy = { name: 'broken', act: () => { throw new TypeError('model exploded'); } };
    const r = await runEpisode({ device: d, instance: wifi(), policy, recorder: rec });
    expect(r).toMatchObject({ status: 'error', terminatedBy: 'policy_error', error: { name: 'TypeError', message: 'model exploded' } });
    expect(rec.result?.status).toBe('error');
  });

  it('ends the episode on garbage by default, or records it and goes on', async () => {
    const garbage = scripted(['not an action', { action_type: 'status', goal_status: 'complete' }]);
    const ended = await runEpisode({ device: d, instance: wifi(), policy: garbage });
    expect(ended).toMatchObject({ terminatedBy: 'malformed_action', status: 'failure', error: { name: 'ActionParseError' } });
    expect(ended.steps[0]!.error?.name).toBe('ActionParseError');
    const went = await runEpisode({ device: d, instance: wifi(), policy: scripted(['not an action', { action_type: 'status', goal_status: 'complete' }]), onMalformed: 'continue' });
    expect(went.terminatedBy).toBe('status');
    expect(went.steps.map((s) => s.error?.name ?? 'ok')).toEqual(['ActionParseError', 'ok']);
  });

  it('records impossible actions as failed steps and leaves the device alone', async () => {
    const r = await runEpisode({ device: d, instance: wifi(), policy: scripted([{ action_type: 'click', index: 9999 }, { action_type: 'input_text', text: 'x' }, { action_type: 'status', goal_status: 'complete' }]) });
    expect(r.steps.map((s) => s.error?.name ?? 'ok')).toEqual(['ElementIndexError', 'NoFocusedFieldError', 'ok']);
    expect(r.status).toBe('failure');
  });

  it('ends with an environment error when the device fails, without trusting the checker', async () => {
    let calls = 0;
    const flaky: Device = new Proxy(d, {
      get(target, prop, receiver) {
        if (prop === 'input') return async () => { if (++calls > 1) throw new Error('device offline'); };
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const r = await runEpisode({ device: flaky, instance: wifi(), policy: new OraclePolicy() });
    expect(r).toMatchObject({ status: 'error', terminatedBy: 'environment_error', success: false });
    expect(r.error?.message).toContain('device offline');
  });

  it('ends quietly when the policy has nothing more to do', async () => {
    const r = await runEpisode({ device: d, instance: wifi(), policy: new ReplayPolicy([{ action_type: 'navigate_home' }]) });
    expect(r).toMatchObject({ terminatedBy: 'policy_done', status: 'failure' });
    expect(r.steps).toHaveLength(1);
  });
});

describe('policies', () => {
  it('replay re-executes a recorded solution and reaches the same end', async () => {
    const inst = instantiate(getTemplate('SystemRenameDevice'), 4);
    const first = await runEpisode({ device: d, instance: inst, policy: new OraclePolicy() });
    const replay = await runEpisode({ device: d, instance: inst, policy: new ReplayPolicy(first.steps.map((s) => s.raw)) });
    expect(replay.success).toBe(true);
    expect(replay.steps.map((s) => s.description)).toEqual(first.steps.map((s) => s.description));
  });

  it('replay hands over to another policy after the recorded prefix', async () => {
    const inst = instantiate(getTemplate('SystemRenameDevice'), 4);
    const first = await runEpisode({ device: d, instance: inst, policy: new OraclePolicy() });
    const r = await runEpisode({ device: d, instance: inst, policy: new ReplayPolicy(first.steps.slice(0, 2).map((s) => s.raw), new OraclePolicy()) });
    expect(r.steps[0]!.thought).toBe('Replaying recorded step 1.');
    expect(r.steps.length).toBeGreaterThan(2);
  });

  it('a human supplies actions from outside, one at a time', async () => {
    const human = new HumanPolicy();
    const episode = runEpisode({ device: d, instance: wifi(), policy: human });
    await new Promise((r) => setTimeout(r, 20));
    expect(human.awaiting).toBe(true);
    expect(human.lastObservation?.foreground.package).toBe('com.google.android.apps.nexuslauncher');
    human.supply({ action_type: 'open_app', app_name: 'Settings' }, 'Settings has the Wi-Fi switch');
    human.end();
    const r = await episode;
    expect(r.steps).toHaveLength(1);
    expect(r.steps[0]).toMatchObject({ description: 'Open Settings', thought: 'Settings has the Wi-Fi switch' });
    expect(r.terminatedBy).toBe('policy_done');
  });
});
