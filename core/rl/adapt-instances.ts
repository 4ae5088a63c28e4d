import { findApp } from '../device/app-catalog.js';
import { TASKS } from '../tasks/registry.js';
import { instantiate, type TaskInstance } from '../tasks/instance.js';
import { SPLIT_DATA, splitInstances, splitTemplates } from '../tasks/splits.js';
import { TASK_APPS, type TaskApp, type TaskTemplate } from '../tasks/task.js';
import { WorkbenchError } from '../util/errors.js';
import { createRng } from '../util/rng.js';

/**
 * Which instances a per-app adaptation trains on and is judged by (docs/adaptation.md).
 *
 * AW-Gen's few-shot adaptation (digest 004 §7.4) uses the unseen-app regime: the "unseen-app-train"
 * set (8 instances per held-out app, seeds disjoint from the test seeds, spread over the app's
 * templates: 1×8, 2×4, 4×2, 8×1) and the app's unseen-app test instances. Here the shots come from
 * the `adapt` part (held-out templates on seeds 100–107) and the test from the `test` part (seeds
 * 30, 7, 1234), both restricted to the templates that touch the app.
 *
 * The paper adapts only to held-out apps. A researcher may also want to personalise a seen app, so
 * any task app is accepted: a seen app uses the unseen-template regime instead (its held-out
 * templates, the same adapt and test seeds), and the report names the regime used.
 */
export type AdaptRegime = 'unseen-app' | 'unseen-template';

export interface AdaptTarget {
  app: TaskApp;
  package: string;
  regime: AdaptRegime;
}

export class UnknownAdaptAppError extends WorkbenchError {
  override name = 'UnknownAdaptAppError';
  constructor(readonly app: string) {
    super(`Unknown app ${JSON.stringify(app)} for adaptation; choose one of ${TASK_APPS.join(', ')} (held out in unseen-app: ${SPLIT_DATA.unseenApp.testApps.join(', ')})`);
  }
}

export class NoAdaptInstancesError extends WorkbenchError {
  override name = 'NoAdaptInstancesError';
  constructor(readonly app: string, readonly regime: AdaptRegime, readonly part: 'adapt' | 'test') {
    super(`${app} has no ${part} templates in the ${regime} regime, so it cannot be adapted and evaluated; try one of ${SPLIT_DATA.unseenApp.testApps.join(', ')}`);
  }
}

export class ShotsError extends WorkbenchError {
  override name = 'ShotsError';
  constructor(readonly app: string, readonly shots: number, readonly available: number) {
    super(`Cannot pick ${shots} adaptation instances for ${app}: shots must be an integer from 1 to ${available} (the app's adapt instances)`);
  }
}

/** The regime an app is adapted and evaluated in: unseen-app for its held-out apps, else unseen-template. */
export function regimeOf(app: TaskApp): AdaptRegime {
  return (SPLIT_DATA.unseenApp.testApps as readonly string[]).includes(app) ? 'unseen-app' : 'unseen-template';
}

/** Resolves an app by task-app name, launcher label, alias or package (case-insensitive). */
export function resolveAdaptApp(name: string): AdaptTarget {
  const entry = findApp(name);
  const app = TASK_APPS.find((a) => a === entry?.name);
  if (!entry || !app) throw new UnknownAdaptAppError(name);
  return { app, package: entry.package, regime: regimeOf(app) };
}

const touches = (app: TaskApp) => (t: TaskTemplate) => t.apps.includes(app);

/** The app's held-out templates (the test part of its regime that touch it), in registry order. */
export function appTestTemplates(target: AdaptTarget): TaskTemplate[] {
  const ts = splitTemplates(TASKS, target.regime, 'test').filter(touches(target.app));
  if (ts.length === 0) throw new NoAdaptInstancesError(target.app, target.regime, 'test');
  return ts;
}

/** Every adapt-part instance of the app (seeds 100–107 of its held-out templates, none equal to a test instance). */
export function appAdaptPool(target: AdaptTarget): TaskInstance[] {
  const pool = splitInstances(TASKS, target.regime, 'adapt').filter((i) => touches(target.app)(i.template));
  if (pool.length === 0) throw new NoAdaptInstancesError(target.app, target.regime, 'adapt');
  return pool;
}

/**
 * k adaptation instances, spread over the app's templates as the paper's sets are: templates in a
 * seeded order, then one instance of each in turn (each template's instances also in seeded order)
 * until k are picked. With T templates that gives ⌈k/T⌉ or ⌊k/T⌋ per template (8 over 4 templates:
 * 2 each; 8 over 18: one each of 8).
 */
export function pickShots(target: AdaptTarget, shots: number, seed: number): TaskInstance[] {
  const pool = appAdaptPool(target);
  if (!Number.isInteger(shots) || shots < 1 || shots > pool.length) throw new ShotsError(target.app, shots, pool.length);
  const rng = createRng(`adapt/${seed}/shots/${target.app}`);
  const byTemplate = new Map<string, TaskInstance[]>();
  for (const i of pool) byTemplate.set(i.template.id, [...(byTemplate.get(i.template.id) ?? []), i]);
  const queues = rng.shuffle([...byTemplate.keys()].sort()).map((id) => rng.fork(id).shuffle(byTemplate.get(id)!));
  const out: TaskInstance[] = [];
  for (let round = 0; out.length < shots; round++) {
    for (const q of queues) {
      if (out.length < shots && round < q.length) out.push(q[round]!);
    }
  }
  return out;
}

/** The app's test instances: every held-out template on every evaluation seed (as `awb eval`). */
export function appTestInstances(target: AdaptTarget, seeds: readonly number[] = SPLIT_DATA.seeds.test, templateIds?: readonly string[]): TaskInstance[] {
  let templates = appTestTemplates(target);
  if (templateIds) {
    const wanted = new Set(templateIds);
    templates = templates.filter((t) => wanted.has(t.id));
  }
  return seeds.flatMap((seed) => templates.map((t) => instantiate(t, seed)));
}
