import type { Device } from '../device/device.js';
import { ScorerAdapter, type AdapterKind, type AdapterSpec } from '../policy/adapter.js';
import { selectAdapter, type HomeMode } from '../policy/adapter-policy.js';
import { adapterPath, loadBasePolicy, saveAdapter, type AppAdapter, type BasePolicy } from '../policy/adapter-file.js';
import { putIterationMetrics, StoreRecorder, type ReadableDB, type RunId, type WritableDB } from '../store/index.js';
import { assertNever, WorkbenchError } from '../util/errors.js';
import { createRng } from '../util/rng.js';
import { parseAdaptConfig, type AdaptConfig, type AdaptConfigInput, type AdaptMethod } from './adapt-config.js';
import { collectDemonstrations, demonstrationEpisodes, storedDemonstrations, type DemonstrationSet } from './demonstrations.js';
import { appEvalResult, compareEvals, evalPolicyFactory, evaluateInstances, withDevices, type AppEvalResult, type TemplateDelta } from './adapt-eval.js';
import { trainAdapterGrpo } from './adapt-grpo.js';
import { withAdaptRolloutWorkers } from './adapt-rollouts.js';
import type { RolloutWorkerPool } from '../rollout/rollout-workers.js';
import { appTestInstances, pickShots, resolveAdaptApp, type AdaptRegime, type AdaptTarget } from './adapt-instances.js';
import { SPLIT_DATA } from '../tasks/splits.js';
import { behaviourClone, type SftEpochMetrics } from './sft.js';
import type { IterationMetrics } from './grpo-loop.js';
import { RolloutRecording } from './rollout-recording.js';

/**
 * Few-shot per-app adaptation (issue 6; AW-Gen §5.1 Q3, digest 004 §7.4): from a base policy, k
 * instances of one app, a short SFT and/or GRPO that trains only a small per-app adapter
 * (core/policy/adapter.ts), stored per app and selected by the foreground package at inference.
 * runAdaptation does before → adapt → after with progress events; its options, events and report are
 * plain data (the workbench API can pass them as they are). docs/adaptation.md explains the choices.
 */

/** Progress of an adaptation, one event at a time (all plain data). */
export type AdaptProgress =
  | { phase: 'before' | 'after'; done: number; total: number; templateId: string; seed: number; success: boolean }
  /** Before each shot's oracle demonstration: `done` of `total` collected so far (the phase's progress). */
  | { phase: 'demonstrating'; done: number; total: number }
  | { phase: 'demonstrations'; source: DemonstrationSource; episodes: number; steps: number; appSteps: number }
  | { phase: 'sft'; epoch: number; epochs: number; metrics: SftEpochMetrics }
  | { phase: 'grpo'; iteration: number; iterations: number; metrics: Record<string, number> }
  | { phase: 'saved'; path: string };

export type DemonstrationSource = 'oracle' | 'episodes';

/**
 * The store run an adaptation records into (docs/adaptation.md, "What an adaptation records"): the oracle
 * demonstrations on the shots, the GRPO rollouts on them (iteration, group, reward, advantage; thinned by
 * `config.recording`) with each GRPO iteration's metrics, and the before / after evaluation episodes.
 */
export interface AdaptationRecord {
  db: WritableDB;
  runId: RunId;
}

export class AdaptOptionsError extends WorkbenchError {
  override name = 'AdaptOptionsError';
}

export interface AdaptToAppOptions {
  base: BasePolicy;
  /** Task app by name, launcher label, alias or package. */
  app: string;
  shots?: number;
  method?: AdaptMethod;
  kind?: AdapterKind;
  rank?: number;
  /** GRPO iterations (default 50, AW-Gen §5.1 Q3). */
  iterations?: number;
  seed?: number;
  /** What scores the home screen during adaptation and evaluation (core/policy/adapter-policy.ts). */
  home?: HomeMode;
  /** The rest of the hyper-parameters (the fields above override it). */
  config?: AdaptConfigInput;
  /** SFT from these recorded episodes instead of oracle demonstrations of the shots. */
  demonstrations?: { db: ReadableDB; episodes: readonly number[] };
  devices?: readonly Device[];
  /**
   * The rollout workers GRPO runs on, null for in process on the devices (runAdaptation starts them before its first
   * phase); default: those the config asks for (grpo.rolloutWorkers, ray), started for the GRPO phase.
   */
  workers?: RolloutWorkerPool | null;
  /** Messages about a Ray cluster the rollouts run on. */
  log?: (message: string) => void;
  /** Record the shots' episodes and the GRPO metrics into this run. */
  record?: AdaptationRecord;
  signal?: AbortSignal;
  onProgress?: (e: AdaptProgress) => void;
}

