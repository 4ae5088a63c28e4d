import { z } from 'zod';
import { openAdbDevice, openSimDroids } from '../devices/provider.js';
import { runEpisode } from '../episode/runner.js';
import { runPool, type RolloutJob } from '../rollout/threads/run-pool.js';
import { runOnDevices } from '../rollout/device-pool.js';
import { RayEnvServers } from '../rollout/ray.js';
import { DEFAULT_RAY_ENVS, RayAddress } from '../rollout/ray-settings.js';
import type { EpisodeResult, StepError } from '../episode/record.js';
import { getTemplate, TASKS } from '../tasks/registry.js';
import { parsePart, parseSplit, splitInstances } from '../tasks/splits.js';
import { createRun, finishRun, getRun, interruptRun, resumeRun, RunKindError, StoreRecorder, type RunId, type RunKind } from '../store/index.js';
import { formatIssues } from '../util/zod-issues.js';
import { runStopped } from './env-errors.js';
import { handleStopSignals, signalExitCode } from './stop-signals.js';
import { SubgoalTracker } from '../rewards/episode.js';
import { SubgoalStoreRecorder } from './subgoal-recorder.js';
import { intArg, parseFlags, UsageError } from './args.js';
import { pct, progressBar, table } from './format.js';
import { embeddedDevice, type Io } from './main.js';
import { refuseStrayVlmFlags, storableVlmSettings, SUITE_POLICIES, vlmFlagOptions, VlmFlagValues, vlmSettingsForResume, vlmSettingsFromFlags, VLM_USAGE } from './policies.js';
import { createPolicy, taskOf } from '../policy/registry.js';
import type { VlmPolicySettings } from '../policy/vlm/settings.js';
import { openDb } from './open-db.js';
import { targetFlags, TargetValues, targetOf } from './devices.js';

const USAGE = 'awb suite run --split unseen-instance|unseen-template|unseen-app|all --part train|test|adapt --policy oracle|random|vlm\n'
  + `              ${VLM_USAGE}\n`
  + '              [--parallel N | --device SERIAL... | --ray ADDRESS [--envs N] [--envs-per-actor K]] [--adb-port P] [--console-token PATH]\n'
  + '              [--limit N] [--screenshots none|half|full] [--subgoals] [--name NAME] [--db PATH] [--json]\n'
  + 'awb suite run --resume RUN_ID [--parallel N | --ray ADDRESS [--envs N]] [--db PATH] [--json]';

/** The suite's policies: the worker-capable ones, and a VLM endpoint (in process: its steps are mostly waiting). */
const SuiteRunPolicy = z.enum([...SUITE_POLICIES, 'vlm']);

const Flags = z.object({
  split: z.string().optional(),
  part: z.string().optional(),
  policy: SuiteRunPolicy.optional(),
  parallel: intArg('--parallel').pipe(z.number().min(1).max(64)).default(1),
  limit: intArg('--limit').pipe(z.number().min(1)).optional(),
  screenshots: z.enum(['none', 'half', 'full']).default('half'),
  subgoals: z.boolean().optional(),
  name: z.string().min(1).optional(),
  db: z.string().optional(),
  resume: intArg('--resume').pipe(z.number().min(1)).optional(),
  json: z.boolean().optional(),
  device: z.array(z.string().min(1)).optional(),
  ray: RayAddress.optional(),
  envs: intArg('--envs').pipe(z.number().min(1).max(64)).optional(),
  'envs-per-actor': intArg('--envs-per-actor').pipe(z.number().min(1).max(64)).optional(),
  ...TargetValues,
  ...VlmFlagValues,
});

/** What a suite run records as its config, read back by --resume. */
const SuiteRunConfig = z.object({
  split: z.string(), part: z.string(), policy: SuiteRunPolicy, limit: z.number().optional(), screenshots: z.enum(['none', 'half', 'full']).default('half'),
  subgoals: z.boolean().optional(), vlm: z.record(z.string(), z.unknown()).optional(),
});

/** How each other kind of run is continued, for the refusal of `suite run --resume` of one. */
const RESUME_HINTS: Record<RunKind, string> = {
  suite: '',
  single: 'a single episode (awb run) is not resumed: run it again',
  training: 'continue a training run from its checkpoint folder: awb train grpo --resume DIR',
  import: 'an import has nothing to continue',
  env: 'an outside agent\'s run is continued by the agent (docs/env-protocol.md)',
};

