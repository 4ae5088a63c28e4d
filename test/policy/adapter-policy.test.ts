import { afterAll, describe, expect, it } from 'vitest';
import { requireApp } from '../../core/device/app-catalog.js';
import { observe, type Observation } from '../../core/device/observation.js';
import type { PolicyContext } from '../../core/episode/policy.js';
import { ScorerAdapter } from '../../core/policy/adapter.js';
import { AdaptedPolicy, HOME_PACKAGES, selectAdapter, type AdapterChoice } from '../../core/policy/adapter-policy.js';
import { BuiltinPolicy, createModel, type PolicyModel } from '../../core/policy/builtin.js';
import { FREE_FORM_ID, freeFormInstance } from '../../core/tasks/free-form.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { instantiate, type TaskInstance } from '../../core/tasks/instance.js';
import { createRng } from '../../core/util/rng.js';
import { device } from '../helpers/simdroid.js';

const d = device();
afterAll(() => d.close());

/** An adapter far from the identity, so base and base + adapter choose differently. */
function strongAdapter(model: PolicyModel, app: string, key: string): AdapterChoice {
  const adapter = ScorerAdapter.init({ kind: 'lowrank', rank: 3 }, model.net.dims, createRng(`policy/${key}`));
  const rng = createRng(`policy/${key}/values`);
  for (let i = 0; i < adapter.params.length; i++) adapter.params[i] = 4 * (rng.next() - 0.5);
  return { app, package: requireApp(app).package, adapter };
}

async function screenOf(app: string | null): Promise<Observation> {
  await d.shell('input keyevent KEYCODE_HOME');
  if (app) {
    const a = requireApp(app);
    await d.shell(`am start -n ${a.package}/${a.activity}`);
  }
  return observe(d);
}

const ctxFor = (instance?: TaskInstance): PolicyContext => ({
  instruction: instance?.instruction ?? 'Turn off the alarm and mark the task done', step: 0, history: [], ...(instance ? { instance } : {}),
});

/** The candidate distribution a policy gives, as a comparable list. */
const dist = (p: { act(o: Observation, c: PolicyContext): unknown }, obs: Observation, ctx: PolicyContext) =>
  ((p.act(obs, ctx) as { candidates: { score: number }[] }).candidates).map((c) => c.score);

describe('AdaptedPolicy', () => {
  const model = createModel(createRng('policy/base'));
  const clock = strongAdapter(model, 'Clock', 'clock');
  const tasks = strongAdapter(model, 'Tasks', 'tasks');

  it('scores each screen with the adapter of the foreground package, and names it in the thought', async () => {
    const policy = new AdaptedPolicy(model, [clock, tasks], { mode: 'greedy' }, { home: 'base' });
    for (const [app, adapter] of [['Clock', clock], ['Tasks', tasks]] as const) {
      const obs = await screenOf(app);
      expect(obs.foreground.package).toBe(adapter.package);
      const decision = policy.act(obs, ctxFor());
      expect(decision.thought).toMatch(new RegExp(`^\\[adapter ${app}\\] `));
      expect(dist(policy, obs, ctxFor())).toEqual(dist(new BuiltinPolicy(adapter.adapter.mergeModel(model)), obs, ctxFor()));
      expect(dist(policy, obs, ctxFor())).not.toEqual(dist(new BuiltinPolicy(model), obs, ctxFor()));
    }
    // an app without an adapter: the base
    const files = await screenOf('Files');
    expect(policy.act(files, ctxFor()).thought).toMatch(/^\[base\] /);
    expect(dist(policy, files, ctxFor())).toEqual(dist(new BuiltinPolicy(model), files, ctxFor()));
  });

  it("on the home screen uses the base, or in 'task-app' mode the adapter of the task's app", async () => {
    const home = await screenOf(null);
    expect(HOME_PACKAGES.has(home.foreground.package)).toBe(true);
    const clockTask = instantiate(getTemplate('ClockStopwatchRun'), 1);
    const filesTask = instantiate(getTemplate('FilesDeleteFile'), 1);
    const taskApp = new AdaptedPolicy(model, [clock, tasks], { mode: 'greedy' }, { home: 'task-app' });
    const baseHome = new AdaptedPolicy(model, [clock, tasks], { mode: 'greedy' }, { home: 'base' });
    expect(taskApp.act(home, ctxFor(clockTask)).thought).toMatch(/^\[adapter Clock\] /);
    expect(baseHome.act(home, ctxFor(clockTask)).thought).toMatch(/^\[base\] /);
    expect(taskApp.act(home, ctxFor(filesTask)).thought).toMatch(/^\[base\] /);
    expect(taskApp.act(home, ctxFor()).thought).toMatch(/^\[base\] /);
    // a free-form instruction's template names a placeholder app: no adapter on the home screen
    const free = freeFormInstance('Open the settings and rename the phone');
    expect(free.template.id).toBe(FREE_FORM_ID);
    expect(free.template.apps).toEqual(['Settings']);
    const settings = strongAdapter(model, 'Settings', 'settings');
    expect(new AdaptedPolicy(model, [settings]).act(home, ctxFor(free)).thought).toMatch(/^\[base\] /);
    // the pure selection rule
    const launcher = home.foreground.package;
    expect(selectAdapter(launcher, ['Calendar', 'Clock'], [clock, tasks], 'task-app')).toBe(clock.package);
    expect(selectAdapter(launcher, ['Calendar', 'Clock'], [clock, tasks], 'base')).toBeNull();
    expect(selectAdapter('org.tasks', ['Clock'], [clock, tasks], 'task-app')).toBe('org.tasks');
    expect(selectAdapter('com.google.android.documentsui', ['Clock'], [clock, tasks], 'task-app')).toBeNull();
  });

  it('records each decision with the adapter that scored it', async () => {
    const policy = new AdaptedPolicy(model, [clock], { mode: 'sample', temperature: 1, rng: createRng('policy/sample') }, { record: true, home: 'base' });
    policy.act(await screenOf(null), ctxFor());
    policy.act(await screenOf('Clock'), ctxFor());
    const records = policy.takeRecords();
    expect(records.map((r) => r.adapter)).toEqual([null, clock.package]);
    expect(records.every((r) => Number.isFinite(r.logProb) && r.n > 1)).toBe(true);
    expect(policy.takeRecords()).toEqual([]);
  });
});
