import { join } from 'node:path';
import { loadBasePolicy, type BasePolicy } from '../../policy/adapter-file.js';
import { type AdaptConfig, type AdaptMethod } from '../../rl/adapt-config.js';
import { demonstrationEpisodes } from '../../rl/demonstrations.js';
import { appTestTemplates, pickShots, resolveAdaptApp, type AdaptTarget } from '../../rl/adapt-instances.js';
import { adaptConfigOf, type RunAdaptationOptions } from '../../rl/adapt.js';
import type { ReadableDB } from '../../store/index.js';
import { SPLIT_DATA } from '../../tasks/splits.js';
import { WorkbenchError } from '../../util/errors.js';
import { trainableCheckpoint } from '../policy-choices.js';
import type { AdaptationStart } from '../../api/adaptation-types.js';
import { formatIssues } from '../../util/zod-issues.js';

/**
 * Checks a startAdaptation request before any worker starts, listing every problem at once by field
 * (the app, the base checkpoint, the config, the shots against the app's adapt instances, the
 * recorded episodes, the evaluation templates), and turns it into runAdaptation's plain options.
 */
export class AdaptationInputError extends WorkbenchError {
  override name = 'AdaptationInputError';
  constructor(readonly issues: Array<{ path: string; message: string }>) {
    super(`Invalid adaptation (${issues.length} problem${issues.length === 1 ? '' : 's'}): ${formatIssues(issues, { root: '(input)' })}`);
  }
}

export interface PreparedAdaptation {
  options: RunAdaptationOptions;
  target: AdaptTarget;
  config: AdaptConfig;
  /** SFT epochs + GRPO iterations planned. */
  total: number;
  /** The request as validated (defaults filled), kept as the job's config. */
  summary: Record<string, unknown>;
}

export interface PrepareContext {
  dataDir: string;
  db: ReadableDB;
}

const usesSft = (m: AdaptMethod) => m === 'sft' || m === 'sft+grpo';
const usesGrpo = (m: AdaptMethod) => m === 'grpo' || m === 'sft+grpo';
const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The base: a checkpoint choice or name (core/workbench/policy-choices.ts) or an absolute path to a policy file. */
const policyPath = (policy: string, dataDir: string): string => trainableCheckpoint(dataDir, policy);

/** User errors a request can cause (the others are bugs, and pass through). */
const isInputProblem = (e: unknown): e is Error => e instanceof WorkbenchError || (e instanceof Error && e.name === 'CheckpointError');

/** Errors that list their problems (one issue each); others are one issue with their message. */
const LISTING_ERRORS = new Set(['AdaptConfigError', 'DemonstrationSourceError']);

/** An error's problems as issues: under `path`, or (path '') each problem's own "path: message" prefix. */
function problemsOf(e: Error, path: string): Array<{ path: string; message: string }> {
  const problems = (e as { problems?: unknown }).problems;
  const list = LISTING_ERRORS.has(e.name) && Array.isArray(problems) ? (problems as string[]) : [e.message];
  return list.map((p) => {
    const at = p.indexOf(': ');
    return path === '' && at > 0 ? { path: p.slice(0, at), message: p.slice(at + 2) } : { path: path || '(input)', message: p };
  });
}

export function prepareAdaptation(input: AdaptationStart, ctx: PrepareContext): PreparedAdaptation {
  const issues: Array<{ path: string; message: string }> = [];
  const attempt = <T>(path: string, fn: () => T): T | null => {
    try {
      return fn();
    } catch (e) {
      if (!isInputProblem(e)) throw e;
      issues.push(...problemsOf(e, path));
      return null;
    }
  };

  const target = attempt('app', () => resolveAdaptApp(input.app));
  const base: BasePolicy | null = attempt('policy', () => loadBasePolicy(policyPath(input.policy, ctx.dataDir)));
  if (input.config !== undefined && !isPlainObject(input.config)) issues.push({ path: 'config', message: `expected an object, got ${JSON.stringify(input.config)}` });
  const given = isPlainObject(input.config) ? input.config : {};
  // Recorded demonstrations are for SFT: with no method given they mean SFT (as `awb adapt --from-episodes`).
  const method = input.method ?? (input.episodes?.length && given.method === undefined ? 'sft' : undefined);
  const sft = isPlainObject(given.sft) ? given.sft : given.sft === undefined ? {} : given.sft;
  const config = attempt('', () => adaptConfigOf({
    shots: input.shots, method, kind: input.kind, rank: input.rank, iterations: input.iterations, seed: input.seed, home: input.home,
    config: { ...given, ...(input.epochs !== undefined && isPlainObject(sft) ? { sft: { ...sft, epochs: input.epochs } } : {}) },
  }));

  if (target) {
    const tests = attempt('app', () => appTestTemplates(target).map((t) => t.id));
    // Checked even when the config has other problems, so they are all listed at once.
    const shots = config?.shots ?? input.shots ?? (Number.isInteger(given.shots) ? (given.shots as number) : undefined);
    if (shots !== undefined) attempt('shots', () => pickShots(target, shots, config?.seed ?? 0));
    if (tests && input.evalTemplates) {
      const unknown = input.evalTemplates.filter((t) => !tests.includes(t));
      if (unknown.length) issues.push({ path: 'evalTemplates', message: `${unknown.join(', ')}: not held-out templates of ${target.app} (${tests.join(', ')})` });
    }
  }
  if (input.episodes?.length) {
    const m = config?.method ?? method;
    if (m !== undefined && !usesSft(m)) {
      issues.push({ path: 'episodes', message: `recorded demonstrations train SFT; method ${m} has none (choose sft or sft+grpo)` });
    }
    if (target) attempt('episodes', () => demonstrationEpisodes(ctx.db, input.episodes!, target.package));
  }
  if (issues.length || !target || !base || !config) throw new AdaptationInputError(issues);

  const evalSeeds = input.evalSeeds ?? [...SPLIT_DATA.seeds.test];
  const options: RunAdaptationOptions = {
    policy: base.path!, app: target.app, config, evalSeeds, adaptersRoot: join(ctx.dataDir, 'adapters'),
    ...(input.episodes?.length ? { fromEpisodes: input.episodes } : {}),
    ...(input.evalTemplates ? { evalTemplates: input.evalTemplates } : {}),
  };
  const total = (usesSft(config.method) ? config.sft.epochs : 0) + (usesGrpo(config.method) ? config.grpo.iterations : 0);
  const summary = {
    app: target.app, package: target.package, regime: target.regime, policy: base.path, baseSha256: base.sha256,
    shots: config.shots, method: config.method, kind: config.kind, rank: config.kind === 'lowrank' ? config.rank : null,
    iterations: config.grpo.iterations, epochs: config.sft.epochs, seed: config.seed, home: config.home,
    episodes: input.episodes ?? [], evalSeeds, evalTemplates: input.evalTemplates ?? null,
  };
  return { options, target, config, total, summary };
}
