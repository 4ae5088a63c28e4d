import { handleStopSignals, signalExitCode, type StopSignal } from './stop-signals.js';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { AdapterNotServedError, OnlineGrpoConfigError, OnlineGrpoJobError, PublishedAdapterError } from '../remote-jobs/online-errors.js';
import { ONLINE_METRIC, runOnlineGrpo, type OnlineIteration, type OnlinePolicy } from '../remote-jobs/online.js';
import { TASKS } from '../tasks/registry.js';
import { parsePart, parseSplit, splitInstances } from '../tasks/splits.js';
import { intArg, parseFlags, UsageError } from './args.js';
import { dataDir } from '../util/data-dir.js';
import { withRemoteJobs } from './jobs-common.js';
import type { Io } from './main.js';
import { vlmSettingsFromFlags } from './policies.js';

export const GRPO_USAGE = `awb jobs grpo --trainer NAME --iterations N [--policy builtin|vlm] [--endpoint PROFILE --base-model M]
                [--from-split SPLIT[:PART]] [--templates T1,T2,…] [--limit N] [--group-size G] [--temperature T] [--max-steps M] [--init CKPT]
                [--seed S] [--devices N] [--config FILE] [--name N] [--db PATH] [--json]
                                                online GRPO: rollouts with the current policy → job → switch to its result, N times (docs/online-grpo.md)`;

const Flags = {
  trainer: { type: 'string' }, iterations: { type: 'string' }, policy: { type: 'string' }, endpoint: { type: 'string' }, 'base-model': { type: 'string' },
  'from-split': { type: 'string' }, templates: { type: 'string' }, limit: { type: 'string' }, 'group-size': { type: 'string' }, temperature: { type: 'string' }, 'max-steps': { type: 'string' },
  init: { type: 'string' }, seed: { type: 'string' }, devices: { type: 'string' }, config: { type: 'string' }, name: { type: 'string' },
  db: { type: 'string' }, json: { type: 'boolean' },
} as const;

const Values = z.object({
  trainer: z.string().min(1),
  iterations: intArg('--iterations').pipe(z.number().min(1).max(10_000)),
  policy: z.enum(['builtin', 'vlm']).default('builtin'),
  endpoint: z.string().optional(),
  'base-model': z.string().min(1).optional(),
  'from-split': z.string().default('unseen-instance:train'),
  templates: z.string().optional(),
  limit: intArg('--limit').pipe(z.number().min(1)).optional(),
  'group-size': intArg('--group-size').pipe(z.number().min(2).max(64)).default(4),
  temperature: z.string().regex(/^\d+(\.\d+)?$/, '--temperature must be a positive number').transform(Number).pipe(z.number().positive().max(2)).default(1),
  'max-steps': intArg('--max-steps').pipe(z.number().min(1)).default(20),
  init: z.string().optional(),
  seed: intArg('--seed').default(0),
  devices: intArg('--devices').pipe(z.number().min(1).max(64)).default(1),
  config: z.string().optional(),
  name: z.string().min(1).optional(),
  db: z.string().optional(),
  json: z.boolean().optional(),
});

