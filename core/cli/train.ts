import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { parseTrainConfig, trainConfigHelp, TrainConfigError, type TrainConfig } from '../rl/config.js';
import { TrainerCheckpointError, trainerFile } from '../rl/grpo-checkpoint.js';
import { METRIC, type IterationMetrics } from '../rl/grpo-loop.js';
import { trainGrpo } from '../rl/train-grpo.js';
import { checkOutFolder, oneLine, parseFlags, UsageError } from './args.js';
import { dataDir } from '../util/data-dir.js';
import { openDb } from './open-db.js';
import { handleStopSignals, signalExitCode, type StopSignal } from './stop-signals.js';
import { environmentLine, runStopped } from './env-errors.js';
import { interruptRun, type RunId } from '../store/index.js';
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
  if (values.out) checkOutFolder(values.out, '--out');
  const store = openDb(values.db);
  const ac = new AbortController();
  let stoppedBy: StopSignal | null = null;
  let runId: RunId | null = null;
  // SIGINT or SIGTERM: stop after this iteration with a checkpoint; a second one ends the process with the run
  // marked interrupted (its last checkpoint is what a resume continues from).
  const removeSignals = handleStopSignals({
    first: (signal) => {
      stoppedBy = signal;
      io.err(`awb: ${signal}: stopping after this iteration (a checkpoint will be written); send it again to stop at once.`);
      ac.abort();
    },
    again: (signal) => {
      if (runId !== null) interruptRun(store.db, runId);
      io.err(`awb: ${signal} again: stopped at once; run ${runId ?? '(none yet)'} interrupted; continue with: awb train grpo --resume ${outDir}${values.db ? ` --db ${store.path}` : ''}`);
    },
  });
  try {
    let total = Math.max(config.iterations, saved ?? 0);
    const result = await trainGrpo({
      config, outDir, resume: Boolean(values.resume), db: store.db, rewardContext: { dataDir: dataDir() }, recordEpisodes: values['record-episodes'] ?? false, signal: ac.signal,
      log: (m) => io.err(m),
      onRun: (id) => (runId = id),
      onIteration: (m) => io.out(values.json ? JSON.stringify(m) : progressLine(m, total)),
    });
    total = result.iterations;
    const summary = { outDir, policy: join(outDir, 'policy.json'), iterations: result.iterations, stoppedBy: result.stoppedBy, runId: result.runId, db: store.path };
    io.out(values.json ? JSON.stringify(summary) : `${result.stoppedBy === 'done' ? 'Finished' : 'Stopped'} after ${result.iterations} iterations; policy ${summary.policy} (resume with --resume ${outDir}); metrics in run ${result.runId} of ${store.path}`);
    // Stopped by a signal: the run is interrupted, and the exit status says so (128 + the signal's number).
    return stoppedBy !== null && result.stoppedBy === 'aborted' ? signalExitCode(stoppedBy) : 0;
  } catch (e) {
    // A fault of the environment (a full disk, a locked store): the run is interrupted and continues from its last
    // checkpoint.
    const id = runId as RunId | null;
    if (id !== null && environmentLine(e, store.path) !== null) {
      throw runStopped(e, id, `awb train grpo --resume ${outDir}${values.db ? ` --db ${store.path}` : ''}`, store.path, () => interruptRun(store.db, id));
    }
    throw e;
  } finally {
    removeSignals();
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