export interface DemonstrationSummary {
  source: DemonstrationSource;
  episodes: number;
  /** Every demonstrated step that matched a candidate. */
  steps: number;
  /** Those on the app's screens: what the adapter is trained on. */
  appSteps: number;
  skipped: DemonstrationSet['skipped'];
}

export interface AdaptToAppResult {
  adapter: AppAdapter;
  target: AdaptTarget;
  config: AdaptConfig;
  shots: { templateId: string; seed: number }[];
  demonstrations: DemonstrationSummary | null;
  sft: SftEpochMetrics[];
  grpo: IterationMetrics[];
  stoppedBy: 'done' | 'aborted';
}

function specOf(c: AdaptConfig): AdapterSpec {
  switch (c.kind) {
    case 'head':
      return { kind: 'head' };
    case 'lowrank':
      return { kind: 'lowrank', rank: c.rank };
    default:
      return assertNever(c.kind, 'adapter kind');
  }
}

const usesSft = (m: AdaptMethod) => m === 'sft' || m === 'sft+grpo';
const usesGrpo = (m: AdaptMethod) => m === 'grpo' || m === 'sft+grpo';

/** The config with the shorthand options laid over `config` (only those given). */
export function adaptConfigOf(o: AdaptSettings): AdaptConfig {
  const c = o.config ?? {};
  const defined = <T extends object>(x: T) => Object.fromEntries(Object.entries(x).filter(([, v]) => v !== undefined));
  return parseAdaptConfig({
    ...c,
    ...defined({ shots: o.shots, method: o.method, kind: o.kind, rank: o.rank, seed: o.seed, home: o.home }),
    grpo: { ...(c.grpo ?? {}), ...defined({ iterations: o.iterations }) },
  });
}

/** Picks the shots, trains a fresh adapter on them (SFT, GRPO or both) and returns it (not saved). */
export async function adaptToApp(opts: AdaptToAppOptions): Promise<AdaptToAppResult> {
  const config = adaptConfigOf(opts);
  const target = resolveAdaptApp(opts.app);
  if (opts.demonstrations && !usesSft(config.method)) throw new AdaptOptionsError(`Recorded demonstrations are used by SFT; method ${config.method} has none (use sft or sft+grpo)`);
  const shots = pickShots(target, config.shots, config.seed);
  const base = opts.base.model;
  const adapter = ScorerAdapter.init(specOf(config), base.net.dims, createRng(`adapt/${config.seed}/init/${target.app}`));
  const emit = (e: AdaptProgress) => opts.onProgress?.(e);
  const rec = opts.record;
  let demonstrations: DemonstrationSummary | null = null;
  let sft: SftEpochMetrics[] = [];
  let grpo: IterationMetrics[] = [];
  let stoppedBy: AdaptToAppResult['stoppedBy'] = 'done';

  await withDevices(opts.devices, config.grpo.devices, async (devices) => {
    if (usesSft(config.method)) {
      // demonstrations: recorded episodes, or the oracle on the shots; only the app's screens train the adapter
      const source: DemonstrationSource = opts.demonstrations ? 'episodes' : 'oracle';
      const set = opts.demonstrations
        ? storedDemonstrations(opts.demonstrations.db, opts.demonstrations.episodes, base, target.package)
        : await collectDemonstrations(devices[0]!, shots, base, {
          beforeInstance: (done, total) => emit({ phase: 'demonstrating', done, total }),
          ...(opts.signal ? { signal: opts.signal } : {}), ...(rec ? { recorder: () => new StoreRecorder(rec.db, rec.runId) } : {}),
        });
      const mine = [{ app: target.app, package: target.package, adapter }];
      const appDemos = set.demos.filter((d) => selectAdapter(d.package, d.taskApps, mine, config.home) === target.package);
      demonstrations = { source, episodes: set.episodes, steps: set.demos.length, appSteps: appDemos.length, skipped: set.skipped };
      emit({ phase: 'demonstrations', source, episodes: set.episodes, steps: set.demos.length, appSteps: appDemos.length });
      if (opts.signal?.aborted) return;
      if (appDemos.length === 0) throw new AdaptOptionsError(`No demonstrated step would be scored by the ${target.app} adapter (home ${config.home}); nothing to train it on`);
      sft = behaviourClone({ kind: 'adapter', base: base.net, adapter }, appDemos, config.sft, {
        onEpoch: (m) => emit({ phase: 'sft', epoch: m.epoch, epochs: config.sft.epochs, metrics: m }), ...(opts.signal ? { signal: opts.signal } : {}),
      });
    }
    if (usesGrpo(config.method) && !opts.signal?.aborted) {
      const grpoOn = (workers: RolloutWorkerPool | null) => trainAdapterGrpo({
        base, adapter, target, instances: shots, config: config.grpo, seed: config.seed, home: config.home, devices,
        ...(workers ? { workers } : {}), ...(opts.signal ? { signal: opts.signal } : {}),
        ...(rec ? { recording: { into: new RolloutRecording(rec.db, rec.runId, config.recording, config.grpo.iterations), screenshots: config.recording.screenshots } } : {}),
        onIteration: (m) => {
          if (rec) putIterationMetrics(rec.db, rec.runId, m.iteration, m.metrics);
          emit({ phase: 'grpo', iteration: m.iteration, iterations: config.grpo.iterations, metrics: m.metrics });
        },
      });
      const r = opts.workers !== undefined ? await grpoOn(opts.workers)
        : await withAdaptRolloutWorkers(config, { devicesGiven: Boolean(opts.devices?.length), recording: rec !== undefined, ...(opts.log ? { log: opts.log } : {}) }, grpoOn);
      grpo = r.history;
    }
  });
  if (opts.signal?.aborted) stoppedBy = 'aborted';
  return {
    adapter: {
      app: target.app, package: target.package, baseSha256: opts.base.sha256, adapter,
      meta: {
        method: config.method, home: config.home, config, shots: shots.map((i) => ({ templateId: i.template.id, seed: i.seed })),
        sftEpochs: sft.length, grpoIterations: grpo.length, stoppedBy, createdAt: new Date().toISOString(),
      },
    },
    target, config, shots: shots.map((i) => ({ templateId: i.template.id, seed: i.seed })), demonstrations, sft, grpo, stoppedBy,
  };
}