function readOverrides(file: string | undefined): Record<string, unknown> {
  if (!file) return {};
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`--config ${file}: ${(e as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new UsageError(`--config ${file}: expected a JSON object of trainer config fields, got ${JSON.stringify(json)}`);
  return json as Record<string, unknown>;
}

function policyOf(v: z.infer<typeof Values>): OnlinePolicy {
  switch (v.policy) {
    case 'builtin':
      if (v.endpoint || v['base-model']) throw new UsageError('--endpoint and --base-model are for --policy vlm');
      return { kind: 'builtin', ...(v.init ? { init: v.init } : {}) };
    case 'vlm': {
      if (v.init) throw new UsageError('--init is for --policy builtin (a VLM starts from the endpoint\'s model)');
      if (!v.endpoint) throw new UsageError('--policy vlm needs --endpoint PROFILE (awb endpoints add)');
      if (!v['base-model']) throw new UsageError('--policy vlm needs --base-model M: the model the trainer loads and the endpoint serves (e.g. Qwen/Qwen2.5-VL-3B-Instruct)');
      return { kind: 'vlm', settings: vlmSettingsFromFlags({ endpoint: v.endpoint }), profile: v.endpoint, baseModel: v['base-model'] };
    }
  }
}

const pct = (x: number | undefined) => `${Math.round(100 * (x ?? 0))}%`;

function iterationLine(it: OnlineIteration, n: number): string {
  const m = it.metrics;
  const head = `iteration ${it.iteration}/${n}: success ${pct(m[ONLINE_METRIC.success])}, reward ${(m[ONLINE_METRIC.rewardMean] ?? 0).toFixed(3)}, ${m[ONLINE_METRIC.groupsSkipped]} group(s) skipped`;
  if (!it.job) return `${head}; nothing submitted (no reward spread), policy stays ${it.policy}`;
  return `${head}; job ${it.job.localId} (${it.job.remoteId}) in ${(m[ONLINE_METRIC.iterationS] ?? 0).toFixed(1)} s → ${it.policy}`;
}

/** `awb jobs grpo`: the online GRPO loop against a remote trainer (core/remote-jobs/online.ts). */
export async function grpoCommand(argv: string[], io: Io): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(`Usage:\n${GRPO_USAGE}`);
    return 0;
  }
  const { values: v, positionals } = parseFlags(argv, Flags, Values);
  if (positionals.length) throw new UsageError(`awb jobs grpo takes no positional arguments, got ${positionals.map((p) => JSON.stringify(p)).join(' ')}\n${GRPO_USAGE}`);
  const [splitName, partName] = v['from-split'].split(':');
  const split = parseSplit(splitName!);
  const part = parsePart(partName ?? 'train');
  let instances = splitInstances(TASKS, split, part);
  if (v.templates !== undefined) {
    // A few templates an untrained model sometimes solves give groups a reward spread (docs/online-grpo.md).
    const wanted = v.templates.split(',').map((t) => t.trim()).filter(Boolean);
    const known = new Set(TASKS.map((t) => t.id));
    const unknown = wanted.filter((t) => !known.has(t));
    if (!wanted.length || unknown.length) throw new UsageError(`--templates: ${unknown.length ? `unknown template ${unknown.map((t) => JSON.stringify(t)).join(', ')} (awb tasks list)` : 'no template given'}`);
    const inPart = new Set(instances.map((i) => i.template.id));
    const missing = wanted.filter((t) => !inPart.has(t));
    if (missing.length) throw new UsageError(`--templates: ${missing.map((t) => JSON.stringify(t)).join(', ')} ${missing.length === 1 ? 'has' : 'have'} no instance in ${split}:${part} (awb splits show)`);
    instances = instances.filter((i) => wanted.includes(i.template.id));
  }
  if (v.limit !== undefined) instances = instances.slice(0, v.limit);
  const policy = policyOf(v);
  const config = readOverrides(v.config);
  const abort = new AbortController();
  let stoppedBy: StopSignal = 'SIGINT';
  return withRemoteJobs(v.db, async (jobs) => {
    // SIGINT or SIGTERM: the job in flight is cancelled and the run marked interrupted; a second one ends the process.
    const removeSignals = handleStopSignals({
      first: (signal) => {
        stoppedBy = signal;
        io.err(`awb: ${signal}: stopping the online GRPO loop (the job in flight is cancelled)…`);
        abort.abort(new Error(`interrupted (${signal})`));
      },
    });
    try {
      const result = await runOnlineGrpo({
        trainer: v.trainer, iterations: v.iterations, instances,
        source: `${split}:${part}${v.templates !== undefined ? `, templates ${v.templates}` : ''}${v.limit !== undefined ? `, limit ${v.limit}` : ''}`,
        groupSize: v['group-size'], temperature: v.temperature, maxSteps: v['max-steps'], seed: v.seed, devices: v.devices, config, policy,
        ...(v.name ? { name: v.name } : {}),
      }, { jobs, dataDir: dataDir() }, {
        signal: abort.signal,
        onLog: (line) => io.err(line),
        onIteration: (it) => io.out(v.json ? JSON.stringify(it) : iterationLine(it, v.iterations)),
      });
      if (v.json) io.out(JSON.stringify({ run: result.runId, finalPolicy: result.finalPolicy, skippedIterations: result.skippedIterations }));
      else io.out(`run ${result.runId} finished: ${result.iterations.filter((i) => i.job).length} job(s), ${result.skippedIterations} iteration(s) skipped; final policy ${result.finalPolicy}`);
      return 0;
    } catch (e) {
      if (abort.signal.aborted) {
        io.err(`awb: ${(e as Error).message}; the training run is marked interrupted`);
        return signalExitCode(stoppedBy);
      }
      if (e instanceof OnlineGrpoConfigError) throw new UsageError(e.message);
      if (e instanceof OnlineGrpoJobError || e instanceof AdapterNotServedError || e instanceof PublishedAdapterError) {
        io.err(`awb: ${e.message}`);
        return 1;
      }
      throw e;
    } finally {
      removeSignals();
    }
  });
}
