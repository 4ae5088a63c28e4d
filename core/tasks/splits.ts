import { z } from 'zod';
import splitData from './splits.json' with { type: 'json' };
import { instanceKey, instantiate, type TaskInstance } from './instance.js';
import { DIFFICULTY_LEVEL, TASK_APPS, type TaskApp, type TaskTemplate } from './task.js';

/**
 * The generalization regimes of AndroidWorld-Generalization (digest 004 §3): unseen instances,
 * unseen templates, unseen apps, with the paper's seeds. Which templates and apps are held out is
 * data (splits.json); this module applies it and checks it against the paper's rules:
 *
 * - Templates whose instances do not change with the seed are left out of every regime (the paper
 *   drops its 38 such templates); `all` keeps every template for AndroidWorld-style evaluation.
 * - Unseen template: apps with a single template are dropped; within each app about a quarter of
 *   the templates are held out, and a held-out medium/hard template needs a training template of
 *   equal or lower difficulty from the same app.
 * - Unseen app: apps are disjoint; a template touching any held-out app is a test template.
 * - Train instances are deduplicated and never equal a test instance.
 */
export const SPLITS = ['unseen-instance', 'unseen-template', 'unseen-app', 'all'] as const;
export type SplitName = (typeof SPLITS)[number];
export const PARTS = ['train', 'test', 'adapt'] as const;
export type SplitPart = (typeof PARTS)[number];

const SplitFile = z.object({
  seeds: z.object({
    train: z.array(z.int().nonnegative()).min(1),
    test: z.array(z.int().nonnegative()).min(1),
    adapt: z.array(z.int().nonnegative()).min(1),
  }),
  unseenTemplate: z.object({ testTemplates: z.array(z.string()) }),
  unseenApp: z.object({ testApps: z.array(z.enum(TASK_APPS)) }),
});
export type SplitFile = z.infer<typeof SplitFile>;

export const SPLIT_DATA: SplitFile = SplitFile.parse(splitData);

export class SplitError extends Error {
  override name = 'SplitError';
}

/** True when every seed of the split gives the same instance (nothing to generalize over). */
export function isSeedInvariant(t: TaskTemplate, seeds: readonly number[] = [...SPLIT_DATA.seeds.train, ...SPLIT_DATA.seeds.test]): boolean {
  const first = instanceKey(instantiate(t, seeds[0]!));
  return seeds.every((s) => instanceKey(instantiate(t, s)) === first);
}

/** The templates of a split part (before seeds). */
export function splitTemplates(templates: readonly TaskTemplate[], split: SplitName, part: SplitPart, data = SPLIT_DATA): TaskTemplate[] {
  if (split === 'all') return [...templates];
  const varying = templates.filter((t) => !isSeedInvariant(t));
  switch (split) {
    case 'unseen-instance':
      return varying;
    case 'unseen-template': {
      const perApp = new Map<TaskApp, number>();
      for (const t of varying) perApp.set(t.apps[0], (perApp.get(t.apps[0]) ?? 0) + 1);
      const eligible = varying.filter((t) => (perApp.get(t.apps[0]) ?? 0) > 1);
      const held = new Set(data.unseenTemplate.testTemplates);
      return eligible.filter((t) => (part === 'train' ? !held.has(t.id) : held.has(t.id)));
    }
    case 'unseen-app': {
      const testApps = new Set<TaskApp>(data.unseenApp.testApps);
      const touchesTest = (t: TaskTemplate) => t.apps.some((a) => testApps.has(a));
      return varying.filter((t) => (part === 'train' ? !touchesTest(t) : touchesTest(t)));
    }
  }
}

/**
 * The task instances of a split part. Train instances come from the training seeds, deduplicated
 * and with any instance that also appears in the test part removed (the paper's manual check,
 * done by parameter equality here). `adapt` is the few-shot adaptation set: held-out templates on
 * seeds disjoint from both.
 */
export function splitInstances(templates: readonly TaskTemplate[], split: SplitName, part: SplitPart, data = SPLIT_DATA): TaskInstance[] {
  const seedsFor = (p: SplitPart) => (p === 'train' ? data.seeds.train : p === 'test' ? data.seeds.test : data.seeds.adapt);
  const forPart = (p: SplitPart) => {
    const templatePart: SplitPart = p === 'adapt' ? 'test' : p;
    const out: TaskInstance[] = [];
    const seen = new Set<string>();
    for (const t of splitTemplates(templates, split, templatePart, data)) {
      for (const seed of seedsFor(p)) {
        const inst = instantiate(t, seed);
        const key = instanceKey(inst);
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(inst);
      }
    }
    return out;
  };
  if (part === 'test') return forPart('test');
  const testKeys = new Set(forPart('test').map(instanceKey));
  return forPart(part).filter((i) => !testKeys.has(instanceKey(i)));
}

/** How far the mean difficulty (1–3) of held-out and training templates may differ. */
const MAX_DIFFICULTY_GAP = 0.25;