/** What runAdaptation is asked to do: plain data. */
/** The plain-data settings of an adaptation (adaptToApp's, without its live objects). */
export type AdaptSettings = Pick<AdaptToAppOptions, 'shots' | 'method' | 'kind' | 'rank' | 'iterations' | 'seed' | 'home' | 'config'>;

export interface RunAdaptationOptions extends AdaptSettings {
  /** The base checkpoint (policy.json). */
  policy: string;
  app: string;
  /** SFT from these recorded episodes (needs `db` in the dependencies). */
  fromEpisodes?: number[];
  /** Evaluation seeds (default 30, 7, 1234). */
  evalSeeds?: number[];
  /** Only these test templates of the app (default all). */
  evalTemplates?: string[];
  /** Write the adapter here; else under adaptersRoot (<root>/<base sha prefix>/<app>.json); neither: not saved. */
  out?: string;
  adaptersRoot?: string;
}

/** What runAdaptation runs with: live objects, kept apart from the plain options. */
export interface AdaptationDeps {
  db?: ReadableDB;
  /** Record every episode of the adaptation (and its GRPO metrics) into this run. */
  record?: AdaptationRecord;
  devices?: readonly Device[];
  /** Messages about a Ray cluster the GRPO rollouts run on (config.ray). */
  log?: (message: string) => void;
  signal?: AbortSignal;
  onProgress?: (e: AdaptProgress) => void;
}

export interface AdaptationReport {
  app: string;
  package: string;
  regime: AdaptRegime;
  base: { path: string; sha256: string };
  adapter: { kind: AdapterKind; rank: number; parameters: number; path: string | null };
  config: AdaptConfig;
  shots: { templateId: string; seed: number }[];
  demonstrations: DemonstrationSummary | null;
  training: { sft: SftEpochMetrics[]; grpo: IterationMetrics[] };
  evalSeeds: number[];
  /** null when stopped before that phase finished. */
  before: AppEvalResult | null;
  after: AppEvalResult | null;
  delta: number | null;
  perTemplate: TemplateDelta[];
  stoppedBy: 'done' | 'aborted';
  seconds: { before: number; adapt: number; after: number };
}

/**
 * before → adapt → after: the base evaluated greedily on the app's test instances, an adapter
 * trained on the app's shots, the adapted policy evaluated on the same instances, the adapter saved.
 * Aborting stops at the next episode or iteration: a phase cut short reports null, and an adapter
 * whose training started is still saved (its meta says it was stopped).
 */
