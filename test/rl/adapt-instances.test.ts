import { describe, expect, it } from 'vitest';
import { iterationShots } from '../../core/rl/adapt-grpo.js';
import {
  appAdaptPool, appTestInstances, appTestTemplates, NoAdaptInstancesError, pickShots, resolveAdaptApp, ShotsError, UnknownAdaptAppError,
} from '../../core/rl/adapt-instances.js';
import { AdaptConfigError, parseAdaptConfig } from '../../core/rl/adapt-config.js';
import { adaptConfigOf } from '../../core/rl/adapt.js';
import { instanceKey } from '../../core/tasks/instance.js';
import { SPLIT_DATA, splitInstances } from '../../core/tasks/splits.js';
import { TASKS } from '../../core/tasks/registry.js';

const counts = (ids: string[]) => [...ids.reduce((m, id) => m.set(id, (m.get(id) ?? 0) + 1), new Map<string, number>()).values()];

describe('adaptation instances', () => {
  it('resolve an app by name, alias or package; held-out apps use unseen-app, seen apps unseen-template', () => {
    expect(resolveAdaptApp('clock')).toEqual({ app: 'Clock', package: 'com.google.android.deskclock', regime: 'unseen-app' });
    expect(resolveAdaptApp('org.tasks').app).toBe('Tasks');
    expect(resolveAdaptApp('recipes').app).toBe('Broccoli');
    expect(resolveAdaptApp('Contacts').regime).toBe('unseen-template');
    expect(() => resolveAdaptApp('Gmail')).toThrow(UnknownAdaptAppError); // installed, not simulated: no tasks
    expect(() => resolveAdaptApp('Nope')).toThrow(/choose one of Audio Recorder, Broccoli, .*OsmAnd.* \(held out in unseen-app: Audio Recorder, Broccoli, Clock, OsmAnd, Tasks\)/);
  });

  it('spread k shots over the app\'s templates, seeded, never a test instance', () => {
    const tasks = resolveAdaptApp('Tasks');
    const templates = appTestTemplates(tasks).length;
    expect(templates).toBeGreaterThan(8);
    const eight = pickShots(tasks, 8, 0);
    expect(new Set(eight.map((i) => i.template.id)).size).toBe(8); // one each of 8 templates
    const many = pickShots(tasks, templates * 2 + 3, 0);
    const c = counts(many.map((i) => i.template.id));
    expect(Math.max(...c) - Math.min(...c)).toBeLessThanOrEqual(1);
    expect(new Set(many.map(instanceKey)).size).toBe(many.length);
    expect(pickShots(tasks, 8, 0).map(instanceKey)).toEqual(eight.map(instanceKey));
    expect(pickShots(tasks, 8, 1).map(instanceKey)).not.toEqual(eight.map(instanceKey));
    const test = new Set(splitInstances(TASKS, 'unseen-app', 'test').map(instanceKey));
    expect(many.every((i) => !test.has(instanceKey(i)) && SPLIT_DATA.seeds.adapt.includes(i.seed) && i.template.apps.includes('Tasks'))).toBe(true);
    expect(() => pickShots(tasks, 0, 0)).toThrow(ShotsError);
    expect(() => pickShots(tasks, appAdaptPool(tasks).length + 1, 0)).toThrow(/shots must be an integer from 1 to \d+/);
  });

  it('evaluate on every held-out template touching the app, once per evaluation seed', () => {
    const clock = resolveAdaptApp('Clock');
    const inst = appTestInstances(clock);
    const ids = appTestTemplates(clock).map((t) => t.id);
    expect(ids).toContain('MultiAlarmBeforeFirstEvent'); // a multi-app template touching Clock
    expect(inst).toHaveLength(ids.length * 3);
    expect([...new Set(inst.map((i) => i.seed))]).toEqual([30, 7, 1234]);
    expect(appTestInstances(clock, [7], ['ClockAddAlarm', 'ClockStopwatchRun']).map((i) => `${i.template.id}/${i.seed}`)).toEqual(['ClockAddAlarm/7', 'ClockStopwatchRun/7']);
    const contacts = resolveAdaptApp('Contacts');
    expect(appTestTemplates(contacts).map((t) => t.id).sort()).toEqual(SPLIT_DATA.unseenTemplate.testTemplates.filter((id) => id.startsWith('Contacts')).sort());
    expect(new NoAdaptInstancesError('X', 'unseen-template', 'test').message).toMatch(/X has no test templates/);
  });

  it('cycle the iterations through every shot before repeating one', () => {
    const shots = ['a', 'b', 'c', 'd', 'e'];
    const first = [0, 1].flatMap((it) => iterationShots(shots, 2, it, 0));
    expect(new Set(first).size).toBe(4);
    const pass = [0, 1, 2, 3, 4].flatMap((it) => iterationShots(shots, 1, it, 0));
    expect([...pass].sort()).toEqual(shots);
    expect(iterationShots(['x'], 2, 0, 0)).toEqual(['x']);
  });
});

