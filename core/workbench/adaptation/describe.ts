import { ADAPTER_KINDS, MAX_ADAPTER_RANK } from '../../policy/adapter.js';
import { HOME_MODES } from '../../policy/adapter-policy.js';
import { ADAPT_METHODS, AdaptConfigSchema, parseAdaptConfig } from '../../rl/adapt-config.js';
import { resolveAdaptApp, type AdaptRegime, type AdaptTarget } from '../../rl/adapt-instances.js';
import { TASKS } from '../../tasks/registry.js';
import { SPLIT_DATA, splitInstances, splitTemplates } from '../../tasks/splits.js';
import { TASK_APPS, type TaskApp } from '../../tasks/task.js';
import { configFields } from '../training/describe.js';
import type { AdaptableApp, AdaptationDescription } from '../../api/adaptation-types.js';

/**
 * What the Adaptation view's form needs: the apps that can be adapted (each with its regime and how
 * many shots and test templates it has), the methods and adapter kinds, the defaults, and every
 * config field with its description (from core/rl/adapt-config.ts, the single source).
 */

/**
 * The app's counts as core/rl/adapt-instances.ts picks them (the regime's adapt instances and test
 * templates that touch the app), or null when it has none (it cannot be adapted). Each regime's
 * split is computed once: instantiating every template per app would take a second per call.
 */
function counter(): (target: AdaptTarget) => AdaptableApp | null {
  const parts = new Map<AdaptRegime, { adapt: Array<readonly TaskApp[]>; test: Array<readonly TaskApp[]> }>();
  const partsOf = (regime: AdaptRegime) => {
    let p = parts.get(regime);
    if (!p) {
      p = { adapt: splitInstances(TASKS, regime, 'adapt').map((i) => i.template.apps), test: splitTemplates(TASKS, regime, 'test').map((t) => t.apps) };
      parts.set(regime, p);
    }
    return p;
  };
  return (target) => {
    const p = partsOf(target.regime);
    const adaptInstances = p.adapt.filter((apps) => apps.includes(target.app)).length;
    const testTemplates = p.test.filter((apps) => apps.includes(target.app)).length;
    if (adaptInstances === 0 || testTemplates === 0) return null;
    return { app: target.app, package: target.package, regime: target.regime, heldOut: target.regime === 'unseen-app', adaptInstances, testTemplates };
  };
}

let apps: AdaptableApp[] | null = null;

/** Held-out apps first (in the split's order), then the others (in the task suite's order); computed once (the suite is fixed). */
export function adaptableApps(): AdaptableApp[] {
  if (!apps) {
    const heldOut: readonly string[] = SPLIT_DATA.unseenApp.testApps;
    const count = counter();
    apps = [...heldOut, ...TASK_APPS.filter((a) => !heldOut.includes(a))]
      .map((a) => count(resolveAdaptApp(a))).filter((a): a is AdaptableApp => a !== null);
  }
  return apps.map((a) => ({ ...a }));
}

export function describeAdaptation(): AdaptationDescription {
  const d = parseAdaptConfig({});
  return {
    apps: adaptableApps(),
    methods: ADAPT_METHODS, kinds: ADAPTER_KINDS, homeModes: HOME_MODES, maxRank: MAX_ADAPTER_RANK,
    defaults: {
      shots: d.shots, method: d.method, kind: d.kind, rank: d.rank, iterations: d.grpo.iterations, epochs: d.sft.epochs,
      seed: d.seed, home: d.home, evalSeeds: [...SPLIT_DATA.seeds.test],
    },
    fields: configFields(AdaptConfigSchema),
  };
}
