import { z } from 'zod';
import { ADAGRPO_ABLATIONS, TrainConfigSchema } from '../../rl/config.js';
import { SFT_METRIC } from '../../rl/sft.js';
import { METRIC } from '../../rl/grpo-loop.js';
import { TrainSftConfigSchema } from '../../rl/train-sft.js';
import { TransformerSftConfigSchema } from '../../rl/transformer-config.js';
import { assertNever } from '../../util/errors.js';
import type { ChartSpec, ConfigField, ConfigPreset, TrainConfigDescription, TrainerKind } from '../../api/training-types.js';

/**
 * A trainer's config as the Training view's form needs it, derived from the trainer's own zod
 * schema (the single source: `awb train … --help` reads the same descriptions), plus presets and
 * the metrics worth charting.
 */

type JsonSchema = {
  type?: string | string[]; enum?: unknown[]; const?: unknown; description?: string; default?: unknown;
  properties?: Record<string, JsonSchema>; required?: string[]; anyOf?: JsonSchema[];
  minimum?: number; maximum?: number; exclusiveMinimum?: number; exclusiveMaximum?: number;
};

/** Bounds past this are zod's "any safe integer", not a real limit worth showing. */
const UNBOUNDED = 2 ** 52;

/** Every leaf field of an object schema in schema order; defaults come from parsing `{}`. */
export function configFields(schema: z.ZodType): ConfigField[] {
  const defaults = schema.parse({}) as Record<string, unknown>;
  const out: ConfigField[] = [];
  const walk = (node: JsonSchema, prefix: string, defs: Record<string, unknown> | undefined) => {
    const required = new Set(node.required ?? []);
    for (const [key, s] of Object.entries(node.properties ?? {})) {
      const path = prefix ? `${prefix}.${key}` : key;
      const def = defs?.[key];
      if (s.properties) {
        walk(s, path, def as Record<string, unknown> | undefined);
        continue;
      }
      const all = s.anyOf ?? [s];
      const nullable = all.some((a) => a.type === 'null');
      const alts = all.filter((a) => a.type !== 'null');
      const isLiteral = (a: JsonSchema) => a.enum !== undefined || a.const !== undefined;
      const options = alts.flatMap((a) => (a.enum ?? (a.const !== undefined ? [a.const] : [])) as Array<string | number | boolean>);
      // A number that also takes a word ('auto' | integer): typed as the number, the words as options.
      const first = alts.find((a) => !isLiteral(a)) ?? alts[0] ?? {};
      const field: ConfigField = {
        path, description: s.description ?? first.description ?? path, kind: 'text', nullable,
        optional: !required.has(key) && s.default === undefined && def === undefined, default: def ?? null,
      };
      if (options.length) Object.assign(field, { options });
      if (alts.every(isLiteral) && options.length) field.kind = 'choice';
      else if (first.type === 'boolean') field.kind = 'boolean';
      else if (first.type === 'array') field.kind = 'json';
      else if (first.type === 'integer' || first.type === 'number') {
        field.kind = first.type;
        const min = first.minimum ?? first.exclusiveMinimum;
        const max = first.maximum ?? first.exclusiveMaximum;
        if (min !== undefined && Math.abs(min) < UNBOUNDED) field.min = min;
        if (max !== undefined && Math.abs(max) < UNBOUNDED) field.max = max;
      }
      out.push(field);
    }
  };
  walk(z.toJSONSchema(schema, { io: 'input' }) as JsonSchema, '', defaults);
  return out;
}

/** A few seconds per iteration on one SimDroid: to try the view, not to learn much. */
const GRPO_SMOKE: ConfigPreset = {
  name: 'smoke', label: 'Smoke test (tiny)',
  description: '1 instance × G=2 rollouts of ≤ 5 steps per iteration on 1 SimDroid, 20 iterations, a checkpoint every 5; init = the newest checkpoint (e.g. the SFT smoke run) when there is one',
  config: { iterations: 20, instancesPerIteration: 1, rolloutsPerInstance: 2, maxSteps: 5, devices: 1, checkpointEvery: 5 },
  warmStart: true,
};

const ABLATION_LABELS: Record<keyof typeof ADAGRPO_ABLATIONS, string> = {
  adagrpo: 'MobileRL: AdaGRPO (SPA + AdaPR + FCF)',
  'no-shortest-path': 'MobileRL ablation: without shortest-path reward',
  'no-replay': 'MobileRL ablation: without positive replay',
  'no-failure-curriculum': 'MobileRL ablation: without failure curriculum',
  grpo: 'MobileRL ablation: plain GRPO (all AdaGRPO parts off)',
};