export async function runAdaptation(o: RunAdaptationOptions, deps: AdaptationDeps = {}): Promise<AdaptationReport> {
  const config = adaptConfigOf(o);
  const target = resolveAdaptApp(o.app);
  if (o.fromEpisodes?.length && !deps.db) throw new AdaptOptionsError('fromEpisodes needs a trajectory store (deps.db)');
  const base = loadBasePolicy(o.policy);
  // Fail before the first evaluation, not after it: the shots and the recorded episodes are checked up front.
  pickShots(target, config.shots, config.seed);
  if (o.fromEpisodes?.length) demonstrationEpisodes(deps.db!, o.fromEpisodes, target.package);
  const seeds = o.evalSeeds ?? [...SPLIT_DATA.seeds.test];
  const instances = appTestInstances(target, seeds, o.evalTemplates);
  if (instances.length === 0) throw new AdaptOptionsError(`No test instances of ${target.app} among templates ${JSON.stringify(o.evalTemplates)}`);
  const signal = deps.signal;
  const emit = (e: AdaptProgress) => deps.onProgress?.(e);
  const seconds = { before: 0, adapt: 0, after: 0 };
  const aborted = () => signal?.aborted === true;

  // GRPO's rollout workers before anything runs: a Ray cluster that cannot give its servers fails here, not after the
  // first evaluation. A method without GRPO starts none.
  const rollouts = { devicesGiven: Boolean(deps.devices?.length), recording: deps.record !== undefined, ...(deps.log ? { log: deps.log } : {}) };
  const withWorkers = <T>(fn: (workers: RolloutWorkerPool | null) => Promise<T>) => (usesGrpo(config.method) ? withAdaptRolloutWorkers(config, rollouts, fn) : fn(null));
  return withWorkers((workers) => withDevices(deps.devices, config.grpo.devices, async (devices) => {
    const evaluate = async (phase: 'before' | 'after', adapter: AppAdapter | null) => {
      const t0 = performance.now();
      const rec = deps.record;
      const episodes = await evaluateInstances(instances, evalPolicyFactory(base.model, adapter, config.home), target.regime, {
        devices, ...(signal ? { signal } : {}), onEpisode: (e) => emit({ phase, ...e }),
        ...(rec ? { record: { recorder: () => new StoreRecorder(rec.db, rec.runId), screenshots: config.recording.screenshots } } : {}),
      });
      seconds[phase] = (performance.now() - t0) / 1000;
      return aborted() ? null : appEvalResult(episodes, seeds);
    };
    const before = await evaluate('before', null);
    let trained: AdaptToAppResult | null = null;
    if (!aborted()) {
      const t0 = performance.now();
      trained = await adaptToApp({
        base, app: target.app, config, devices, workers, ...(deps.record ? { record: deps.record } : {}),
        ...(o.fromEpisodes?.length ? { demonstrations: { db: deps.db!, episodes: o.fromEpisodes } } : {}),
        ...(signal ? { signal } : {}), onProgress: emit,
      });
      seconds.adapt = (performance.now() - t0) / 1000;
    }
    let path: string | null = null;
    if (trained && (trained.sft.length || trained.grpo.length)) {
      path = o.out ?? (o.adaptersRoot ? adapterPath(o.adaptersRoot, base.sha256, target.app) : null);
      if (path) {
        saveAdapter(path, trained.adapter);
        emit({ phase: 'saved', path });
      }
    }
    const after = trained && !aborted() ? await evaluate('after', trained.adapter) : null;
    const compared = before && after ? compareEvals(before, after) : null;
    const a = (trained?.adapter.adapter) ?? null;
    return {
      app: target.app, package: target.package, regime: target.regime,
      base: { path: base.path ?? o.policy, sha256: base.sha256 },
      adapter: { kind: config.kind, rank: config.kind === 'lowrank' ? config.rank : 0, parameters: a?.params.length ?? 0, path },
      config, shots: trained?.shots ?? [], demonstrations: trained?.demonstrations ?? null,
      training: { sft: trained?.sft ?? [], grpo: trained?.grpo ?? [] },
      evalSeeds: seeds, before, after, delta: compared?.delta ?? null, perTemplate: compared?.perTemplate ?? [],
      stoppedBy: aborted() ? 'aborted' : 'done', seconds,
    };
  }));
}
