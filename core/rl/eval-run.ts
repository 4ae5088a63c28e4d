import { runEpisode, type ScreenshotMode } from '../episode/runner.js';
import type { EpisodeResult } from '../episode/record.js';
import { openSimDroid } from '../devices/provider.js';
import { runPool, type RolloutJob } from '../rollout/threads/run-pool.js';
import type { RemoteServers } from '../rollout/remote/servers.js';
import { createPolicy, PolicyModels, taskOf, type PolicySpec } from '../policy/registry.js';
import { getTemplate, TASKS } from '../tasks/registry.js';
import { instantiate } from '../tasks/instance.js';
import { splitTemplates, type SplitName, type SplitPart } from '../tasks/splits.js';
import type { TaskTemplate } from '../tasks/task.js';
import { createRun, finishRun, StoreRecorder, type RunId, type WritableDB } from '../store/index.js';
import { aggregateEval, type EvalEpisode, type EvalReport } from './eval.js';

/**
 * One evaluation of a policy, as `awb eval` and the workbench's Evaluate run it: every template of a
 * split part once per evaluation seed on SimDroid, each seed one 'suite' run in the store (config
 * `eval: true`, the policy, splits, part, seed), and the report of core/rl/eval.ts.
 */

/** One template to evaluate, with every requested regime whose part holds it. */
export interface EvalTemplate {
  template: TaskTemplate;
  regimes: SplitName[];
}

/**
 * The templates of the part in each regime, in order of first appearance, each once. An instance
 * is (template, evaluation seed), as AW-Gen evaluates every template on each of seeds 30, 7, 1234;
 * `adapt` evaluates the held-out templates (its seeds are the caller's).
 */
export function evalTemplates(splits: readonly SplitName[], part: SplitPart, limit?: number): EvalTemplate[] {
  const templatePart: SplitPart = part === 'adapt' ? 'test' : part;
  const byId = new Map<string, EvalTemplate>();
  for (const split of splits) {
    for (const t of splitTemplates(TASKS, split, templatePart)) {
      const e = byId.get(t.id) ?? { template: t, regimes: [] };
      e.regimes.push(split);
      byId.set(t.id, e);
    }
  }
  const all = [...byId.values()];
  return limit ? all.slice(0, limit) : all;
}

export interface EvaluationOptions {
  db: WritableDB;
  spec: PolicySpec;
  /** Models already loaded (a caller that hashed the file hands it over); default loaded from the spec's paths. */
  models?: PolicyModels;
  /** The store runs' name, before " seed N". */
  name: string;
  /** What each run's config records about the policy (e.g. its checkpoint's path and sha256). */
  policyConfig: Record<string, unknown>;
  splits: readonly SplitName[];
  part: SplitPart;
  templates: readonly EvalTemplate[];
  seeds: readonly number[];
  limit?: number;
  /** SimDroids: 1 runs in this thread (and can be stopped between episodes); more run in worker threads. */
  parallel: number;
  /** Run on these remote rollout servers (a Ray cluster's, docs/ray.md) instead: `parallel` workers there. */
  remote?: RemoteServers;
  screenshots: ScreenshotMode;
  /** More config for every run (e.g. the workbench's evaluation id). */
  extraConfig?: Record<string, unknown>;
  onEpisode?: (done: number, total: number, key: string, success: boolean) => void;
  /** Stops between episodes (parallel 1); the runs end 'interrupted'. */
  signal?: AbortSignal;
}

export interface EvaluationResult {
  runs: Array<{ seed: number; runId: number }>;
  episodes: EvalEpisode[];
  report: EvalReport;
  wallSeconds: number;
  stopped: boolean;
  /** Episodes run again after their remote worker died (each also left an environment error in its run). */
  reruns: number;
}

export async function runEvaluation(o: EvaluationOptions): Promise<EvaluationResult> {
  const regimesOf = new Map(o.templates.map((t) => [t.template.id, t.regimes]));
  // One store run per seed, so every seed's episodes can be listed and compared on their own.
  const runs = o.seeds.map((seed) => ({
    seed,
    runId: createRun(o.db, {
      kind: 'suite', name: `${o.name} seed ${seed}`,
      config: {
        eval: true, ...o.policyConfig, split: o.splits.join(','), splits: [...o.splits], part: o.part, seed, templates: o.templates.length,
        ...(o.limit ? { limit: o.limit } : {}), screenshots: o.screenshots, ...o.extraConfig,
      },
    }).id as number,
  }));
  const runOf = new Map(runs.map((r) => [r.seed, r.runId as RunId]));
  const episodes: EvalEpisode[] = [];
  const total = o.seeds.length * o.templates.length;
  const record = (seed: number, templateId: string, result: EpisodeResult | null) => {
    const t = getTemplate(templateId);
    const e: EvalEpisode = {
      seed, templateId, regimes: regimesOf.get(templateId) ?? [], difficulty: t.difficulty, app: t.apps[0],
      success: result?.success === true, error: !result || result.status === 'error',
    };
    episodes.push(e);
    o.onEpisode?.(episodes.length, total, `${seed}/${templateId}`, e.success);
  };
  const started = Date.now();
  let stopped = false;
  let ended = false;
  let reruns = 0;
  try {
    if (o.parallel === 1 && !o.remote) {
      const models = o.models ?? new PolicyModels();
      const device = openSimDroid({ serial: 'simdroid-eval' });
      try {
        outer: for (const seed of o.seeds) {
          for (const { template } of o.templates) {
            if (o.signal?.aborted) {
              stopped = true;
              break outer;
            }
            const instance = instantiate(template, seed);
            const result = await runEpisode({
              device, instance, policy: createPolicy(o.spec, { task: taskOf(instance), models }), recorder: new StoreRecorder(o.db, runOf.get(seed)!), screenshots: o.screenshots,
            });
            record(seed, template.id, result);
          }
        }
      } finally {
        device.close();
      }
    } else {
      // Workers load the policy's files from their paths (once each).
      const jobs: RolloutJob[] = o.seeds.flatMap((seed) => o.templates.map(({ template }) => ({ key: `${seed}/${template.id}`, templateId: template.id, seed, policy: o.spec })));
      reruns = (await runPool({
        devices: o.parallel, jobs, screenshots: o.screenshots, ...(o.remote ? { remote: o.remote } : {}),
        recorder: (job) => new StoreRecorder(o.db, runOf.get(job.seed)!),
        onEpisode: (job, outcome) => record(job.seed, job.templateId, outcome.ok ? outcome.result : null),
      })).reruns;
    }
    ended = !stopped;
  } finally {
    for (const r of runs) finishRun(o.db, r.runId as RunId, ended ? 'finished' : 'interrupted');
  }
  return { runs, episodes, report: aggregateEval(episodes, o.seeds), wallSeconds: (Date.now() - started) / 1000, stopped, reruns };
}
