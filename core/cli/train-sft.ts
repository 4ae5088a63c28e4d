import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import type { SftEpochMetrics } from '../rl/sft.js';
import { demonstrationInstances, parseTrainSftConfig, runSft, TrainSftConfigError, type TrainSftConfig } from '../rl/train-sft.js';
import { checkOutFolder, oneLine, parseFlags, UsageError } from './args.js';
import { dataDir } from '../util/data-dir.js';
import { embeddedDevice, type Io } from './main.js';

const USAGE = 'awb train sft --config FILE.json [--out DIR] [--json]';

const Flags = z.object({
  config: z.string().min(1).optional().describe('JSON file with the training config'),
  out: z.string().min(1).optional().describe('Checkpoint folder (default <data folder>/checkpoints/sft-<timestamp>)'),
  json: z.boolean().optional(),
});

/**
 * `awb train sft`: SFT of the builtin policy (core/rl/train-sft.ts runSft) from a config file, with
 * oracle demonstrations on the embedded SimDroid; writes <out>/policy.json and prints its path. One
 * progress line per epoch (a JSON object per line with --json, then a final summary object).
 */
export async function trainSftCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags(argv, { config: { type: 'string' }, out: { type: 'string' }, json: { type: 'boolean' } }, Flags);
  if (positionals.length) throw new UsageError(`Unexpected ${JSON.stringify(positionals[0])}\n${USAGE}`);
  if (!values.config) throw new UsageError(`--config is required\n${USAGE}`);
  let input: unknown;
  try {
    input = JSON.parse(readFileSync(values.config, 'utf8'));
  } catch (e) {
    throw new UsageError(`--config ${values.config}: ${(e as Error).message}`, { cause: e });
  }
  let config: TrainSftConfig;
  try {
    config = parseTrainSftConfig(input);
  } catch (e) {
    if (e instanceof TrainSftConfigError) throw new UsageError(`${values.config}: ${oneLine(e.message)}`, { cause: e });
    throw e;
  }
  if (demonstrationInstances(config).length === 0) throw new UsageError(`${values.config}: no demonstration instances (every one is a test instance, or the part is empty)`);
  const outDir = resolve(values.out ?? join(dataDir(), 'checkpoints', `sft-${new Date().toISOString().replace(/[:.]/g, '-')}`));
  if (values.out) checkOutFolder(values.out, '--out');
  const file = join(outDir, 'policy.json');

  const device = embeddedDevice();
  let r;
  try {
    r = await runSft(config, {
      device, checkpoint: { file, every: 'end' },
      onDemonstrations: ({ set, templates, skipped }) => {
        if (!values.json) io.out(`Demonstrations: ${set.demos.length} steps from ${set.episodes} oracle episodes (${templates} templates; ${skipped} steps outside the candidate set skipped; ${set.oracleFailures} oracle failures)`);
        if (set.demos.length === 0) throw new UsageError(`${values.config}: the oracle produced no trainable step`);
      },
      onEpoch: (m: SftEpochMetrics) => {
        io.out(values.json
          ? JSON.stringify(m)
          : `epoch ${m.epoch}/${config.sft.epochs}  loss/nll ${m['loss/nll'].toFixed(4)}  acc/top1 ${(m['acc/top1'] * 100).toFixed(1)}%  grad/norm ${m['grad/norm'].toFixed(3)}`);
      },
    });
  } finally {
    device.close();
  }
  const { set, templates } = r.demonstrations;
  if (values.json) io.out(JSON.stringify({ checkpoint: file, steps: set.demos.length, episodes: set.episodes, templates, final: r.history.at(-1) ?? null }));
  else io.out(`Checkpoint: ${file}`);
  return 0;
}