/** The MobileRL ablation rows (digest 003, AdaGRPO components) as presets touching only the AdaGRPO switches. */
function ablationPresets(): ConfigPreset[] {
  return (Object.keys(ADAGRPO_ABLATIONS) as Array<keyof typeof ADAGRPO_ABLATIONS>).map((name) => {
    const on = ADAGRPO_ABLATIONS[name];
    return {
      name, label: ABLATION_LABELS[name],
      description: `adagrpo: shortestPath ${on.shortestPath ? 'on' : 'off'}, positiveReplay ${on.positiveReplay ? 'on' : 'off'}, failureCurriculum ${on.failureCurriculum ? 'on' : 'off'}`,
      config: {
        adagrpo: {
          shortestPath: { enabled: on.shortestPath }, positiveReplay: { enabled: on.positiveReplay }, failureCurriculum: { enabled: on.failureCurriculum },
        },
      },
    };
  });
}

const GRPO_CHARTS: ChartSpec[] = [
  { metric: METRIC.successRate, label: 'Success rate' },
  { metric: METRIC.rewardMean, label: 'Mean reward' },
  { metric: METRIC.lossPolicy, label: 'Policy loss' },
  { metric: METRIC.lossKl, label: 'KL to reference' },
  { metric: METRIC.entropy, label: 'Entropy' },
  { metric: METRIC.clipFrac, label: 'Clip fraction' },
  { metric: METRIC.advStd, label: 'Advantage std' },
  { metric: METRIC.stepsPerS, label: 'Env steps / s' },
];

const SFT_CHARTS: ChartSpec[] = [
  { metric: SFT_METRIC.nll, label: 'NLL of the oracle action' },
  { metric: SFT_METRIC.top1, label: 'Top-1 accuracy' },
  { metric: SFT_METRIC.gradNorm, label: 'Gradient norm' },
];

const SFT_SMOKE: ConfigPreset = {
  name: 'smoke', label: 'Smoke test (tiny)',
  description: 'Oracle demonstrations of 3 templates × 1 seed, 5 epochs',
  config: { maxTemplates: 3, seeds: [0], sft: { epochs: 5 } },
};

/** The transformer SFT epoch's metrics (resources/trainer/awb_trainer/transformer/train.py, core/rl/transformer-sft.ts). */
const TRANSFORMER_SFT_CHARTS: ChartSpec[] = [
  { metric: 'loss/nll', label: 'NLL of the oracle action' },
  { metric: 'acc/top1', label: 'Top-1 agreement with the oracle' },
  { metric: 'optim/grad_norm', label: 'Gradient norm' },
  { metric: 'optim/lr', label: 'Learning rate' },
];

/** The smallest shape the config takes, for trying the view in about a minute (docs/policy-transformer.md). */
const TRANSFORMER_SFT_SMOKE: ConfigPreset = {
  name: 'smoke', label: 'Smoke test (tiny)',
  description: 'Oracle demonstrations of 3 templates × 1 seed, a network of width 16 with one screen layer, 1 epoch (set a tokenizer of your own for a faster start)',
  config: { maxTemplates: 3, seeds: [0], shape: { width: 16, heads: 1, screenLayers: 1, textWidth: 16, textHeads: 1, textFfn: 16 }, sft: { epochs: 1, batchSize: 8 } },
};

/** The builtin GRPO smoke run's size; init = the newest checkpoint, which the form takes only if it is a transformer folder. */
const TRANSFORMER_GRPO_SMOKE: ConfigPreset = {
  ...GRPO_SMOKE, description: '1 instance × G=2 rollouts of ≤ 5 steps per iteration on 1 SimDroid, 20 iterations, a model every 5; init = the newest transformer checkpoint',
  config: { ...GRPO_SMOKE.config, rolloutWorkers: 0 },
};

export function describeTrainConfig(kind: TrainerKind): TrainConfigDescription {
  switch (kind) {
    case 'grpo':
      return { kind, fields: configFields(TrainConfigSchema), presets: [GRPO_SMOKE, ...ablationPresets()], charts: GRPO_CHARTS };
    case 'sft':
      return { kind, fields: configFields(TrainSftConfigSchema), presets: [SFT_SMOKE], charts: SFT_CHARTS };
    case 'transformer-sft':
      return { kind, fields: configFields(TransformerSftConfigSchema), presets: [TRANSFORMER_SFT_SMOKE], charts: TRANSFORMER_SFT_CHARTS };
    case 'transformer-grpo':
      // The builtin GRPO config (core/rl/config.ts), with init a transformer model folder; rollouts run in the worker's thread.
      return { kind, fields: configFields(TrainConfigSchema), presets: [TRANSFORMER_GRPO_SMOKE, ...ablationPresets()], charts: GRPO_CHARTS };
    default:
      return assertNever(kind, 'trainer kind');
  }
}
