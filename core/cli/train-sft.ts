import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { createModel, DEFAULT_HIDDEN } from '../policy/builtin.js';
import { saveCheckpoint } from '../policy/checkpoint.js';
import { DEFAULT_ENCODER, EncoderConfigSchema } from '../policy/encoder.js';
import { collectDemonstrations, SftConfigSchema, trainSft, type SftEpochMetrics } from '../rl/sft.js';
import { TASKS } from '../tasks/registry.js';
import { instanceKey, instantiate, type TaskInstance } from '../tasks/instance.js';
import { PARTS, SPLITS, splitInstances, splitTemplates } from '../tasks/splits.js';
import { createRng } from '../util/rng.js';
import { parseFlags, UsageError } from './args.js';
import { dataDir } from '../util/data-dir.js';
import { embeddedDevice, type Io } from './main.js';
import { issueLines } from '../util/zod-issues.js';

const USAGE = 'awb train sft --config FILE.json [--out DIR] [--json]';

/**
 * The `awb train sft` config file: where the oracle demonstrations come from, the model's shape,
 * and the SFT hyper-parameters (core/rl/sft.ts). Validated once; every problem is listed.
 */
export const TrainSftConfigSchema = z.strictObject({
  split: z.enum(SPLITS).default('unseen-instance').describe('Regime whose part the demonstrations come from (default unseen-instance)'),
  part: z.enum(PARTS).default('train').describe('Split part (default train: never the test instances, AW-Gen §3.2)'),
  templates: z.array(z.string().min(1)).min(1).optional().describe('Only these template ids (each must be in the split part); default every template of the part'),
  maxTemplates: z.int().min(1).optional().describe('Only the first N templates (after `templates`)'),
  seeds: z.array(z.int().nonnegative()).min(1).optional().describe('Instance seeds; default the split part\'s seeds (16 train seeds, AW-Gen App. C). Instances equal to a test instance are dropped'),
  modelSeed: z.int().nonnegative().default(0).describe('Seed of the network\'s initial parameters (default 0)'),
  hidden: z.int().min(1).max(1024).default(DEFAULT_HIDDEN).describe(`Hidden units of the scorer (default ${DEFAULT_HIDDEN}, as core/policy/builtin.ts)`),
  encoder: EncoderConfigSchema.default(DEFAULT_ENCODER).describe('Text encoder (default hashed n-grams, dim 32, char 3-grams)'),
  sft: SftConfigSchema.default(SftConfigSchema.parse({})).describe('SFT hyper-parameters (core/rl/sft.ts SftConfigSchema)'),
});
export type TrainSftConfig = z.infer<typeof TrainSftConfigSchema>;

export class TrainSftConfigError extends Error {
  override name = 'TrainSftConfigError';
  constructor(readonly input: unknown, readonly problems: string[]) {
    super(`Invalid SFT training config:\n  ${problems.join('\n  ')}`);
  }
}

/** Parses and checks a config, schema and template ids together, so one run lists every problem. */
export function parseTrainSftConfig(input: unknown): TrainSftConfig {
  const r = TrainSftConfigSchema.safeParse(input ?? {});
  const problems = r.success ? [] : issueLines(r.error.issues, { root: '(root)' });
  if (r.success && r.data.templates) {
    const inPart = new Set(splitTemplates(TASKS, r.data.split, r.data.part === 'adapt' ? 'test' : r.data.part).map((t) => t.id));
    for (const id of r.data.templates) {
      if (!inPart.has(id)) problems.push(`templates: ${JSON.stringify(id)} is not a template of ${r.data.split}/${r.data.part}`);
    }
  }
  if (problems.length || !r.success) throw new TrainSftConfigError(input, problems);
  return r.data;
}