interface Tally {
  episodes: number;
  successes: number;
  errors: number;
}

/**
 * Successes over the episodes the agent finished: an environment error (the device or adb failed) is not the agent's
 * failure, so it is reported apart (errors) and left out of the rate; the resume runs it again.
 */
const rate = (t: Tally) => (t.episodes - t.errors > 0 ? t.successes / (t.episodes - t.errors) : 0);

/**
 * `awb suite run`: every instance of a split part on the embedded SimDroid (or N of them in worker
 * threads), each episode recorded in the trajectory store as it happens. A run that was killed is
 * picked up with --resume: finished episodes are skipped, interrupted ones run again. `--subgoals`
 * also records SimDroid's ground-truth subgoal progress per step, in process or from the parallel
 * workers' SimDroids, written with each episode's end; it refuses --device (the multi-device loop
 * does not capture it, and a real device has no ground truth). `--ray ADDRESS` runs the episodes on --envs SimDroids
 * of a Ray cluster instead (docs/ray.md), recorded here as they happen; an episode whose actor died is recorded as an
 * environment error and run once more on another, and the summary counts the re-runs.
 */
export async function suiteCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'run') throw new UsageError(USAGE);
  const { values } = parseFlags(rest, {
    split: { type: 'string' }, part: { type: 'string' }, policy: { type: 'string' }, parallel: { type: 'string' },
    limit: { type: 'string' }, screenshots: { type: 'string' }, name: { type: 'string' }, db: { type: 'string' },
    resume: { type: 'string' }, json: { type: 'boolean' }, device: { type: 'string', multiple: true }, subgoals: { type: 'boolean' }, ...targetFlags, ...vlmFlagOptions,
    ray: { type: 'string' }, envs: { type: 'string' }, 'envs-per-actor': { type: 'string' },
  }, Flags);
  if ((values.envs !== undefined || values['envs-per-actor'] !== undefined) && values.ray === undefined) throw new UsageError('--envs and --envs-per-actor size a Ray cluster\'s share: give --ray ADDRESS too');
  if (values.ray !== undefined && (values.device || values.parallel > 1)) throw new UsageError('--ray runs the episodes on the cluster\'s SimDroids (--envs N): drop --device and --parallel');
  refuseStrayVlmFlags(values, values.policy);
  if (values.ray !== undefined && values.policy === 'vlm') throw new UsageError('--ray runs the worker policies (oracle, random) on the cluster; a VLM\'s steps are mostly waiting on its endpoint: use --parallel N here');
  if (values.policy === 'vlm' && values.parallel > 1 && values.subgoals) throw new UsageError('--subgoals with --policy vlm runs on one embedded SimDroid; drop --parallel or --subgoals');
  const vlmFlags = values.policy === 'vlm' ? vlmSettingsFromFlags(values) : null;
  if (values.device && values.parallel > 1) throw new UsageError('--parallel is for SimDroid devices in worker threads; with --device, every listed device runs episodes in parallel');
  if (values.device && values.device.length > 1 && values.grpc) throw new UsageError('--grpc names one device\'s endpoint; with several --device, each finds its own (docs/devices.md)');
  if (values.subgoals) refuseSubgoalsHere(values, '--subgoals');
  const ray = values.ray === undefined ? null : { address: values.ray, envs: values.envs ?? DEFAULT_RAY_ENVS, envsPerActor: values['envs-per-actor'] ?? 1 };
  // The cluster first: one that cannot give us its servers is an error before any run exists.
  const cluster = ray ? await RayEnvServers.start({ ...ray, log: (m) => io.err(`awb: ${m}`) }) : null;
  if (cluster && !values.json) io.err(`awb: ${cluster.servers.length} environment server(s) on ${cluster.nodes} node(s) of the Ray cluster ${ray!.address} (${cluster.startupS.toFixed(1)} s)`);
  try {
    return await suiteRun(values, vlmFlags, io, ray, cluster);
  } finally {
    await cluster?.close();
  }
}

/**
 * Subgoal progress is SimDroid's ground truth, read on the embedded SimDroid or on each worker's; the devices behind
 * adb run in a loop that does not capture it, and a real device has none.
 */
