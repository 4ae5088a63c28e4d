import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { parseTrainConfig, trainConfigHelp, TrainConfigError, type TrainConfig } from '../rl/config.js';
import { TrainerCheckpointError, trainerFile } from '../rl/grpo-checkpoint.js';
import { METRIC, type IterationMetrics } from '../rl/grpo-loop.js';
import { trainGrpo } from '../rl/train-grpo.js';
import { oneLine, parseFlags, UsageError } from './args.js';
import { dataDir } from '../util/data-dir.js';
import { openDb } from './open-db.js';
import type { Io } from './main.js';
import { trainSftCommand } from './train-sft.js';
import { TRANSFORMER_USAGE, transformerGrpoCommand, transformerSftCommand } from './train-transformer.js';

const USAGE = `Usage:
  awb train grpo --config FILE [--out DIR] [--db PATH] [--record-episodes] [--json]
  awb train grpo --resume DIR [--config FILE] [--db PATH] [--json]
                                     GRPO / AdaGRPO on in-process SimDroids; checkpoints to DIR (trainer.json, policy.json)
  awb train sft --config FILE [--out DIR] [--json]
  awb train grpo --help              every config field with its default and source
${TRANSFORMER_USAGE}`;

const Flags = z.object({
  config: z.string().optional(),
  resume: z.string().optional(),
  out: z.string().optional(),
  db: z.string().optional(),
  'record-episodes': z.boolean().optional(),
  json: z.boolean().optional(),
  help: z.boolean().optional(),
});

function readConfig(path: string): TrainConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`--config ${path}: ${(e as Error).message}`, { cause: e });
  }
  try {
    return parseTrainConfig(text);
  } catch (e) {
    if (e instanceof TrainConfigError) throw new UsageError(`${path}: ${oneLine(e.message)}`, { cause: e });
    throw e;
  }
}

/** The iterations a checkpoint folder's trainer.json was configured for (TrainerCheckpointError if unreadable). */
function savedIterations(dir: string): number | undefined {
  const path = trainerFile(dir);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new TrainerCheckpointError(path, `cannot read (${(e as Error).message.replace(/\s*\n\s*/g, ' ')})`);
  }
  const iterations = (raw as { config?: { iterations?: unknown } } | null)?.config?.iterations;
  return typeof iterations === 'number' ? iterations : undefined;
}

/** One progress line per iteration. */
export function progressLine(m: IterationMetrics, total: number): string {
  // A metric the iteration does not define (entropy when no step was trained) reads 'n/a'.
  const v = (k: string, digits = 3) => m.metrics[k]?.toFixed(digits) ?? 'n/a';
  return `iter ${m.iteration}/${total}  success ${v(METRIC.successRate, 2)}  reward ${v(METRIC.rewardMean)}  loss ${v(METRIC.lossPolicy, 4)}`
    + `  kl ${v(METRIC.lossKl, 4)}  entropy ${v(METRIC.entropy)}  clip ${v(METRIC.clipFrac, 2)}  zero-std ${v(METRIC.zeroStdFrac, 2)}`
    + `  ${v(METRIC.stepsPerS, 0)} steps/s  ${v(METRIC.iterationS, 1)} s`;
}

async function grpoCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags(argv, {
    config: { type: 'string' }, resume: { type: 'string' }, out: { type: 'string' }, db: { type: 'string' },
    'record-episodes': { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean' },
  }, Flags);
  if (values.help) {
    io.out(`${USAGE}\n\nConfig fields (a JSON file; every field optional):\n${trainConfigHelp()}`);
    return 0;
  }
  if (positionals.length) throw new UsageError(`Unexpected ${JSON.stringify(positionals[0])}\n${USAGE}`);
  if (!values.config && !values.resume) throw new UsageError(`--config or --resume is required\n${USAGE}`);
  if (values.resume && values.out) throw new UsageError('--resume DIR continues in DIR; drop --out');
  if (values.resume && !existsSync(trainerFile(values.resume))) throw new UsageError(`--resume ${values.resume}: no ${trainerFile(values.resume)}`);
  // With --resume the checkpoint's config is used; a --config may only extend `iterations`.
  const config = values.config ? readConfig(values.config) : parseTrainConfig({ iterations: 1 });
  // Read before anything is opened or created: a bad trainer.json is a one-line error, not a stack.
  const saved = values.resume ? savedIterations(values.resume) : undefined;
  const outDir = resolve(values.resume ?? values.out ?? join(dataDir(), 'checkpoints', `grpo-${new Date().toISOString().replace(/[:.]/g, '-')}`));
  const store = openDb(values.db);
  const ac = new AbortController();
  const onSigint = () => {
    io.err('Stopping after this iteration (a checkpoint will be written); press Ctrl-C again to kill.');
    ac.abort();
    process.off('SIGINT', onSigint);
  };
  process.on('SIGINT', onSigint);
  try {
    let total = Math.max(config.iterations, saved ?? 0);
    const result = await trainGrpo({
      config, outDir, resume: Boolean(values.resume), db: store.db, rewardContext: { dataDir: dataDir() }, recordEpisodes: values['record-episodes'] ?? false, signal: ac.signal,
      log: (m) => io.err(m),
      onIteration: (m) => io.out(values.json ? JSON.stringify(m) : progressLine(m, total)),
    });
    total = result.iterations;
    const summary = { outDir, policy: join(outDir, 'policy.json'), iterations: result.iterations, stoppedBy: result.stoppedBy, runId: result.runId, db: store.path };
    io.out(values.json ? JSON.stringify(summary) : `${result.stoppedBy === 'done' ? 'Finished' : 'Stopped'} after ${result.iterations} iterations; policy ${summary.policy} (resume with --resume ${outDir}); metrics in run ${result.runId} of ${store.path}`);
    return 0;
  } finally {
    process.off('SIGINT', onSigint);
    store.db.close();
  }
}

/** `awb train grpo|sft …` */
export async function trainCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'grpo':
      return await grpoCommand(rest, io);
    case 'sft':
      return await trainSftCommand(rest, io);
    case 'transformer-sft':
      return await transformerSftCommand(rest, io);
    case 'transformer-grpo':
      return await transformerGrpoCommand(rest, io);
    default:
      throw new UsageError(`awb train: expected grpo, sft, transformer-sft or transformer-grpo\n${USAGE}`);
  }
}
