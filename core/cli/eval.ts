import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { runEpisode } from '../episode/runner.js';
import { runPool, type RolloutJob } from '../rollout/threads/run-pool.js';
import type { EpisodeResult } from '../episode/record.js';
import type { PolicyModel } from '../policy/builtin.js';
import { CheckpointError, deserializeCheckpoint } from '../policy/checkpoint.js';
import type { OnnxPolicyModel } from '../policy/onnx/index.js';
import { createPolicy, PolicyModels, taskOf, type PolicySpec } from '../policy/registry.js';
import { aggregateEval, formatMeanStd, type EvalEpisode, type GroupStats } from '../rl/eval.js';
import { getTemplate, TASKS } from '../tasks/registry.js';
import { instantiate } from '../tasks/instance.js';
import { parsePart, parseSplit, SPLIT_DATA, splitTemplates, type SplitName, type SplitPart } from '../tasks/splits.js';
import type { TaskTemplate } from '../tasks/task.js';
import { createRun, finishRun, StoreRecorder, type RunId } from '../store/index.js';
import { assertNever } from '../util/errors.js';
import { intArg, parseFlags, UsageError } from './args.js';
import { pct, progressBar, table } from './format.js';
import { embeddedDevice, type Io } from './main.js';
import { loadOnnxPolicyArg, onnxPolicyPath } from './policies.js';
import { openDb } from './open-db.js';
import { evalCompareCommand } from './eval-compare.js';

const USAGE = 'awb eval --policy CHECKPOINT|MODEL.onnx|oracle|random [--split unseen-instance|unseen-template|unseen-app|all[,…]] [--part test|train|adapt]\n'
  + '         [--seeds 30,7,1234] [--limit N] [--parallel N] [--screenshots none|half|full] [--db PATH] [--json]\n'
  + 'awb eval compare RUN_ID... [--db PATH] [--json]';

/** A comma-separated list of distinct non-negative integer seeds. */
const SeedList = z.string()
  .regex(/^\d+(,\d+)*$/, 'must be a comma-separated list of non-negative integers, e.g. 30,7,1234')
  .transform((s) => s.split(',').map(Number))
  .refine((xs) => xs.every((x) => Number.isSafeInteger(x)), 'a seed is too large')
  .refine((xs) => new Set(xs).size === xs.length, 'a seed is listed twice');

const Flags = z.object({
  policy: z.string().min(1).optional().describe('oracle, random, the path of a builtin-policy checkpoint, or an ONNX export (FILE.onnx or onnx:FILE) scored in ONNX Runtime (greedy)'),
  split: z.string().min(1).default('unseen-instance').describe('One regime or a comma list (default unseen-instance)'),
  part: z.string().default('test').describe('Split part whose templates are evaluated (default test)'),
  seeds: SeedList.optional().describe('Evaluation seeds: each selects one instance of every template (default 30,7,1234, AW-Gen App. C)'),
  limit: intArg('--limit').pipe(z.number().min(1)).optional().describe('Only the first N templates'),
  parallel: intArg('--parallel').pipe(z.number().min(1).max(64)).default(1).describe('SimDroid devices in worker threads (default 1)'),
  screenshots: z.enum(['none', 'half', 'full']).default('none').describe('Screenshots kept per step (default none: evaluation reads outcomes)'),
  db: z.string().optional(),
  json: z.boolean().optional(),
});

/** The policy under evaluation: a named baseline or a checkpoint, identified by path and content hash. */
export type EvalPolicy =
  | { kind: 'oracle' }
  | { kind: 'random' }
  | { kind: 'builtin'; path: string; sha256: string; model: PolicyModel }
  | { kind: 'onnx'; path: string; sha256: string; model: OnnxPolicyModel };

