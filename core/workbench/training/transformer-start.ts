import { existsSync } from 'node:fs';
import { parseTrainConfig, TrainConfigError, type TrainConfig } from '../../rl/config.js';
import { demonstrationInstances } from '../../rl/train-sft.js';
import { TransformerSftConfigSchema, type TransformerSftConfig } from '../../rl/transformer-config.js';
import { checkTransformerRollouts, TransformerUnsupportedError } from '../../rl/transformer-rollouts.js';
import { TrainingConfigError } from '../job-errors.js';
import { PolicyChoiceError, transformerModelFolder } from '../policy-choices.js';

/**
 * The transformer policy's run configs checked once, where the API takes them (TrainingManager.start), before a worker
 * starts: the zod schema's problems, an init that is not a transformer model folder, a tokenizer file that is not
 * there, and a model folder too large to send to a Ray cluster's rollout servers, all listed in one TrainingConfigError.
 */

/** SFT (core/rl/transformer-config.ts): init resolved to its model folder's path. */
export function prepareTransformerSft(raw: unknown, dataDir: string): TransformerSftConfig {
  const r = TransformerSftConfigSchema.safeParse(raw);
  if (!r.success) throw new TrainingConfigError('transformer-sft', r.error.issues.map((i) => `${i.path.join('.') || '(config)'}: ${i.message}`));
  const config = r.data;
  const problems: string[] = [];
  if (config.init !== undefined) {
    const folder = attempt(problems, 'init', () => transformerModelFolder(dataDir, config.init!));
    if (folder !== null) config.init = folder;
  }
  if (config.tokenizer !== undefined && !existsSync(config.tokenizer)) problems.push(`tokenizer: no such file ${JSON.stringify(config.tokenizer)}`);
  if (demonstrationInstances(config).length === 0) problems.push('(config): no demonstration instances (every one is a test instance, or the part is empty)');
  if (problems.length) throw new TrainingConfigError('transformer-sft', problems);
  return config;
}

/** GRPO / AdaGRPO: the builtin policy's config (core/rl/config.ts) with init a transformer model folder, resolved to its path. */
export function prepareTransformerGrpo(raw: unknown, dataDir: string): TrainConfig {
  let config: TrainConfig;
  try {
    config = parseTrainConfig(raw);
  } catch (e) {
    if (e instanceof TrainConfigError) throw new TrainingConfigError('transformer-grpo', e.problems);
    throw e;
  }
  const problems: string[] = [];
  if (config.init === null) problems.push('init: a transformer GRPO run starts from a transformer model folder (a transformer SFT checkpoint)');
  else {
    const folder = attempt(problems, 'init', () => transformerModelFolder(dataDir, config.init!));
    if (folder !== null) {
      config.init = folder;
      try {
        checkTransformerRollouts(config.ray, folder);
      } catch (e) {
        if (!(e instanceof TransformerUnsupportedError)) throw e;
        problems.push(`${e.field}: ${e.message}`);
      }
    }
  }
  if (problems.length) throw new TrainingConfigError('transformer-grpo', problems);
  return config;
}

function attempt<T>(problems: string[], path: string, fn: () => T): T | null {
  try {
    return fn();
  } catch (e) {
    if (!(e instanceof PolicyChoiceError)) throw e;
    problems.push(`${path}: ${e.message}`);
    return null;
  }
}
