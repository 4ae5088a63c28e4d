import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import type { PolicyModel } from '../policy/builtin.js';
import { CheckpointError, deserializeCheckpoint } from '../policy/checkpoint.js';
import type { OnnxPolicyModel } from '../policy/onnx/index.js';
import { isTransformerModelDir, TransformerModel } from '../policy/transformer/model.js';
import { PolicyModels, type PolicySpec } from '../policy/registry.js';
import { formatMeanStd, type GroupStats } from '../rl/eval.js';
import { evalTemplates, runEvaluation } from '../rl/eval-run.js';
import { parsePart, parseSplit, SPLIT_DATA } from '../tasks/splits.js';
import { assertNever, WorkbenchError } from '../util/errors.js';
import { intArg, parseFlags, UsageError } from './args.js';
import { pct, progressBar, table } from './format.js';
import type { Io } from './main.js';
import { loadOnnxPolicyArg, onnxPolicyPath } from './policies.js';
import { openDb } from './open-db.js';
import { withRayServers, type RayEnvServers } from '../rollout/ray.js';
import { DEFAULT_RAY_ENVS, RAY_ADDRESS_HELP, RayAddress } from '../rollout/ray-settings.js';
import { handleStopSignals, signalExitCode, type StopSignal } from './stop-signals.js';
import { evalCompareCommand } from './eval-compare.js';

const USAGE = 'awb eval --policy CHECKPOINT|MODEL.onnx|oracle|random [--split unseen-instance|unseen-template|unseen-app|all[,…]] [--part test|train|adapt]\n'
  + '         [--seeds 30,7,1234] [--limit N] [--parallel N | --ray ADDRESS [--envs N] [--envs-per-actor K]] [--screenshots none|half|full] [--db PATH] [--json]\n'
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
  ray: RayAddress.optional().describe(`Run on a Ray cluster's SimDroids (docs/ray.md): ${RAY_ADDRESS_HELP}`),
  envs: intArg('--envs').pipe(z.number().min(1).max(64)).optional().describe(`SimDroids on the cluster (default ${DEFAULT_RAY_ENVS})`),
  'envs-per-actor': intArg('--envs-per-actor').pipe(z.number().min(1).max(64)).optional().describe('SimDroids per Ray actor (default 1)'),
  db: z.string().optional(),
  json: z.boolean().optional(),
});

/** The policy under evaluation: a named baseline or a checkpoint, identified by path and content hash. */
export type EvalPolicy =
  | { kind: 'oracle' }
  | { kind: 'random' }
  | { kind: 'builtin'; path: string; sha256: string; model: PolicyModel }
  | { kind: 'onnx'; path: string; sha256: string; model: OnnxPolicyModel }
  | { kind: 'transformer'; path: string; sha256: string; model: TransformerModel };

/** Resolves --policy; a missing or corrupt checkpoint or ONNX model is a usage error naming the file. */
export async function resolveEvalPolicy(arg: string): Promise<EvalPolicy> {
  if (arg === 'oracle' || arg === 'random') return { kind: arg };
  if (onnxPolicyPath(arg) !== null) {
    const model = await loadOnnxPolicyArg(arg);
    return { kind: 'onnx', path: model.path, sha256: model.sha256, model };
  }
  const path = resolve(arg);
  if (isTransformerModelDir(path)) {
    try {
      const model = await TransformerModel.load(path);
      return { kind: 'transformer', path, sha256: model.sha256, model };
    } catch (e) {
      if (e instanceof WorkbenchError) throw new UsageError(e.message, { cause: e });
      throw e;
    }
  }
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
  return p.kind === 'builtin' || p.kind === 'onnx' || p.kind === 'transformer' ? `${p.kind} ${p.path} (sha256 ${p.sha256.slice(0, 12)})` : p.kind;
}

/** What the run config records about the policy (enough to tell checkpoints apart). */
function policyConfig(p: EvalPolicy): Record<string, unknown> {
  switch (p.kind) {
    case 'builtin':
      return { policy: 'builtin', checkpoint: { path: p.path, sha256: p.sha256 } };
    case 'onnx':
      // `checkpoint` names the model file by hash as for a checkpoint, so `awb eval compare` tells models apart.
      return { policy: 'onnx', checkpoint: { path: p.path, sha256: p.sha256 }, model: { encoder: p.model.metadata.encoder, network: p.model.metadata.network } };
    case 'transformer':
      // The graph's sha256 names the model, as a checkpoint's bytes do.
      return { policy: 'transformer', checkpoint: { path: p.path, sha256: p.sha256 } };
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
    case 'transformer':
      return { name: 'transformer', model: p.path };
    default:
      return assertNever(p, 'eval policy');
  }
}