/** Resolves --policy; a missing or corrupt checkpoint or ONNX model is a usage error naming the file. */
export async function resolveEvalPolicy(arg: string): Promise<EvalPolicy> {
  if (arg === 'oracle' || arg === 'random') return { kind: arg };
  if (onnxPolicyPath(arg) !== null) {
    const model = await loadOnnxPolicyArg(arg);
    return { kind: 'onnx', path: model.path, sha256: model.sha256, model };
  }
  const path = resolve(arg);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new UsageError(`--policy ${JSON.stringify(arg)} is neither oracle, random nor a readable checkpoint file (${(e as Error).message})`, { cause: e });
  }
  try {
    const { model } = deserializeCheckpoint(bytes.toString('utf8'), path);
    return { kind: 'builtin', path, sha256: createHash('sha256').update(bytes).digest('hex'), model };
  } catch (e) {
    if (e instanceof CheckpointError) throw new UsageError(e.message, { cause: e });
    throw e;
  }
}

function policyLabel(p: EvalPolicy): string {
  return p.kind === 'builtin' || p.kind === 'onnx' ? `${p.kind} ${p.path} (sha256 ${p.sha256.slice(0, 12)})` : p.kind;
}

/** What the run config records about the policy (enough to tell checkpoints apart). */
function policyConfig(p: EvalPolicy): Record<string, unknown> {
  switch (p.kind) {
    case 'builtin':
      return { policy: 'builtin', checkpoint: { path: p.path, sha256: p.sha256 } };
    case 'onnx':
      // `checkpoint` names the model file by hash as for a checkpoint, so `awb eval compare` tells models apart.
      return { policy: 'onnx', checkpoint: { path: p.path, sha256: p.sha256 }, model: { encoder: p.model.metadata.encoder, network: p.model.metadata.network } };
    default:
      return { policy: p.kind };
  }
}

/** The policy's registry spec: what the workers load from its path, and what the in-process loop makes with the model read here. */
function specOf(p: EvalPolicy): PolicySpec {
  switch (p.kind) {
    case 'oracle':
    case 'random':
      return { name: p.kind };
    case 'builtin':
      return { name: 'builtin', checkpoint: p.path };
    case 'onnx':
      return { name: 'onnx', model: p.path };
    default:
      return assertNever(p, 'eval policy');
  }
}

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

function rowsOf(title: string, groups: Record<string, GroupStats>, seeds: readonly number[]): string[][] {
  return Object.entries(groups).map(([k, g]) => [
    `${title} ${k}`, String(g.episodes), ...seeds.map((s) => {
      const r = g.perSeed.find((p) => p.seed === s);
      return r ? pct(r.successRate) : '-';
    }), formatMeanStd(g),
  ]);
}

/**
 * `awb eval`: a policy on every template of a split part, once per evaluation seed, on SimDroid.
 * Each seed is one 'suite' run in the store (config: policy and checkpoint hash, splits, part,
 * seed), and the report is the mean ± sample std over seeds of the success rate (core/rl/eval.ts).
 */