describe('adaptation config', () => {
  it('defaults to the paper\'s 8 shots and 50 GRPO iterations, and shorthand options override the config', () => {
    const c = parseAdaptConfig({});
    expect(c).toMatchObject({ shots: 8, method: 'grpo', kind: 'lowrank', rank: 4, home: 'task-app', grpo: { iterations: 50, instancesPerIteration: 2, rolloutsPerInstance: 8, loss: { klBeta: 0.05 } } });
    expect(c.sft).toMatchObject({ epochs: 60, batchSize: 16, lr: 0.03 });
    const o = adaptConfigOf({ shots: 4, iterations: 7, kind: 'head', config: { grpo: { rolloutsPerInstance: 4 }, sft: { epochs: 3 } } });
    expect(o).toMatchObject({ shots: 4, kind: 'head', grpo: { iterations: 7, rolloutsPerInstance: 4 }, sft: { epochs: 3, batchSize: 16 } });
  });

  it('lists every problem', () => {
    try {
      parseAdaptConfig({ shots: 0, method: 'ppo', grpo: { iterations: -1 }, extra: 1 });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(AdaptConfigError);
      const p = (e as AdaptConfigError).problems;
      expect(p.some((x) => x.startsWith('shots'))).toBe(true);
      expect(p.some((x) => x.startsWith('method'))).toBe(true);
      expect(p.some((x) => x.startsWith('grpo.iterations'))).toBe(true);
      expect(p.some((x) => x.includes('extra'))).toBe(true);
    }
    expect(() => parseAdaptConfig({ grpo: { loss: { clipEps: 0.3, clipEpsHigh: 0.2 } } })).toThrow(/clipEpsHigh: must be ≥/);
  });

  it('takes a ray section as GRPO configs do, and grpo.rolloutWorkers up to grpo.devices; names each bad value', () => {
    expect(parseAdaptConfig({}).ray).toEqual({ address: null, envs: 4, envsPerActor: 1 });
    expect(parseAdaptConfig({}).grpo.rolloutWorkers).toBe('auto');
    expect(parseAdaptConfig({ ray: { address: 'head.example:6379', envs: 8 } }).ray).toEqual({ address: 'head.example:6379', envs: 8, envsPerActor: 1 });
    expect(parseAdaptConfig({ ray: { address: 'auto' } }).ray.address).toBe('auto');
    expect(parseAdaptConfig({ grpo: { devices: 2, rolloutWorkers: 2 } }).grpo.rolloutWorkers).toBe(2);
    const problemsOf = (input: unknown) => {
      try {
        parseAdaptConfig(input);
      } catch (e) {
        expect(e).toBeInstanceOf(AdaptConfigError);
        return (e as AdaptConfigError).problems;
      }
      return expect.unreachable();
    };
    const ray = problemsOf({ ray: { address: 'head-without-port', envs: 65, cpus: 2 } });
    expect(ray).toHaveLength(3);
    expect(ray).toContain("ray.address: must be HOST:PORT of the head's GCS, ray://HOST:PORT (Ray Client), or auto");
    expect(ray.some((p) => p.startsWith('ray.envs:'))).toBe(true);
    expect(ray.some((p) => p.includes('cpus'))).toBe(true);
    expect(problemsOf({ grpo: { devices: 2, rolloutWorkers: 3 } })).toEqual(['grpo.rolloutWorkers: each worker drives one of the devices, so at most grpo.devices (2), got 3']);
    expect(problemsOf({ grpo: { rolloutWorkers: 'many' } })).toEqual([expect.stringMatching(/^grpo\.rolloutWorkers: expected 'auto' or an integer from 0 to 64, got "many"$/)]);
  });
});