export { evalTemplates, type EvalTemplate } from '../rl/eval-run.js';

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
    ray: { type: 'string' }, envs: { type: 'string' }, 'envs-per-actor': { type: 'string' },
  }, Flags);
  if (positionals.length) throw new UsageError(`Unexpected ${JSON.stringify(positionals[0])}\n${USAGE}`);
  if ((values.envs !== undefined || values['envs-per-actor'] !== undefined) && values.ray === undefined) throw new UsageError('--envs and --envs-per-actor size a Ray cluster\'s share: give --ray ADDRESS too');
  if (values.ray !== undefined && values.parallel > 1) throw new UsageError('--ray runs on the cluster\'s SimDroids (--envs N): drop --parallel');
  if (!values.policy) throw new UsageError(`--policy is required\n${USAGE}`);
  const splits = [...new Set(values.split.split(',').map((s) => parseSplit(s.trim())))];
  const part = parsePart(values.part);
  const seeds = values.seeds ?? [...SPLIT_DATA.seeds.test];
  const templates = evalTemplates(splits, part, values.limit);
  if (templates.length === 0) throw new UsageError(`No templates in ${splits.join(',')}/${part}`);
  const policy = await resolveEvalPolicy(values.policy);

  const { db, path } = openDb(values.db);
  const ac = new AbortController();
  let stoppedBy: StopSignal | null = null;
  // SIGINT or SIGTERM: in process, stop after the episode (the runs end interrupted); worker threads cannot be stopped
  // mid-batch, so there the process ends at once and its runs read as interrupted when the store is next opened.
  const removeSignals = handleStopSignals({
    first: (signal) => {
      stoppedBy = signal;
      if (values.parallel > 1 || values.ray !== undefined) {
        io.err(`awb: ${signal}: stopped; the evaluation's runs read as interrupted when the store is next opened`);
        process.exit(signalExitCode(signal));
      }
      io.err(`awb: ${signal}: stopping after this episode; the evaluation's runs end interrupted`);
      ac.abort();
    },
  });
  try {
    const progress = progressBar(seeds.length * templates.length);
    let result;
    const evaluate = (cluster: RayEnvServers | null) => runEvaluation({
      signal: ac.signal,
      db, spec: specOf(policy), name: `eval ${policy.kind === 'builtin' || policy.kind === 'onnx' || policy.kind === 'transformer' ? policy.path : policy.kind} ${splits.join(',')}/${part}`,
      // The in-process loop uses the model read (and hashed) here; workers load it from its path (remote ones from the copy sent them).
      models: policy.kind === 'builtin' || policy.kind === 'onnx' || policy.kind === 'transformer' ? new PolicyModels().keep(policy.path, policy.model) : new PolicyModels(),
      policyConfig: policyConfig(policy), splits, part, templates, seeds, ...(values.limit ? { limit: values.limit } : {}),
      parallel: cluster ? cluster.remote.capacity : values.parallel, screenshots: values.screenshots, onEpisode: (_done, _total, key) => progress.tick(key),
      ...(cluster ? { remote: cluster.remote, extraConfig: { ray: { address: cluster.address, envs: cluster.remote.capacity } } } : {}),
    });
    try {
      const ray = values.ray;
      result = ray === undefined ? await evaluate(null) : await withRayServers(
        { address: ray, envs: values.envs ?? DEFAULT_RAY_ENVS, envsPerActor: values['envs-per-actor'] ?? 1, log: (m) => io.err(`awb: ${m}`) },
        (cluster) => evaluate(cluster),
      );
    } finally {
      progress.done();
    }
    const { runs, report, wallSeconds } = result;
    if (stoppedBy !== null && result.stopped) {
      io.err(`awb: stopped; runs ${runs.map((r) => r.runId).join(', ')} are interrupted (an evaluation is run again, not resumed)`);
      return signalExitCode(stoppedBy);
    }
    if (values.json) {
      io.out(JSON.stringify({
        policy: policyConfig(policy), splits, part, templates: templates.length, runs: runs.map((r) => ({ seed: r.seed, run: r.runId })), db: path, wallSeconds,
        ...(values.ray ? { ray: { address: values.ray, reruns: result.reruns } } : {}), ...report,
      }));
      return 0;
    }
    io.out(`Eval of ${policyLabel(policy)} on ${splits.join(',')}/${part}: ${templates.length} templates × ${seeds.length} seeds in ${wallSeconds.toFixed(1)} s${values.ray ? ` on Ray ${values.ray}${result.reruns ? ` (${result.reruns} episode(s) re-run after their environment server died)` : ''}` : ''}`);
    io.out(`Success rate ${formatMeanStd(report.overall)} (mean ± sample std over seeds${seeds.length < 2 ? '; one seed, so no std' : ''}), ${report.overall.successes}/${report.overall.episodes} episodes${report.overall.errors ? `, ${report.overall.errors} errors` : ''}`);
    io.out(table([
      ['GROUP', 'EPISODES', ...seeds.map((s) => `SEED ${s}`), 'MEAN ± STD'],
      ['overall', String(report.overall.episodes), ...report.overall.perSeed.map((s) => pct(s.successRate)), formatMeanStd(report.overall)],
      ...rowsOf('regime', report.byRegime, seeds),
      ...rowsOf('difficulty', report.byDifficulty, seeds),
      ...rowsOf('app', report.byApp, seeds),
    ]));
    io.out(`Recorded as runs ${runs.map((r) => `${r.runId} (seed ${r.seed})`).join(', ')} in ${path}; compare checkpoints with \`awb eval compare RUN_ID...\`.`);
    return 0;
  } finally {
    removeSignals();
    db.close();
    if (policy.kind === 'onnx' || policy.kind === 'transformer') await policy.model.close();
  }
}