export async function evalCommand(argv: string[], io: Io): Promise<number> {
  if (argv[0] === 'compare') return evalCompareCommand(argv.slice(1), io);
  const { values, positionals } = parseFlags(argv, {
    policy: { type: 'string' }, split: { type: 'string' }, part: { type: 'string' }, seeds: { type: 'string' }, limit: { type: 'string' },
    parallel: { type: 'string' }, screenshots: { type: 'string' }, db: { type: 'string' }, json: { type: 'boolean' },
  }, Flags);
  if (positionals.length) throw new UsageError(`Unexpected ${JSON.stringify(positionals[0])}\n${USAGE}`);
  if (!values.policy) throw new UsageError(`--policy is required\n${USAGE}`);
  const splits = [...new Set(values.split.split(',').map((s) => parseSplit(s.trim())))];
  const part = parsePart(values.part);
  const seeds = values.seeds ?? [...SPLIT_DATA.seeds.test];
  const templates = evalTemplates(splits, part, values.limit);
  if (templates.length === 0) throw new UsageError(`No templates in ${splits.join(',')}/${part}`);
  const policy = await resolveEvalPolicy(values.policy);
  const regimesOf = new Map(templates.map((t) => [t.template.id, t.regimes]));

  const { db, path } = openDb(values.db);
  try {
    // One store run per seed, so every seed's episodes can be listed and compared on their own.
    const runs = seeds.map((seed) => ({
      seed,
      id: createRun(db, {
        kind: 'suite',
        name: `eval ${policy.kind === 'builtin' || policy.kind === 'onnx' ? policy.path : policy.kind} ${splits.join(',')}/${part} seed ${seed}`,
        config: { eval: true, ...policyConfig(policy), split: splits.join(','), splits, part, seed, templates: templates.length, ...(values.limit ? { limit: values.limit } : {}), screenshots: values.screenshots },
      }).id,
    }));
    const runOf = new Map<number, RunId>(runs.map((r) => [r.seed, r.id]));
    const episodes: EvalEpisode[] = [];
    const record = (seed: number, templateId: string, result: EpisodeResult | null) => {
      const t = getTemplate(templateId);
      episodes.push({
        seed, templateId, regimes: regimesOf.get(templateId) ?? [], difficulty: t.difficulty, app: t.apps[0],
        success: result?.success === true, error: !result || result.status === 'error',
      });
    };
    const total = seeds.length * templates.length;
    const progress = progressBar(total);
    const started = Date.now();
    try {
      if (values.parallel === 1) {
        const spec = specOf(policy);
        const models = policy.kind === 'builtin' || policy.kind === 'onnx' ? new PolicyModels().keep(policy.path, policy.model) : new PolicyModels();
        const device = embeddedDevice();
        try {
          for (const seed of seeds) {
            for (const { template } of templates) {
              const instance = instantiate(template, seed);
              const result = await runEpisode({ device, instance, policy: createPolicy(spec, { task: taskOf(instance), models }), recorder: new StoreRecorder(db, runOf.get(seed)!), screenshots: values.screenshots });
              record(seed, template.id, result);
              progress.tick(`${seed}/${template.id}`);
            }
          }
        } finally {
          device.close();
        }
      } else {
        // Workers load the checkpoint from its path (once each); the hash in the run config is of
        // the bytes read here.
        const jobs: RolloutJob[] = seeds.flatMap((seed) => templates.map(({ template }) => ({
          key: `${seed}/${template.id}`, templateId: template.id, seed, policy: specOf(policy),
        })));
        await runPool({
          devices: values.parallel, jobs, screenshots: values.screenshots,
          recorder: (job) => new StoreRecorder(db, runOf.get(job.seed)!),
          onEpisode: (job, outcome) => {
            record(job.seed, job.templateId, outcome.ok ? outcome.result : null);
            progress.tick(job.key);
          },
        });
      }
    } finally {
      progress.done();
    }
    for (const r of runs) finishRun(db, r.id, 'finished');

    const report = aggregateEval(episodes, seeds);
    const wallSeconds = (Date.now() - started) / 1000;
    if (values.json) {
      io.out(JSON.stringify({ policy: policyConfig(policy), splits, part, templates: templates.length, runs: runs.map((r) => ({ seed: r.seed, run: r.id })), db: path, wallSeconds, ...report }));
      return 0;
    }
    io.out(`Eval of ${policyLabel(policy)} on ${splits.join(',')}/${part}: ${templates.length} templates × ${seeds.length} seeds in ${wallSeconds.toFixed(1)} s`);
    io.out(`Success rate ${formatMeanStd(report.overall)} (mean ± sample std over seeds${seeds.length < 2 ? '; one seed, so no std' : ''}), ${report.overall.successes}/${report.overall.episodes} episodes${report.overall.errors ? `, ${report.overall.errors} errors` : ''}`);
    io.out(table([
      ['GROUP', 'EPISODES', ...seeds.map((s) => `SEED ${s}`), 'MEAN ± STD'],
      ['overall', String(report.overall.episodes), ...report.overall.perSeed.map((s) => pct(s.successRate)), formatMeanStd(report.overall)],
      ...rowsOf('regime', report.byRegime, seeds),
      ...rowsOf('difficulty', report.byDifficulty, seeds),
      ...rowsOf('app', report.byApp, seeds),
    ]));
    io.out(`Recorded as runs ${runs.map((r) => `${r.id} (seed ${r.seed})`).join(', ')} in ${path}; compare checkpoints with \`awb eval compare RUN_ID...\`.`);
    return 0;
  } finally {
    db.close();
    if (policy.kind === 'onnx') await policy.model.close();
  }
}
