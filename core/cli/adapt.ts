import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { ADAPTER_KINDS } from '../policy/adapter.js';
import { isTransformerModelDir } from '../policy/transformer/model.js';
import { HOME_MODES } from '../policy/adapter-policy.js';
import { ADAPT_METHODS, AdaptConfigError, type AdaptConfigInput } from '../rl/adapt-config.js';
import { ADAPTER_STEPS_FRAC } from '../rl/adapt-grpo.js';
import { resolveAdaptApp } from '../rl/adapt-instances.js';
import { runAdaptation, type AdaptationReport, type AdaptProgress } from '../rl/adapt.js';
import { METRIC } from '../rl/grpo-loop.js';
import { SPLIT_DATA } from '../tasks/splits.js';
import { intArg, parseFlags, UsageError } from './args.js';
import { dataDir } from '../util/data-dir.js';
import { handleStopSignals } from './stop-signals.js';
import { openDb } from './open-db.js';
import { pct, progressBar, table, type Progress } from './format.js';
import type { Io } from './main.js';

const USAGE = `awb adapt --app APP [--policy CHECKPOINT] [--shots 8] [--method grpo|sft|sft+grpo] [--kind lowrank|head] [--rank 4]
          [--iterations 50] [--seed 0] [--home task-app|base] [--from-episodes ID,…] [--db PATH] [--eval-seeds 30,7,1234]
          [--config FILE] [--out FILE] [--json]
  Few-shot per-app adaptation: the base policy on APP's held-out test instances, a per-app adapter trained on
  --shots of APP's adaptation instances, the adapted policy on the same test instances; prints before, after, delta.
  APP: a task app (${SPLIT_DATA.unseenApp.testApps.join(', ')} are the held-out apps of unseen-app; any other is
  adapted and evaluated on its held-out templates of unseen-template). --policy defaults to the newest
  <data folder>/checkpoints/*/policy.json. The adapter is saved to <data folder>/adapters/<base sha256 prefix>/<app>.json
  (or --out). --from-episodes trains SFT on recorded episodes (e.g. recorded by hand in the UI) instead of the oracle
  (method sft unless --method says sft+grpo).
  docs/adaptation.md explains the choices; --config FILE takes the full config (core/rl/adapt-config.ts), e.g.
  {"ray": {"address": "HEAD:6379", "envs": 16}} for GRPO rollouts on a Ray cluster (docs/ray.md).`;

const IntList = (what: string) => z.string()
  .regex(/^\d+(,\d+)*$/, `${what} must be a comma-separated list of non-negative integers`)
  .transform((s) => s.split(',').map(Number))
  .refine((xs) => xs.every((x) => Number.isSafeInteger(x)), `${what}: a number is too large`)
  .refine((xs) => new Set(xs).size === xs.length, `${what}: a number is listed twice`);

const Flags = z.object({
  app: z.string().min(1).optional(),
  policy: z.string().min(1).optional(),
  shots: intArg('--shots').pipe(z.number().min(1)).optional(),
  method: z.enum(ADAPT_METHODS).optional(),
  kind: z.enum(ADAPTER_KINDS).optional(),
  rank: intArg('--rank').pipe(z.number().min(1)).optional(),
  iterations: intArg('--iterations').pipe(z.number().min(1)).optional(),
  seed: intArg('--seed').optional(),
  home: z.enum(HOME_MODES).optional(),
  'from-episodes': IntList('--from-episodes').optional(),
  db: z.string().min(1).optional(),
  'eval-seeds': IntList('--eval-seeds').optional(),
  config: z.string().min(1).optional(),
  out: z.string().min(1).optional(),
  json: z.boolean().optional(),
  help: z.boolean().optional(),
});

/** Errors whose message is for the user: a bad command line in effect (exit 2). */
const USAGE_ERRORS = new Set([
  'UnknownAdaptAppError', 'NoAdaptInstancesError', 'ShotsError', 'AdaptOptionsError', 'CheckpointError',
  'AdapterSpecError', 'DemonstrationSourceError', 'EpisodeNotFoundError', 'StoreVersionFromFutureError',
]);

