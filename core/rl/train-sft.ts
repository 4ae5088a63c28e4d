import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { Device } from '../device/device.js';
import { createModel, DEFAULT_HIDDEN, type PolicyModel } from '../policy/builtin.js';
import { saveCheckpoint } from '../policy/checkpoint.js';
import { DEFAULT_ENCODER, EncoderConfigSchema } from '../policy/encoder.js';
import { StoreRecorder, type RunId, type WritableDB } from '../store/index.js';
import { putIterationMetrics } from '../store/training.js';
import { TASKS } from '../tasks/registry.js';
import { instanceKey, instantiate, type TaskInstance } from '../tasks/instance.js';
import { PARTS, SPLITS, splitInstances, splitTemplates } from '../tasks/splits.js';
import { assertNever } from '../util/errors.js';
import { createRng } from '../util/rng.js';
import { issueLines } from '../util/zod-issues.js';
import { collectDemonstrations, type DemonstrationSet } from './demonstrations.js';
import { behaviourClone, SftConfigSchema, storedSftMetrics, type SftEpochMetrics } from './sft.js';
import { PLAIN_ISSUES } from '../util/plain-issues.js';

/**
 * An SFT run of the builtin policy from one config: oracle demonstrations of the config's task
 * instances, a fresh model of the config's shape, behaviour cloning (sft.ts), the checkpoint. The
 * CLI (`awb train sft`) and the workbench's training job both run it; they differ only in where
 * the device comes from, what they print or post, and when the checkpoint is written.
 */

/**
 * The SFT training config: where the oracle demonstrations come from, the model's shape, and the
 * SFT hyper-parameters (sft.ts). Validated once; every problem is listed.
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
  const r = TrainSftConfigSchema.safeParse(input ?? {}, PLAIN_ISSUES);
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
export function demonstrationInstances(config: Pick<TrainSftConfig, 'split' | 'part' | 'templates' | 'maxTemplates' | 'seeds'>): TaskInstance[] {
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

/** The demonstrations a run trains on, with what the log lines and the checkpoint say of them. */
export interface SftDemonstrations {
  set: DemonstrationSet;
  /** Distinct templates among the instances. */
  templates: number;
  /** Oracle steps outside the candidate set, all action types together. */
  skipped: number;
}

export interface RunSftOptions {
  /** Where the oracle demonstrates (the caller opens and closes it). */
  device: Device;
  /**
   * policy.json with its provenance: after every epoch ('epoch': the workbench's job, which a stop
   * may end at any epoch) or once at the end ('end': the CLI, with the final metrics).
   */
  checkpoint?: { file: string; every: 'epoch' | 'end' };
  /** The training run whose iterations get each epoch's metrics (SFT_METRIC) and whose episodes are the demonstrations. */
  store?: { db: WritableDB; runId: RunId };
  /** Stops before the next demonstration or epoch. */
  signal?: AbortSignal;
  /** Before each demonstration instance (0-based); an abort seen after it stops there. */
  beforeDemonstration?: (index: number, total: number) => void;
  /** The demonstrations, before behaviour cloning starts; may throw to refuse them. */
  onDemonstrations?: (d: SftDemonstrations) => void;
  /** After each epoch, its metrics stored and its checkpoint written; an abort seen after it ends the run. */
  onEpoch?: (m: SftEpochMetrics, stored: Record<string, number>) => void;
}

export interface RunSftResult {
  model: PolicyModel;
  demonstrations: SftDemonstrations;
  history: SftEpochMetrics[];
  stoppedBy: 'done' | 'aborted';
}

/** Runs SFT from a parsed config; see the module comment. */
export async function runSft(config: TrainSftConfig, o: RunSftOptions): Promise<RunSftResult> {
  const instances = demonstrationInstances(config);
  const model = createModel(createRng(`sft-init/${config.modelSeed}`), config.encoder, config.hidden);

  // rollout: the oracle demonstrates each instance, one at a time (a stop applies between them)
  const store = o.store;
  const set = await collectDemonstrations(o.device, instances, model, {
    ...(store ? { recorder: () => new StoreRecorder(store.db, store.runId) } : {}),
    ...(o.signal ? { signal: o.signal } : {}), ...(o.beforeDemonstration ? { beforeInstance: o.beforeDemonstration } : {}),
  });
  const demonstrations: SftDemonstrations = {
    set, templates: new Set(instances.map((i) => i.template.id)).size, skipped: Object.values(set.skipped).reduce((a, b) => a + (b ?? 0), 0),
  };
  if (o.signal?.aborted) return { model, demonstrations, history: [], stoppedBy: 'aborted' };
  o.onDemonstrations?.(demonstrations);

  const checkpoint = o.checkpoint;
  const save = (file: string, meta: Record<string, unknown>) => {
    mkdirSync(dirname(file), { recursive: true });
    saveCheckpoint(file, model, meta);
  };
  // update: behaviour cloning of the whole network; log: each epoch's metrics, and its checkpoint when asked
  let t0 = performance.now();
  const history = behaviourClone({ kind: 'network', net: model.net }, set.demos, config.sft, {
    ...(o.signal ? { signal: o.signal } : {}),
    onEpoch: (m) => {
      const stored = storedSftMetrics(m, (performance.now() - t0) / 1000);
      if (o.store) putIterationMetrics(o.store.db, o.store.runId, m.epoch, stored);
      if (checkpoint?.every === 'epoch') {
        save(checkpoint.file, {
          trainer: 'sft', config, iteration: m.epoch, createdAt: new Date().toISOString(),
          demonstrations: { steps: set.demos.length, episodes: set.episodes, skipped: set.skipped, oracleFailures: set.oracleFailures },
        });
      }
      o.onEpoch?.(m, stored);
      t0 = performance.now();
    },
  });
  if (checkpoint) {
    switch (checkpoint.every) {
      case 'epoch':
        break;
      case 'end':
        save(checkpoint.file, {
          trainer: 'sft', config, createdAt: new Date().toISOString(),
          demonstrations: { steps: set.demos.length, episodes: set.episodes, templates: demonstrations.templates, skipped: set.skipped, oracleFailures: set.oracleFailures },
          final: history.at(-1) ?? null,
        });
        break;
      default:
        assertNever(checkpoint.every, 'checkpoint schedule');
    }
  }
  const stoppedBy = history.length === config.sft.epochs ? 'done' : 'aborted';
  return { model, demonstrations, history, stoppedBy };
}
