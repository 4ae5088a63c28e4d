import { afterAll, describe, expect, it } from 'vitest';
import { EpisodeController, type ControllerState } from '../../core/episode/controller.js';
import { breakpointHit, proposalConfidence } from '../../core/episode/breakpoints.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import { ActionParseError } from '../../core/actions/schema.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { observe } from '../../core/device/observation.js';
import { device } from '../helpers/simdroid.js';

const d = device();
afterAll(() => d.close());
const rename = () => instantiate(getTemplate('SystemRenameDevice'), 2);
const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
};

describe('EpisodeController', () => {
  it('holds at each proposal when stepping, and runs to the end', async () => {
    const c = new EpisodeController({ device: d, instance: rename(), policy: new OraclePolicy() });
    const states: ControllerState[] = [];
    c.on('onState', (e) => states.push(e.state));
    const done = c.start();
    await until(() => c.state === 'paused');
    expect(c.current).toMatchObject({ index: 0, action: { action_type: 'open_app', app_name: 'Settings' } });
    c.step();
    await until(() => c.state === 'paused' && c.current?.index === 1);
    c.run();
    const r = await done;
    expect(r.success).toBe(true);
    expect(states[0]).toBe('running');
    expect(states.at(-1)).toBe('finished');
    expect(states).toContain('paused');
  });

  it('lets a person override the held action; the step is recorded as overridden', async () => {
    const c = new EpisodeController({ device: d, instance: rename(), policy: new OraclePolicy() });
    const done = c.start();
    await until(() => c.state === 'paused');
    expect(() => c.override({ action_type: 'fly' })).toThrow(ActionParseError);
    c.override({ action_type: 'navigate_home' });
    c.step();
    await until(() => c.state === 'paused' && c.current?.index === 1);
    c.stop();
    const r = await done;
    expect(r.steps[0]).toMatchObject({ overridden: true, description: 'Go to the home screen' });
    expect(r).toMatchObject({ terminatedBy: 'stopped', status: 'error' });
  });

  it('stops at breakpoints while running', async () => {
    const c = new EpisodeController({ device: d, instance: rename(), policy: new OraclePolicy() }, {
      startPaused: false,
      breakpoints: [
        { id: 'typing', enabled: true, spec: { kind: 'action_type', actionType: 'input_text' } },
        { id: 'off', enabled: false, spec: { kind: 'step', index: 0 } },
      ],
    });
    const breaks: string[][] = [];
    c.on('onBreak', (e) => breaks.push(e.breakpoints.map((b) => b.id)));
    const done = c.start();
    await until(() => c.state === 'paused');
    expect(breaks).toEqual([['typing']]);
    expect(c.current?.action).toMatchObject({ action_type: 'input_text' });
    c.run();
    expect((await done).success).toBe(true);
  });
});

describe('breakpoints', () => {
  it('evaluate invalid actions, apps, steps, terminal actions and confidence', async () => {
    d.shellBytes('am start -n com.android.settings/.Settings');
    const obs = await observe(d);
    const base = { index: 3, obs, decision: { action: {} } };
    expect(breakpointHit({ kind: 'invalid_action' }, { ...base, error: { name: 'ActionParseError', message: '' } })).toBe(true);
    expect(breakpointHit({ kind: 'invalid_action' }, { ...base, action: { action_type: 'click', index: 99999 } })).toBe(true);
    expect(breakpointHit({ kind: 'invalid_action' }, { ...base, action: { action_type: 'navigate_back' } })).toBe(false);
    expect(breakpointHit({ kind: 'app', app: 'Settings' }, base)).toBe(true);
    expect(breakpointHit({ kind: 'app', app: 'com.google.android.contacts' }, base)).toBe(false);
    expect(breakpointHit({ kind: 'step', index: 3 }, base)).toBe(true);
    expect(breakpointHit({ kind: 'terminal' }, { ...base, action: { action_type: 'answer', text: 'x' } })).toBe(true);
    const candidates = [{ action: { action_type: 'navigate_back' }, score: 0 }, { action: { action_type: 'navigate_home' }, score: Math.log(3) }];
    const unsure = { ...base, action: { action_type: 'navigate_back' as const }, decision: { action: { action_type: 'navigate_back' }, candidates } };
    expect(proposalConfidence(unsure)).toBeCloseTo(0.25);
    expect(breakpointHit({ kind: 'low_confidence', below: 0.5 }, unsure)).toBe(true);
    expect(breakpointHit({ kind: 'low_confidence', below: 0.2 }, unsure)).toBe(false);
    expect(breakpointHit({ kind: 'low_confidence', below: 0.9 }, base)).toBe(false);
  });
});
