import type { Device } from '../device/device.js';
import { openSimDroids } from '../devices/provider.js';
import { runEpisode, type ScreenshotMode } from '../episode/runner.js';
import type { EpisodeRecorder } from '../episode/record.js';
import type { Policy } from '../episode/policy.js';
import { AdaptedPolicy, type AdapterChoice, type HomeMode } from '../policy/adapter-policy.js';
import { BuiltinPolicy, type PolicyModel } from '../policy/builtin.js';
import type { TaskInstance } from '../tasks/instance.js';
import { SPLIT_DATA } from '../tasks/splits.js';
import { scheduleOnDevices } from '../rollout/in-process.js';
import { appTestInstances, resolveAdaptApp, type AdaptTarget } from './adapt-instances.js';
import { aggregateEval, type EvalEpisode, type SeedRate } from './eval.js';

/**
 * Before / after evaluation of a per-app adapter: the greedy base policy, then the greedy base +
 * adapter (selected by the foreground package, as at inference), on the app's held-out test
 * instances (core/rl/adapt-instances.ts). Rates are core/rl/eval.ts's: the mean over evaluation
 * seeds of the per-seed success rate, with the sample std over seeds.
 */
export interface TemplateRate {
  templateId: string;
  difficulty: string;
  episodes: number;
  successes: number;
  successRate: number;
}

export interface AppEvalResult {
  /** Mean over seeds of the per-seed success rate (AW-Gen's reported figure). */
  successRate: number;
  /** Sample std over seeds; null with one seed. */
  std: number | null;
  episodes: number;
  successes: number;
  errors: number;
  perSeed: SeedRate[];
  perTemplate: TemplateRate[];
}

export interface TemplateDelta {
  templateId: string;
  difficulty: string;
  before: number;
  after: number;
  delta: number;
}

export interface BeforeAfterResult {
  before: AppEvalResult;
  after: AppEvalResult;
  /** after.successRate − before.successRate. */
  delta: number;
  perTemplate: TemplateDelta[];
}

/** One finished evaluation episode, as a progress event reports it. */
export interface EvalEpisodeEvent {
  done: number;
  total: number;
  templateId: string;
  seed: number;
  success: boolean;
}

export interface AppEvalOptions {
  devices: readonly Device[];
  /** Records each episode (a recorder per episode, e.g. a StoreRecorder of the adaptation's run) with these screenshots. */
  record?: { recorder: () => EpisodeRecorder; screenshots: ScreenshotMode };
  signal?: AbortSignal;
  onEpisode?: (e: EvalEpisodeEvent) => void;
}

/** Rates of a list of evaluated episodes (overall as core/rl/eval.ts, and per template). */
export function appEvalResult(episodes: readonly EvalEpisode[], seeds: readonly number[]): AppEvalResult {
  const report = aggregateEval(episodes, seeds);
  const ids = [...new Set(episodes.map((e) => e.templateId))];
  const perTemplate = ids.map((templateId) => {
    const mine = episodes.filter((e) => e.templateId === templateId);
    const successes = mine.filter((e) => e.success).length;
    return { templateId, difficulty: mine[0]!.difficulty, episodes: mine.length, successes, successRate: successes / mine.length };
  });
  const o = report.overall;
  return { successRate: o.mean, std: o.std, episodes: o.episodes, successes: o.successes, errors: o.errors, perSeed: o.perSeed, perTemplate };
}

export function compareEvals(before: AppEvalResult, after: AppEvalResult): BeforeAfterResult {
  const afterOf = new Map(after.perTemplate.map((t) => [t.templateId, t.successRate]));
  return {
    before, after, delta: after.successRate - before.successRate,
    perTemplate: before.perTemplate.map((t) => {
      const a = afterOf.get(t.templateId) ?? 0;
      return { templateId: t.templateId, difficulty: t.difficulty, before: t.successRate, after: a, delta: a - t.successRate };
    }),
  };
}