/** The newest <data folder>/checkpoints/<run>/policy.json, or null. */
export function newestCheckpoint(root: string): string | null {
  const dir = join(root, 'checkpoints');
  if (!existsSync(dir)) return null;
  let best: { path: string; mtime: number } | null = null;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name, 'policy.json');
    if (!existsSync(path)) continue;
    const mtime = statSync(path).mtimeMs;
    if (!best || mtime > best.mtime) best = { path, mtime };
  }
  return best?.path ?? null;
}

function readConfig(path: string): AdaptConfigInput {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as AdaptConfigInput; // validated by parseAdaptConfig inside runAdaptation
  } catch (e) {
    throw new UsageError(`--config ${path}: ${(e as Error).message}`, { cause: e });
  }
}

const f3 = (m: Record<string, number>, k: string, digits = 3) => (m[k] ?? Number.NaN).toFixed(digits);

/** One line per progress event worth a line (GRPO iterations, every tenth SFT epoch and the last, phase summaries). */
export function progressText(e: AdaptProgress): string | null {
  switch (e.phase) {
    case 'before':
    case 'after':
      return e.done === e.total ? `${e.phase}: ${e.total} test episodes done` : null;
    case 'demonstrations':
      return `demonstrations (${e.source}): ${e.steps} steps from ${e.episodes} episodes, ${e.appSteps} scored by the adapter`;
    case 'sft':
      return e.epoch % 10 === 0 || e.epoch === e.epochs
        ? `sft ${e.epoch}/${e.epochs}  loss/nll ${e.metrics['loss/nll'].toFixed(4)}  acc/top1 ${pct(e.metrics['acc/top1'])}` : null;
    case 'grpo':
      return `grpo ${e.iteration}/${e.iterations}  success ${f3(e.metrics, METRIC.successRate, 2)}  reward ${f3(e.metrics, METRIC.rewardMean)}`
        + `  loss ${f3(e.metrics, METRIC.lossPolicy, 4)}  kl ${f3(e.metrics, METRIC.lossKl, 4)}  zero-std ${f3(e.metrics, METRIC.zeroStdFrac, 2)}`
        + `  adapter-steps ${f3(e.metrics, ADAPTER_STEPS_FRAC, 2)}  ${f3(e.metrics, METRIC.iterationS, 1)} s`;
    case 'saved':
      return `adapter saved: ${e.path}`;
    default:
      return null;
  }
}

function printReport(r: AdaptationReport, io: Io): void {
  const rate = (x: { successRate: number; std: number | null; successes: number; episodes: number } | null) =>
    (x ? `${pct(x.successRate)}${x.std === null ? '' : ` ± ${(x.std * 100).toFixed(1)}`}  (${x.successes}/${x.episodes})` : 'not run (stopped)');
  io.out(`Before  ${rate(r.before)}`);
  io.out(`After   ${rate(r.after)}`);
  io.out(`Delta   ${r.delta === null ? 'n/a' : `${r.delta >= 0 ? '+' : ''}${(r.delta * 100).toFixed(1)} points`}  (mean over seeds ${r.evalSeeds.join(', ')})`);
  if (r.perTemplate.length) {
    io.out(table([['TEMPLATE', 'DIFFICULTY', 'BEFORE', 'AFTER', 'DELTA'],
      ...r.perTemplate.map((t) => [t.templateId, t.difficulty, pct(t.before), pct(t.after), `${t.delta >= 0 ? '+' : ''}${(t.delta * 100).toFixed(1)}`])]));
  }
  const grpo = r.training.grpo;
  if (grpo.length && grpo.every((m) => m.metrics[METRIC.zeroStdFrac] === 1)) {
    io.out('Note: every GRPO group had equal outcomes (the base solved all or none of each shot), so GRPO had nothing to learn from; try --method sft+grpo.');
  }
  const path = r.adapter.path ? `saved to ${r.adapter.path}` : 'not saved';
  io.out(`Adapter: ${r.adapter.kind}${r.adapter.kind === 'lowrank' ? ` r=${r.adapter.rank}` : ''}, ${r.adapter.parameters} parameters, ${path}`);
  if (r.stoppedBy === 'aborted') io.out('Stopped early (a stop signal): the phases marked "not run" did not finish.');
}