/** The demonstration instances a config names: templates × seeds, never a test instance of the split. */
export function demonstrationInstances(config: TrainSftConfig): TaskInstance[] {
  const templatePart = config.part === 'adapt' ? 'test' : config.part;
  let templates = splitTemplates(TASKS, config.split, templatePart);
  if (config.templates) {
    const wanted = new Set(config.templates);
    templates = templates.filter((t) => wanted.has(t.id));
  }
  if (config.maxTemplates) templates = templates.slice(0, config.maxTemplates);
  const ids = new Set(templates.map((t) => t.id));
  if (!config.seeds) return splitInstances(TASKS, config.split, config.part).filter((i) => ids.has(i.template.id));
  const testKeys = config.part === 'test' ? new Set<string>() : new Set(splitInstances(TASKS, config.split, 'test').map(instanceKey));
  const seen = new Set<string>();
  const out: TaskInstance[] = [];
  for (const t of templates) {
    for (const seed of config.seeds) {
      const inst = instantiate(t, seed);
      const key = instanceKey(inst);
      if (seen.has(key) || testKeys.has(key)) continue;
      seen.add(key);
      out.push(inst);
    }
  }
  return out;
}

const Flags = z.object({
  config: z.string().min(1).optional().describe('JSON file with the training config'),
  out: z.string().min(1).optional().describe('Checkpoint folder (default <data folder>/checkpoints/sft-<timestamp>)'),
  json: z.boolean().optional(),
});

/**
 * `awb train sft`: collect oracle demonstrations on the embedded SimDroid, behaviour-clone the
 * builtin policy, write <out>/policy.json, print its path. One progress line per epoch (a JSON
 * object per line with --json, then a final summary object).
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
    if (e instanceof TrainSftConfigError) throw new UsageError(`${values.config}: ${e.message}`, { cause: e });
    throw e;
  }
  const instances = demonstrationInstances(config);
  if (instances.length === 0) throw new UsageError(`${values.config}: no demonstration instances (every one is a test instance, or the part is empty)`);
  const outDir = resolve(values.out ?? join(dataDir(), 'checkpoints', `sft-${new Date().toISOString().replace(/[:.]/g, '-')}`));
  const file = join(outDir, 'policy.json');

  // rollout: oracle demonstrations on SimDroid
  const model = createModel(createRng(`sft-init/${config.modelSeed}`), config.encoder, config.hidden);
  const device = embeddedDevice();
  let set;
  try {
    set = await collectDemonstrations(device, instances, model);
  } finally {
    device.close();
  }
  const templates = new Set(instances.map((i) => i.template.id)).size;
  const skipped = Object.values(set.skipped).reduce((a, b) => a + (b ?? 0), 0);
  if (!values.json) io.out(`Demonstrations: ${set.demos.length} steps from ${set.episodes} oracle episodes (${templates} templates; ${skipped} steps outside the candidate set skipped; ${set.oracleFailures} oracle failures)`);
  if (set.demos.length === 0) throw new UsageError(`${values.config}: the oracle produced no trainable step`);

  // update: behaviour cloning, one line per epoch
  const history = trainSft(model, set.demos, config.sft, (m: SftEpochMetrics) => {
    io.out(values.json
      ? JSON.stringify(m)
      : `epoch ${m.epoch}/${config.sft.epochs}  loss/nll ${m['loss/nll'].toFixed(4)}  acc/top1 ${(m['acc/top1'] * 100).toFixed(1)}%  grad/norm ${m['grad/norm'].toFixed(3)}`);
  });

  // log: the checkpoint with its provenance
  mkdirSync(outDir, { recursive: true });
  saveCheckpoint(file, model, {
    trainer: 'sft', config, createdAt: new Date().toISOString(),
    demonstrations: { steps: set.demos.length, episodes: set.episodes, templates, skipped: set.skipped, oracleFailures: set.oracleFailures },
    final: history.at(-1) ?? null,
  });
  if (values.json) io.out(JSON.stringify({ checkpoint: file, steps: set.demos.length, episodes: set.episodes, templates, final: history.at(-1) ?? null }));
  else io.out(`Checkpoint: ${file}`);
  return 0;
}
