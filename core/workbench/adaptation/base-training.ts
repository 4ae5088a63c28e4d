import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { trainerFile } from '../../rl/grpo-checkpoint.js';
import { demonstrationInstances, parseTrainSftConfig } from '../../rl/train-sft.js';
import { TASKS } from '../../tasks/registry.js';
import { PARTS, SPLITS, splitInstances, type SplitName, type SplitPart } from '../../tasks/splits.js';
import { isTransformerModelDir } from '../../policy/transformer/model.js';
import { TransformerSftConfigSchema } from '../../rl/transformer-config.js';
import { transformerBase } from './prepare-transformer.js';
import type { BaseTraining, BaseTrainingStep } from '../../api/adaptation-types.js';
import { readTrainerSummary } from '../checkpoints.js';
import { trainableCheckpoint } from '../policy-choices.js';

/**
 * What a base checkpoint was trained on, through its inits (a GRPO run from an SFT warm start): each checkpoint's
 * trainer, split part and how many templates, and the apps those templates touch. Adaptation's "held out" is a claim
 * about the base: an app is held out only if none of the base's training saw it (AW-Gen's unseen-app regime trains on
 * the other apps). A checkpoint keeps its config in trainer.json (GRPO) or in policy.json's meta (SFT); one with
 * neither (a registered file, an older checkpoint) leaves the lineage incomplete, and the view says it cannot tell.
 */
export function baseTraining(dataDir: string, policy: string): BaseTraining {
  const steps: BaseTrainingStep[] = [];
  const apps = new Set<string>();
  let complete = true;
  const transformer = transformerBase(dataDir, policy);
  if (transformer !== null) return transformerLineage(policy, transformer);
  let file: string | null = trainableCheckpoint(dataDir, policy);
  const seen = new Set<string>();
  while (file !== null && !seen.has(file)) {
    seen.add(file);
    const dir = dirname(file);
    const name = dir.split(/[\\/]/).at(-1) ?? dir;
    let next: string | null = null;
    if (existsSync(trainerFile(dir))) {
      const { config } = readTrainerSummary(name, dir);
      const pool = splitInstances(TASKS, config.split, config.part);
      pool.forEach((i) => i.template.apps.forEach((a) => apps.add(a)));
      steps.push({ checkpoint: name, trainer: 'grpo', split: config.split, part: config.part, templates: new Set(pool.map((i) => i.template.id)).size });
      next = config.init;
    } else {
      const meta = readMeta(file);
      if (meta?.trainer === 'sft' && meta.config !== undefined) {
        const config = parseTrainSftConfig(meta.config);
        const instances = demonstrationInstances(config);
        instances.forEach((i) => i.template.apps.forEach((a) => apps.add(a)));
        steps.push({ checkpoint: name, trainer: 'sft', split: config.split, part: config.part, templates: new Set(instances.map((i) => i.template.id)).size });
      } else {
        complete = false;
        steps.push({ checkpoint: name, trainer: null, split: null, part: null, templates: null });
      }
    }
    try {
      file = next === null ? null : trainableCheckpoint(dataDir, next);
    } catch {
      // An init that is gone (deleted since): the lineage stops there, and says so.
      complete = false;
      file = null;
    }
  }
  return { policy, steps, apps: [...apps].sort(), complete };
}

/**
 * A transformer model folder's lineage, from its config.json's meta: an SFT run keeps its whole config, a GRPO run
 * (or a per-app adaptation's model) its split part and its init folder.
 */
function transformerLineage(policy: string, first: string): BaseTraining {
  const steps: BaseTrainingStep[] = [];
  const apps = new Set<string>();
  let complete = true;
  let dir: string | null = first;
  const seen = new Set<string>();
  while (dir !== null && !seen.has(dir)) {
    seen.add(dir);
    const name = basename(dir);
    const meta = readMeta(join(dir, 'config.json'));
    let next: string | null = null;
    const parsedSft = meta?.trainer === 'transformer-sft' ? TransformerSftConfigSchema.safeParse(meta.config) : null;
    if (parsedSft?.success) {
      const instances = demonstrationInstances(parsedSft.data);
      instances.forEach((i) => i.template.apps.forEach((a) => apps.add(a)));
      steps.push({ checkpoint: name, trainer: 'transformer-sft', split: parsedSft.data.split, part: parsedSft.data.part, templates: new Set(instances.map((i) => i.template.id)).size });
      next = parsedSft.data.init ?? null;
    } else if (meta?.trainer === 'transformer-grpo' && typeof meta.split === 'string' && typeof meta.part === 'string' && isSplit(meta.split) && isPart(meta.part)) {
      const split = meta.split;
      const part = meta.part;
      const pool = splitInstances(TASKS, split, part);
      pool.forEach((i) => i.template.apps.forEach((a) => apps.add(a)));
      steps.push({ checkpoint: name, trainer: 'transformer-grpo', split, part, templates: new Set(pool.map((i) => i.template.id)).size });
      next = typeof meta.init === 'string' ? meta.init : null;
    } else {
      complete = false;
      steps.push({ checkpoint: name, trainer: null, split: null, part: null, templates: null });
    }
    if (next !== null && !isTransformerModelDir(next)) {
      complete = false; // an init that is gone
      next = null;
    }
    dir = next;
  }
  return { policy, steps, apps: [...apps].sort(), complete };
}

const isSplit = (s: string): s is SplitName => (SPLITS as readonly string[]).includes(s);
const isPart = (s: string): s is SplitPart => (PARTS as readonly string[]).includes(s);

function readMeta(file: string): Record<string, unknown> | null {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { meta?: Record<string, unknown> }).meta ?? null;
  } catch {
    return null; // an unreadable file has no lineage to report; adaptation itself names the problem when it loads it
  }
}