/** `awb adapt`: before → adapt → after on one app (core/rl/adapt.ts runAdaptation). */
export async function adaptCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags(argv, {
    app: { type: 'string' }, policy: { type: 'string' }, shots: { type: 'string' }, method: { type: 'string' }, kind: { type: 'string' },
    rank: { type: 'string' }, iterations: { type: 'string' }, seed: { type: 'string' }, home: { type: 'string' }, 'from-episodes': { type: 'string' },
    db: { type: 'string' }, 'eval-seeds': { type: 'string' }, config: { type: 'string' }, out: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean' },
  }, Flags);
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  if (positionals.length) throw new UsageError(`Unexpected ${JSON.stringify(positionals[0])}\n${USAGE}`);
  if (!values.app) throw new UsageError(`--app is required\n${USAGE}`);
  if (values.policy && isTransformerModelDir(resolve(values.policy))) {
    const { adaptTransformerCommand } = await import('./adapt-transformer.js');
    return adaptTransformerCommand({ ...values, app: values.app, policy: values.policy }, io);
  }
  const fromEpisodes = values['from-episodes'];
  const policy = values.policy ?? newestCheckpoint(dataDir());
  if (!policy) throw new UsageError(`--policy is required: no checkpoint under ${join(dataDir(), 'checkpoints')} (train one with awb train sft or awb train grpo)`);

  const ac = new AbortController();
  // SIGINT or SIGTERM alike; a second one ends the process (the run reads as interrupted on the store's next open).
  const removeSignals = handleStopSignals({
    first: (signal) => {
      io.err(`awb: ${signal}: stopping after this episode or iteration (a started adapter is saved); send it again to stop at once.`);
      ac.abort();
    },
  });
  const store = fromEpisodes ? openDb(values.db) : null;
  let bar: Progress | null = null;
  try {
    const target = resolveAdaptApp(values.app);
    if (!values.json) io.out(`Adapting ${target.app} (${target.package}, ${target.regime} regime) from ${resolve(policy)}`);
    const report = await runAdaptation({
      policy, app: values.app, config: values.config ? readConfig(values.config) : {},
      ...(values.shots !== undefined ? { shots: values.shots } : {}),
      ...(values.method ? { method: values.method } : fromEpisodes ? { method: 'sft' as const } : {}),
      ...(values.kind ? { kind: values.kind } : {}),
      ...(values.rank !== undefined ? { rank: values.rank } : {}),
      ...(values.iterations !== undefined ? { iterations: values.iterations } : {}),
      ...(values.seed !== undefined ? { seed: values.seed } : {}),
      ...(values.home ? { home: values.home } : {}),
      ...(fromEpisodes ? { fromEpisodes } : {}),
      ...(values['eval-seeds'] ? { evalSeeds: values['eval-seeds'] } : {}),
      ...(values.out ? { out: resolve(values.out) } : { adaptersRoot: join(dataDir(), 'adapters') }),
    }, {
      ...(store ? { db: store.db } : {}), signal: ac.signal, log: (m) => io.err(`awb: ${m}`),
      onProgress: (e) => {
        if (values.json) return io.out(JSON.stringify(e));
        if (e.phase === 'before' || e.phase === 'after') {
          bar ??= progressBar(e.total);
          bar.tick(`${e.phase} ${e.templateId}/${e.seed}`);
          if (e.done === e.total) {
            bar.done();
            bar = null;
          }
        }
        const line = progressText(e);
        if (line) io.out(line);
      },
    });
    if (values.json) io.out(JSON.stringify(report));
    else printReport(report, io);
    return 0;
  } catch (e) {
    // A config's problems, listed one per line for the UI, are one line here, naming the file they came from.
    if (e instanceof AdaptConfigError) throw new UsageError(`${values.config ? `--config ${values.config}` : 'adaptation config'}: ${e.problems.join('; ')}`, { cause: e });
    if (e instanceof Error && USAGE_ERRORS.has(e.name)) throw new UsageError(e.message, { cause: e });
    throw e;
  } finally {
    (bar as Progress | null)?.done();
    removeSignals();
    store?.db.close();
  }
}
