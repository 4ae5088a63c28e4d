import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { appSlug } from '../../policy/adapter-file.js';
import { isTransformerModelDir } from '../../policy/transformer/model.js';
import { appTestTemplates, pickShots, resolveAdaptApp } from '../../rl/adapt-instances.js';
import { TransformerAdaptConfigSchema, type TransformerAdaptConfig } from '../../rl/transformer-adapt.js';
import { checkTransformerRollouts, TransformerUnsupportedError } from '../../rl/transformer-rollouts.js';
import { SPLIT_DATA } from '../../tasks/splits.js';
import { WorkbenchError } from '../../util/errors.js';
import type { AdaptationStart } from '../../api/adaptation-types.js';
import { CHECKPOINT_NAME, checkpointsDir } from '../checkpoints.js';
import { AdaptationInputError } from './prepare.js';

/**
 * A startAdaptation request whose base is a transformer model folder (docs/policy-transformer.md), checked before any
 * worker starts with every problem listed by field, as prepare.ts checks a builtin one. The transformer adapts as
 * `awb adapt --policy MODEL_DIR` does (core/rl/transformer-adapt.ts): GRPO only (AW-Gen's recipe), a LoRA on the screen
 * transformer with the base frozen, and the adapted model is a model folder of its own, written under the data
 * folder's checkpoints so it is a policy choice like any checkpoint. What only the builtin adapter has (SFT,
 * recorded demonstrations, the head-only kind, the home-screen mode) is refused by name, not ignored.
 */
export interface PreparedTransformerAdaptation {
  base: string;
  app: string;
  outDir: string;
  config: TransformerAdaptConfig;
  evalSeeds: number[];
  evalTemplates: string[] | null;
  /** GRPO iterations planned. */
  total: number;
  /** The request as validated (the job's config, the report's summary). */
  summary: Record<string, unknown>;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The transformer model folder a base choice names (checkpoint:<name>, a checkpoint name, or an absolute path), or null. */
export function transformerBase(dataDir: string, policy: string): string | null {
  const name = policy.startsWith('checkpoint:') ? policy.slice('checkpoint:'.length) : policy;
  const dir = isAbsolute(name) ? name : CHECKPOINT_NAME.test(name) ? join(checkpointsDir(dataDir), name) : null;
  return dir !== null && isTransformerModelDir(dir) ? dir : null;
}

export function prepareTransformerAdaptation(input: AdaptationStart, base: string, dataDir: string): PreparedTransformerAdaptation {
  const issues: Array<{ path: string; message: string }> = [];
  const given = isPlainObject(input.config) ? input.config : {};
  if (input.config !== undefined && !isPlainObject(input.config)) issues.push({ path: 'config', message: `expected an object, got ${JSON.stringify(input.config)}` });
  const only = 'the transformer policy adapts by GRPO with a LoRA on its screen transformer (awb adapt --policy MODEL_DIR)';
  const method = input.method ?? given.method;
  if (method !== undefined && method !== 'grpo') issues.push({ path: 'method', message: `${JSON.stringify(method)}: ${only}; choose grpo` });
  const kind = input.kind ?? given.kind;
  if (kind !== undefined && kind !== 'lowrank') issues.push({ path: 'kind', message: `${JSON.stringify(kind)}: ${only}, a low-rank adapter` });
  if ((input.home ?? given.home) !== undefined) issues.push({ path: 'home', message: 'the adapted transformer model runs every screen whole: a home-screen mode applies to builtin adapters only' });
  if (input.epochs !== undefined || given.sft !== undefined) issues.push({ path: 'sft.epochs', message: `${only}: it has no SFT stage here` });
  if (input.episodes?.length) issues.push({ path: 'episodes', message: `recorded demonstrations train SFT; ${only}` });

  let target = null;
  try {
    target = resolveAdaptApp(input.app);
  } catch (e) {
    if (!(e instanceof WorkbenchError)) throw e;
    issues.push({ path: 'app', message: e.message });
  }
  const parsed = TransformerAdaptConfigSchema.safeParse({
    ...(input.shots ?? given.shots) !== undefined ? { shots: input.shots ?? given.shots } : {},
    ...(input.rank ?? given.rank) !== undefined ? { rank: input.rank ?? given.rank } : {},
    ...(input.seed ?? given.seed) !== undefined ? { seed: input.seed ?? given.seed } : {},
    grpo: { ...(isPlainObject(given.grpo) ? given.grpo : {}), ...(input.iterations !== undefined ? { iterations: input.iterations } : {}) },
    ...given.ray !== undefined ? { ray: given.ray } : {},
    ...given.recording !== undefined ? { recording: given.recording } : {},
  });
  if (!parsed.success) for (const i of parsed.error.issues) issues.push({ path: i.path.join('.') || 'config', message: i.message });
  const config = parsed.success ? parsed.data : null;
  if (config) {
    try {
      checkTransformerRollouts(config.ray, base);
    } catch (e) {
      if (!(e instanceof TransformerUnsupportedError)) throw e;
      issues.push({ path: e.field, message: e.message });
    }
  }
  if (target && config) {
    try {
      pickShots(target, config.shots, config.seed);
    } catch (e) {
      if (!(e instanceof WorkbenchError)) throw e;
      issues.push({ path: 'shots', message: e.message });
    }
  }
  if (target && input.evalTemplates) {
    const tests = appTestTemplates(target).map((t) => t.id);
    const unknown = input.evalTemplates.filter((t) => !tests.includes(t));
    if (unknown.length) issues.push({ path: 'evalTemplates', message: `${unknown.join(', ')}: not held-out templates of ${target.app} (${tests.join(', ')})` });
  }
  if (issues.length || !target || !config) throw new AdaptationInputError(issues);

  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  let outDir = join(checkpointsDir(dataDir), `transformer-adapt-${appSlug(target.app)}-${stamp}`);
  for (let n = 2; existsSync(outDir); n++) outDir = `${outDir}-${n}`;
  const evalSeeds = input.evalSeeds ?? [...SPLIT_DATA.seeds.test];
  const summary = {
    app: target.app, package: target.package, regime: target.regime, policy: base, model: 'transformer', shots: config.shots, method: 'grpo', kind: 'lowrank',
    rank: config.rank, iterations: config.grpo.iterations, epochs: 0, seed: config.seed, home: null, episodes: [], evalSeeds,
    evalTemplates: input.evalTemplates ?? null, out: outDir,
  };
  return { base, app: target.app, outDir, config, evalSeeds, evalTemplates: input.evalTemplates ?? null, total: config.grpo.iterations, summary };
}