/** Greedy episodes of `makePolicy()` on the instances, first come first served over the devices; stops early on abort. */
export async function evaluateInstances(instances: readonly TaskInstance[], makePolicy: () => Policy, regime: string, opts: AppEvalOptions): Promise<EvalEpisode[]> {
  const out: EvalEpisode[] = [];
  await scheduleOnDevices(opts.devices, instances, (device) => async (instance) => {
    const result = await runEpisode({ device, instance, policy: makePolicy(), ...(opts.record ? { recorder: opts.record.recorder(), screenshots: opts.record.screenshots } : {}) });
    const t = instance.template;
    out.push({ seed: instance.seed, templateId: t.id, regimes: [regime], difficulty: t.difficulty, app: t.apps[0], success: result.success === true, error: result.status === 'error' });
    opts.onEpisode?.({ done: out.length, total: instances.length, templateId: t.id, seed: instance.seed, success: result.success === true });
  }, opts.signal ? { signal: opts.signal } : {});
  // Device interleaving finishes episodes out of order: report them in instance order.
  const order = new Map(instances.map((i, k) => [`${i.template.id}/${i.seed}`, k]));
  return out.sort((a, b) => order.get(`${a.templateId}/${a.seed}`)! - order.get(`${b.templateId}/${b.seed}`)!);
}

/** The greedy policy under test: the base alone, or base + the adapter of the foreground app. */
export function evalPolicyFactory(base: PolicyModel, adapter: AdapterChoice | null, home: HomeMode): () => Policy {
  return adapter ? () => new AdaptedPolicy(base, [adapter], { mode: 'greedy' }, { home }) : () => new BuiltinPolicy(base);
}

export interface BeforeAfterOptions {
  base: PolicyModel;
  adapter: AdapterChoice;
  /** What scores the home screen (default 'task-app', as the adaptation default). */
  home?: HomeMode;
  /** App name, label, alias or package; default the adapter's app. */
  app?: string;
  /** Evaluation seeds (default 30, 7, 1234: AW-Gen App. C). */
  seeds?: readonly number[];
  /** Only these test templates (default all of the app's). */
  templates?: readonly string[];
  /** Devices (default `deviceCount` in-process SimDroids, closed at the end). */
  devices?: readonly Device[];
  deviceCount?: number;
  signal?: AbortSignal;
  onEpisode?: (phase: 'before' | 'after', e: EvalEpisodeEvent) => void;
}

/** Runs `fn` on the given devices, or on `count` in-process SimDroids closed afterwards. */
export async function withDevices<T>(given: readonly Device[] | undefined, count: number, fn: (devices: readonly Device[]) => Promise<T>): Promise<T> {
  if (given?.length) return fn(given);
  const own = openSimDroids(count, 'simdroid-adapt-');
  try {
    return await fn(own);
  } finally {
    for (const d of own) d.close();
  }
}

/** The app's test instances with the base, then with base + adapter. */
export async function beforeAfter(opts: BeforeAfterOptions): Promise<BeforeAfterResult & { target: AdaptTarget }> {
  const target = resolveAdaptApp(opts.app ?? opts.adapter.app);
  const seeds = opts.seeds ?? SPLIT_DATA.seeds.test;
  const instances = appTestInstances(target, seeds, opts.templates);
  return withDevices(opts.devices, opts.deviceCount ?? 4, async (devices) => {
    const run = async (phase: 'before' | 'after', adapter: AdapterChoice | null) => appEvalResult(await evaluateInstances(
      instances, evalPolicyFactory(opts.base, adapter, opts.home ?? 'task-app'), target.regime,
      { devices, ...(opts.signal ? { signal: opts.signal } : {}), onEpisode: (e) => opts.onEpisode?.(phase, e) },
    ), seeds);
    const before = await run('before', null);
    const after = await run('after', opts.adapter);
    return { target, ...compareEvals(before, after) };
  });
}
