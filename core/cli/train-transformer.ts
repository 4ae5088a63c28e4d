import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { parseTrainConfig, TrainConfigError, type TrainConfig } from '../rl/config.js';
import { demonstrationInstances } from '../rl/train-sft.js';
import { sftEpochs, TransformerSftConfigSchema, type TransformerSftConfig } from '../rl/transformer-config.js';
import { trainTransformerGrpo } from '../rl/transformer-grpo.js';
import { runTransformerSft } from '../rl/transformer-sft.js';
import { dataDir } from '../util/data-dir.js';
import { issueLines } from '../util/zod-issues.js';
import { oneLine, parseFlags, UsageError } from './args.js';
import { embeddedDevice, type Io } from './main.js';
import { openDb } from './open-db.js';
import { progressLine } from './train.js';

export const TRANSFORMER_USAGE = `  awb train transformer-sft --config FILE [--out DIR] [--json]
                                     SFT of the transformer policy (docs/policy-transformer.md); writes the model folder DIR
                                     (the config's dagger: rounds where the model acts and the oracle labels its screens)
  awb train transformer-grpo --config FILE [--out DIR] [--db PATH] [--record-episodes] [--json]
                                     GRPO / AdaGRPO of the transformer policy; the config's init is an SFT model folder
                                     (--record-episodes: every rollout in the store run, thinned by the config's recording)`;

const Flags = z.object({
  config: z.string().min(1).optional(),
  out: z.string().min(1).optional(),
  db: z.string().optional(),
  'record-episodes': z.boolean().optional(),
  json: z.boolean().optional(),
});

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new UsageError(`--config ${path}: ${(e as Error).message}`, { cause: e });
  }
}

function stamp(kind: string): string {
  return join(dataDir(), 'checkpoints', `${kind}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
}

/** `awb train transformer-sft`: oracle demonstrations on the embedded SimDroid, behaviour cloning in the trainer's session. */
export async function transformerSftCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags(argv, { config: { type: 'string' }, out: { type: 'string' }, json: { type: 'boolean' } }, Flags);
  if (positionals.length || !values.config) throw new UsageError(`--config is required\n${TRANSFORMER_USAGE}`);
  const r = TransformerSftConfigSchema.safeParse(readJson(values.config) ?? {});
  if (!r.success) throw new UsageError(`${values.config}: ${issueLines(r.error.issues, { root: '(root)' }).join('; ')}`);
  const config: TransformerSftConfig = r.data;
  if (demonstrationInstances(config).length === 0) throw new UsageError(`${values.config}: no demonstration instances`);
  const outDir = resolve(values.out ?? stamp('transformer-sft'));
  const device = embeddedDevice();
  try {
    const res = await runTransformerSft(config, {
      device, outDir,
      onEpoch: (m) => io.out(values.json ? JSON.stringify(m)
        : `epoch ${m.epoch}/${sftEpochs(config)}  loss/nll ${m['loss/nll'].toFixed(4)}  acc/top1 ${(m['acc/top1'] * 100).toFixed(1)}%  ${m['perf/epoch_s'].toFixed(1)} s`),
    });
    const summary = { model: outDir, demonstrations: res.demonstrations, dagger: res.dagger, parameters: res.parameters, collectS: res.collectS, trainS: res.trainS, final: res.history.at(-1) ?? null };
    io.out(values.json ? JSON.stringify(summary)
      : `Demonstrations: ${res.demonstrations.steps} steps from ${res.demonstrations.episodes} episodes (skipped ${JSON.stringify(res.demonstrations.skipped)}); `
        + `${res.parameters.total.toLocaleString('en')} parameters; model ${outDir}`);
    return 0;
  } finally {
    device.close();
  }
}

/** `awb train transformer-grpo`: GRPO on in-process SimDroids from an SFT model folder. */
export async function transformerGrpoCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags(argv, {
    config: { type: 'string' }, out: { type: 'string' }, db: { type: 'string' }, 'record-episodes': { type: 'boolean' }, json: { type: 'boolean' },
  }, Flags);
  if (positionals.length || !values.config) throw new UsageError(`--config is required\n${TRANSFORMER_USAGE}`);
  let config: TrainConfig;
  try {
    config = parseTrainConfig(readJson(values.config));
  } catch (e) {
    if (e instanceof TrainConfigError) throw new UsageError(`${values.config}: ${oneLine(e.message)}`, { cause: e });
    throw e;
  }
  const outDir = resolve(values.out ?? stamp('transformer-grpo'));
  const store = openDb(values.db);
  const ac = new AbortController();
  const onSigint = () => {
    io.err('Stopping after this iteration (the model folder will be written).');
    ac.abort();
  };
  process.once('SIGINT', onSigint);
  try {
    const r = await trainTransformerGrpo({
      config, outDir, db: store.db, rewardContext: { dataDir: dataDir() }, recordEpisodes: values['record-episodes'] ?? false, signal: ac.signal, log: (m) => io.err(m),
      onIteration: (m) => io.out(values.json ? JSON.stringify(m) : progressLine(m, config.iterations)),
    });
    const summary = { model: outDir, iterations: r.iterations, stoppedBy: r.stoppedBy, runId: r.runId, db: store.path };
    io.out(values.json ? JSON.stringify(summary) : `${r.stoppedBy === 'done' ? 'Finished' : 'Stopped'} after ${r.iterations} iterations; model ${outDir}; metrics in run ${r.runId} of ${store.path}`);
    return 0;
  } finally {
    process.off('SIGINT', onSigint);
    store.db.close();
  }
}