function refuseSubgoalsHere(values: z.infer<typeof Flags>, what: string): void {
  if (values.device) throw new UsageError(`${what} reads SimDroid's ground truth on the embedded SimDroid or the --parallel workers; adb devices (--device) do not report subgoal progress (a real device has none); drop --device`);
}

/** The run itself, on this machine or on the cluster's servers (started by the caller). */
async function suiteRun(
  values: z.infer<typeof Flags>, vlmFlags: VlmPolicySettings | null, io: Io, ray: { address: string; envs: number } | null, cluster: RayEnvServers | null,
): Promise<number> {
  const { db, path } = openDb(values.db);
  try {
    // What to run: a fresh split part, or what is left of an earlier run.
    let runId!: RunId; // set by resumeRun, or by createRun once every check has passed
    let config: z.infer<typeof SuiteRunConfig>;
    let vlm: VlmPolicySettings | null = vlmFlags;
    let skip = new Set<string>();
    if (values.resume !== undefined) {
      if (values.split || values.part || values.policy || values.subgoals || vlmFlags) throw new UsageError('--resume continues a run as it was configured; drop --split, --part, --policy and --subgoals');
      // Every check before the run is touched: a run this command cannot continue is left exactly as it was.
      const previous = getRun(db, values.resume as RunId);
      if (previous.kind !== 'suite') throw new RunKindError(previous.id, previous.kind, 'suite', RESUME_HINTS[previous.kind]);
      const parsed = SuiteRunConfig.safeParse(previous.config);
      if (!parsed.success) throw new UsageError(`Run ${previous.id}'s recorded config cannot be continued: ${formatIssues(parsed.error.issues)}`);
      config = parsed.data;
      if (isSubgoalRun(config)) refuseSubgoalsHere(values, `Run ${values.resume} records subgoal progress (--subgoals), so it`);
      if (config.policy === 'vlm') {
        if (config.vlm === undefined) throw new UsageError(`Run ${previous.id} used --policy vlm but recorded no VLM settings`);
        if (config.subgoals && values.parallel > 1) throw new UsageError('--subgoals with --policy vlm runs on one embedded SimDroid; drop --parallel');
        if (ray) throw new UsageError(`Run ${previous.id} uses --policy vlm, which runs here: drop --ray`);
        vlm = vlmSettingsForResume(config.vlm);
      }
      parseSplit(config.split);
      parsePart(config.part);
      const state = resumeRun(db, previous.id);
      runId = state.run.id;
      skip = new Set([...state.finished].map((i) => `${i.templateId}#${i.seed}`));
      if (!values.json) {
        const errored = state.errored.size ? `, ${state.errored.size} ended in an environment error` : '';
        io.out(`Resuming run ${runId} "${state.run.name}": ${state.finished.size} finished${errored}, ${state.interrupted.length} interrupted episode(s); all but the finished will run again.`);
      }
    } else {
      config = {
        split: values.split ?? 'unseen-instance', part: values.part ?? 'test', policy: values.policy ?? 'oracle', screenshots: values.screenshots,
        ...(values.limit ? { limit: values.limit } : {}),
        ...(values.subgoals ? { subgoals: true } : {}),
        ...(vlm ? { vlm: storableVlmSettings(vlm, values.endpoint) } : {}),
      };
    }
    const split = parseSplit(config.split);
    const part = parsePart(config.part);
    let instances = splitInstances(TASKS, split, part);
    if (config.limit) instances = instances.slice(0, config.limit);
    const todo = instances.filter((i) => !skip.has(`${i.template.id}#${i.seed}`));
    const policyOf = (i: (typeof todo)[number]) => createPolicy(config.policy === 'vlm' ? { name: 'vlm', settings: vlm! } : { name: config.policy }, { task: taskOf(i) });
    if (values.resume === undefined) {
      // Checked before the run exists (a bad --split or --part, a VLM key that is not set): a refusal leaves no run behind.
      if (todo.length) policyOf(todo[0]!);
      runId = createRun(db, {
        kind: 'suite', name: values.name ?? `${config.split}/${config.part} ${config.policy}`,
        config: { ...config, parallel: values.parallel, ...(ray ? { ray: { address: ray.address, envs: ray.envs } } : {}) },
      }).id;
    }

    const started = Date.now();
    const total: Tally = { episodes: 0, successes: 0, errors: 0 };
    const byApp = new Map<string, Tally>();
    const byDifficulty = new Map<string, Tally>();
    const failures: Array<{ key: string; error: StepError }> = [];
    const count = (templateId: string, result: EpisodeResult | null) => {
      const t = getTemplate(templateId);
      for (const [m, k] of [[byApp, t.apps[0]], [byDifficulty, t.difficulty]] as const) {
        const tally = m.get(k) ?? { episodes: 0, successes: 0, errors: 0 };
        tally.episodes++;
        if (result?.success) tally.successes++;
        if (!result || result.status === 'error') tally.errors++;
        m.set(k, tally);
      }
      total.episodes++;
      if (result?.success) total.successes++;
      if (!result || result.status === 'error') total.errors++;
    };
    // Episodes of this part that no device ran (every device lost): the run is then interrupted, not finished.
    let notRun = 0;
    // Episodes run again after their Ray actor died (each also left an environment error in the store).
    let reruns = 0;
    const progress = progressBar(todo.length);
    const resume = `awb suite run --resume ${runId}${values.db ? ` --db ${path}` : ''}`;
    // SIGINT or SIGTERM: stop now; the episodes in flight are kept as interrupted (their steps so far) and run again by
    // --resume, which also skips every finished one.
    const removeSignals = handleStopSignals({
      first: (signal) => {
        progress.done();
        const cut = interruptRun(db, runId);
        io.err(`awb: ${signal}: interrupted${cut.length ? ` (${cut.length} episode${cut.length > 1 ? 's' : ''} cut short, kept as interrupted)` : ''}; continue with: ${resume}`);
        process.exit(signalExitCode(signal));
      },
    });
    try {
      if (values.device) {
        // Devices behind adb: one in-process loop per device; a device that drops is reconnected.
        const devices = values.device.map((serial) => openAdbDevice(serial, targetOf(values)));
        const { unrun } = await runOnDevices({
          devices, instances: todo, policy: policyOf, recorder: () => new StoreRecorder(db, runId), screenshots: config.screenshots,
          onEpisode: (instance, result, device) => {
            count(instance.template.id, result);
            if (result.status === 'error' && result.error) failures.push({ key: `${instance.template.id}#${instance.seed} on ${device.serial}`, error: result.error });
            progress.tick(`${instance.template.id}#${instance.seed}`);
          },
          onDeviceLost: (device, e) => io.err(`awb: ${device.serial} is gone (${e.message}); the other devices go on`),
        });
        devices.forEach((d) => d.close());
        notRun = unrun.length;
        if (unrun.length) io.err(`awb: ${unrun.length} episodes were not run: no device left; continue with --resume ${runId}`);
      } else if (values.parallel === 1 && !ray) {
        const device = embeddedDevice();
        try {
          for (const instance of todo) {
            const tracker = config.subgoals ? new SubgoalTracker(device, instance) : null;
            const recorder = tracker ? new SubgoalStoreRecorder(db, runId, { kind: 'tracker', tracker }) : new StoreRecorder(db, runId);
            const result = await runEpisode({
              device, instance, policy: policyOf(instance), recorder, screenshots: config.screenshots,
              ...(tracker ? { onStepDone: tracker.onStepDone } : {}),
            });
            count(instance.template.id, result);
            progress.tick(`${instance.template.id}#${instance.seed}`);
          }
        } finally {
          device.close();
        }
      } else if (config.policy === 'vlm') {
        // A VLM's steps are mostly waiting on the endpoint: N embedded SimDroids in this thread, all
        // policies sharing the endpoint's concurrency limit.
        const devices = openSimDroids(values.parallel, 'simdroid-embedded-');
        try {
          await runOnDevices({
            devices, instances: todo, policy: policyOf, recorder: () => new StoreRecorder(db, runId), screenshots: config.screenshots,
            onEpisode: (instance, result) => {
              count(instance.template.id, result);
              if (result.status === 'error' && result.error) failures.push({ key: `${instance.template.id}#${instance.seed}`, error: result.error });
              progress.tick(`${instance.template.id}#${instance.seed}`);
            },
          });
        } finally {
          for (const d of devices) d.close();
        }
      } else {
        const workerPolicy = config.policy;
        const jobs: RolloutJob[] = todo.map((i) => ({
          key: `${i.template.id}#${i.seed}`, templateId: i.template.id, seed: i.seed, policy: { name: workerPolicy }, ...(config.subgoals ? { subgoals: true } : {}),
        }));
        const byKey = new Map(todo.map((i) => [`${i.template.id}#${i.seed}`, i]));
        const summary = await runPool({
          devices: cluster ? cluster.remote.capacity : values.parallel, jobs, screenshots: config.screenshots,
          recorder: (job) => (config.subgoals ? new SubgoalStoreRecorder(db, runId, { kind: 'worker', instance: byKey.get(job.key)! }) : new StoreRecorder(db, runId)),
          onEpisode: (job, outcome) => {
            count(job.templateId, outcome.ok ? outcome.result : null);
            if (!outcome.ok) failures.push({ key: job.key, error: outcome.error });
            progress.tick(job.key);
          },
          ...(cluster ? {
            remote: cluster.remote,
            onRerun: (job: RolloutJob, error: StepError) => io.err(`awb: ${job.key}: ${error.message}; recorded as an environment error, running it again`),
          } : {}),
        });
        reruns = summary.reruns;
      }
    } catch (e) {
      // A fault of the environment (a full disk, a store another process keeps locked) or of the code: the run is
      // interrupted where it stands.
      throw runStopped(e, runId, resume, path, () => interruptRun(db, runId));
    } finally {
      removeSignals();
      progress.done();
    }
    finishRun(db, runId, notRun ? 'interrupted' : 'finished');

    const wallSeconds = (Date.now() - started) / 1000;
    const summarise = (m: Map<string, Tally>) => Object.fromEntries([...m].sort().map(([k, t]) => [k, { ...t, successRate: rate(t) }]));
    const run = getRun(db, runId);
    const summary = {
      run: runId, name: run.name, db: path, split, part, policy: config.policy, parallel: values.parallel, ...(config.subgoals ? { subgoals: true } : {}),
      ...(ray && cluster ? { ray: { address: ray.address, envs: ray.envs, servers: cluster.servers.length, nodes: cluster.nodes }, reruns } : {}),
      episodes: total.episodes, successes: total.successes, errors: total.errors, successRate: rate(total),
      skipped: instances.length - todo.length, ...(notRun ? { notRun, status: 'interrupted' } : {}), byApp: summarise(byApp), byDifficulty: summarise(byDifficulty), wallSeconds,
      ...(failures.length ? { failures } : {}),
    };
    // A run with episodes left unrun is not done: exit non-zero so scripts do not take it for a result.
    const code = notRun ? 1 : 0;
    if (values.json) {
      io.out(JSON.stringify(summary));
      return code;
    }
    const agentRan = total.episodes - total.errors;
    const where = ray ? `, ${ray.envs} SimDroids on Ray ${ray.address}` : values.parallel > 1 ? `, ${values.parallel} devices` : '';
    io.out(`Run ${runId} (${split}/${part}, ${config.policy}${where}): ${total.successes}/${agentRan} succeeded (${pct(rate(total))})${total.errors ? `, ${total.errors} environment errors (not counted; --resume runs them again)` : ''}${reruns ? `, ${reruns} re-run after their environment server died` : ''}${summary.skipped ? `, ${summary.skipped} skipped (already done)` : ''}${notRun ? `, ${notRun} not run (interrupted; --resume ${runId})` : ''} in ${wallSeconds.toFixed(1)} s`);
    io.out(table([['APP', 'EPISODES', 'SUCCESS'], ...[...byApp].sort().map(([k, t]) => [k, String(t.episodes), pct(rate(t))])]));
    io.out(table([['DIFFICULTY', 'EPISODES', 'SUCCESS'], ...[...byDifficulty].sort().map(([k, t]) => [k, String(t.episodes), pct(rate(t))])]));
    for (const f of failures) io.out(`  ${f.key}: ${f.error.name}: ${f.error.message}`);
    io.out(`Recorded in ${path}; see \`awb episodes list --run ${runId}${values.db ? ` --db ${path}` : ''}\`.`);
    return code;
  } finally {
    db.close();
  }
}

function isSubgoalRun(config: unknown): boolean {
  return typeof config === 'object' && config !== null && (config as { subgoals?: unknown }).subgoals === true;
}