/** Problems with the split data against the paper's rules (empty when the data is sound). */
export function validateSplits(templates: readonly TaskTemplate[], data = SPLIT_DATA): string[] {
  const problems: string[] = [];
  const ids = new Set(templates.map((t) => t.id));
  for (const id of data.unseenTemplate.testTemplates) if (!ids.has(id)) problems.push(`unseen-template holds out unknown template ${id}`);
  const seedSets = [data.seeds.train, data.seeds.test, data.seeds.adapt];
  for (let i = 0; i < seedSets.length; i++) {
    for (let j = i + 1; j < seedSets.length; j++) {
      const overlap = seedSets[i]!.filter((s) => seedSets[j]!.includes(s));
      if (overlap.length) problems.push(`seed lists overlap: ${overlap.join(', ')}`);
    }
  }
  const train = splitTemplates(templates, 'unseen-template', 'train', data);
  const test = splitTemplates(templates, 'unseen-template', 'test', data);
  const apps = new Set(test.map((t) => t.apps[0]));
  for (const app of apps) {
    const appTrain = train.filter((t) => t.apps[0] === app);
    const appTest = test.filter((t) => t.apps[0] === app);
    if (appTrain.length === 0) problems.push(`unseen-template: ${app} has no training template`);
    for (const t of appTest) {
      const lvl = DIFFICULTY_LEVEL[t.difficulty];
      if (lvl > 1 && !appTrain.some((x) => DIFFICULTY_LEVEL[x.difficulty] <= lvl)) {
        problems.push(`unseen-template: ${t.id} (${t.difficulty}) has no training template of equal or lower difficulty in ${app}`);
      }
    }
    const share = appTest.length / (appTest.length + appTrain.length);
    if (share > 0.5) problems.push(`unseen-template: ${app} holds out ${appTest.length} of ${appTest.length + appTrain.length} templates`);
  }
  const avg = (ts: readonly TaskTemplate[]) => ts.reduce((n, t) => n + DIFFICULTY_LEVEL[t.difficulty], 0) / Math.max(1, ts.length);
  // The paper keeps the difficulty mix of train and test alike (Table 1: 1.70 vs 1.72).
  if (Math.abs(avg(train) - avg(test)) > MAX_DIFFICULTY_GAP) {
    problems.push(`unseen-template: mean difficulty ${avg(test).toFixed(2)} held out vs ${avg(train).toFixed(2)} trained`);
  }
  const appTrain = splitTemplates(templates, 'unseen-app', 'train', data);
  const appTest = splitTemplates(templates, 'unseen-app', 'test', data);
  const trainApps = new Set(appTrain.flatMap((t) => t.apps));
  for (const a of data.unseenApp.testApps) if (trainApps.has(a)) problems.push(`unseen-app: test app ${a} appears in training`);
  if (appTest.length === 0) problems.push('unseen-app: no test templates');
  if (Math.abs(avg(appTrain) - avg(appTest)) > MAX_DIFFICULTY_GAP) {
    problems.push(`unseen-app: mean difficulty ${avg(appTest).toFixed(2)} held out vs ${avg(appTrain).toFixed(2)} trained`);
  }
  return problems;
}

export function parseSplit(name: string): SplitName {
  if (!(SPLITS as readonly string[]).includes(name)) throw new SplitError(`Unknown split ${JSON.stringify(name)}; choose one of ${SPLITS.join(', ')}`);
  return name as SplitName;
}

export function parsePart(name: string): SplitPart {
  if (!(PARTS as readonly string[]).includes(name)) throw new SplitError(`Unknown split part ${JSON.stringify(name)}; choose one of ${PARTS.join(', ')}`);
  return name as SplitPart;
}

/**
 * Proposes the held-out templates of the unseen-template regime: per app (apps with one varying
 * template are dropped), a quarter of its templates, picked at evenly spaced positions of the
 * app's templates sorted by difficulty — a stratified sample, so held-out and training templates
 * have the same difficulty mix and the easiest template of an app always stays in training.
 */
export function proposeHeldOutTemplates(templates: readonly TaskTemplate[]): string[] {
  const byApp = new Map<TaskApp, TaskTemplate[]>();
  for (const t of templates.filter((x) => !isSeedInvariant(x))) byApp.set(t.apps[0], [...(byApp.get(t.apps[0]) ?? []), t]);
  const held: string[] = [];
  for (const ts of byApp.values()) {
    if (ts.length < 2) continue;
    const sorted = [...ts].sort((a, b) => DIFFICULTY_LEVEL[a.difficulty] - DIFFICULTY_LEVEL[b.difficulty] || a.id.localeCompare(b.id));
    const k = Math.max(1, Math.round(ts.length / 4));
    for (let i = 0; i < k; i++) held.push(sorted[Math.floor(((i + 0.5) * sorted.length) / k)]!.id);
  }
  return held.sort();
}

export interface SplitStats {
  split: SplitName;
  part: SplitPart;
  instances: number;
  templates: number;
  apps: number;
  meanDifficulty: number;
}

export function splitStats(templates: readonly TaskTemplate[], data = SPLIT_DATA): SplitStats[] {
  const out: SplitStats[] = [];
  for (const split of SPLITS) {
    for (const part of PARTS) {
      if (split === 'all' && part !== 'test') continue;
      const ts = splitTemplates(templates, split, part === 'adapt' ? 'test' : part, data);
      out.push({
        split, part, instances: splitInstances(templates, split, part, data).length, templates: ts.length,
        apps: new Set(ts.flatMap((t) => t.apps)).size,
        meanDifficulty: ts.reduce((n, t) => n + DIFFICULTY_LEVEL[t.difficulty], 0) / Math.max(1, ts.length),
      });
    }
  }
  return out;
}
