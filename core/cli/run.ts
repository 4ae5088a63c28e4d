import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { runEpisode } from '../episode/runner.js';
import type { Policy } from '../episode/policy.js';
import { HumanPolicy } from '../episode/policies/human.js';
import type { EpisodeResult } from '../episode/record.js';
import { instanceWithParams, instantiate } from '../tasks/instance.js';
import { getTemplate } from '../tasks/registry.js';
import { createRun, finishRun, getSubgoalProgress, interruptRun, loadTrajectory, StoreRecorder, type EpisodeId, type SubgoalProgress } from '../store/index.js';
import { atPath, runStopped } from './env-errors.js';
import { handleStopSignals, signalExitCode } from './stop-signals.js';
import { SubgoalTracker } from '../rewards/episode.js';
import { requireSimDroid, SubgoalStoreRecorder } from './subgoal-recorder.js';
import { intArg, parseFlags, UsageError } from './args.js';
import { openDevice, type Io } from './main.js';
import { targetFlags, TargetValues, targetOf } from './devices.js';
import { isOnnxPolicyArg, loadOnnxPolicyArg, refuseStrayVlmFlags, RunPolicyArg, storableVlmSettings, vlmFlagOptions, VlmFlagValues, vlmSettingsFromFlags } from './policies.js';
import type { OnnxPolicyModel } from '../policy/onnx/index.js';
import { createPolicy, PolicyModels, taskOf } from '../policy/registry.js';
import { openDb } from './open-db.js';
import { screenText } from './screen-text.js';
import { sizeArg } from './vlm.js';
import { vlmReplaySpec } from './vlm-replay.js';

const Flags = z.object({
  task: z.string({ error: '--task is required' }),
  seed: intArg('--seed').default(0),
  policy: RunPolicyArg.default('oracle'),
  from: intArg('--from').pipe(z.number().min(1)).optional(),
  'replay-steps': intArg('--replay-steps').optional(),
  json: z.boolean().optional(),
  'max-steps': intArg('--max-steps').pipe(z.number().min(1).max(500)).optional(),
  screenshots: z.string().optional(),
  db: z.string().optional(),
  'no-record': z.boolean().optional(),
  subgoals: z.boolean().optional(),
  device: z.string().optional(),
  'on-malformed': z.enum(['end', 'continue']).optional(),
  replies: z.string().min(1).optional(),
  image: sizeArg().optional(),
  params: z.string().min(1, '--params needs a JSON object or a file holding one').optional(),
  'no-init': z.boolean().optional(),
  ...TargetValues,
  ...VlmFlagValues,
});

/**
 * `awb run --task T --seed S --policy P`: one episode on the embedded SimDroid, recorded in the
 * trajectory store. `--policy human` reads one JSON action per line from the terminal, showing the
 * screen's elements; `--policy replay --from EPISODE` re-executes a recorded episode (or its first
 * --replay-steps steps, then hands over to the oracle); `--policy vlm-replay --format F (--replies FILE | --from EPISODE)`
 * re-executes a VLM's recorded replies through the format's parser (reply k answers step k); `--policy onnx:FILE` is an exported builtin policy scored
 * in ONNX Runtime (greedy; the run config records the file's path and sha256). `--subgoals` also records SimDroid's
 * ground-truth subgoal progress per step (for the reward framework's accuracy checks, docs/rewards.md),
 * with the episode's end; on the embedded SimDroid or one served over adb (`--device`), not on
 * another device. `--on-malformed continue` records an output that is not an action and goes on
 * (default: end the episode, but for --policy human and vlm-replay, whose trace goes on past its format errors).
 */
export async function runCommand(argv: string[], io: Io): Promise<number> {
  const { values } = parseFlags(argv, {
    task: { type: 'string' }, seed: { type: 'string' }, policy: { type: 'string' }, from: { type: 'string' },
    'replay-steps': { type: 'string' }, json: { type: 'boolean' }, 'max-steps': { type: 'string' }, screenshots: { type: 'string' },
    db: { type: 'string' }, 'no-record': { type: 'boolean' }, subgoals: { type: 'boolean' }, device: { type: 'string' }, 'on-malformed': { type: 'string' },
    replies: { type: 'string' }, image: { type: 'string' }, params: { type: 'string' }, 'no-init': { type: 'boolean' }, ...targetFlags, ...vlmFlagOptions,
  }, Flags);
  refuseStrayVlmFlags(values, values.policy);
  // Validated before the device is opened: a bad endpoint setting is a usage error.
  const vlm = values.policy === 'vlm' ? vlmSettingsFromFlags(values) : null;
  if (values.subgoals && values['no-record']) throw new UsageError('--subgoals stores the progress with the recorded episode; drop --no-record');
  if (values['no-init'] && !values.device) throw new UsageError('--no-init is for a device someone else set up (--device SERIAL); the embedded SimDroid starts at boot');
  const template = getTemplate(values.task);
  const instance = values.params === undefined ? instantiate(template, values.seed) : instanceWithParams(template, paramsArg(values.params), values.seed);
  const initialize = !values['no-init'];
  const record = !values['no-record'];
  if ((values.replies !== undefined || values.image !== undefined) && values.policy !== 'vlm-replay') throw new UsageError('--replies and --image are for --policy vlm-replay');
  const store = record || values.policy === 'replay' || (values.policy === 'vlm-replay' && values.from !== undefined) ? openDb(values.db) : null;
  const target = openDevice(values.device, targetOf(values));
  const device = target.device;
  let onnx: OnnxPolicyModel | null = null;
  let removeSignals = () => {};
  try {
    if (values.subgoals && values.device) await requireSimDroid(device);
    let policy: Policy;
    let human: HumanPolicy | null = null;
    const task = taskOf(instance);
    if (values['replay-steps'] !== undefined && values.policy !== 'replay') throw new UsageError('--replay-steps is for --policy replay');
    if (values.from !== undefined && values.policy !== 'replay' && values.policy !== 'vlm-replay') throw new UsageError('--from is for --policy replay and vlm-replay');
    let replay: ReturnType<typeof vlmReplaySpec> | null = null;
    switch (values.policy) {
      case 'human': {
        const readLine = io.readLine;
        if (!readLine) throw new UsageError('--policy human needs a terminal to read actions from');
        // Each time the episode waits: show the screen, read one action (a blank line or EOF ends).
        policy = human = new HumanPolicy((obs) => {
          io.out(screenText(obs));
          io.out('action JSON (e.g. {"action_type":"click","index":3}), empty line to stop:');
          void readLine().then((line) => {
            if (line === null || line.trim() === '') human!.end();
            else human!.supply(line.trim());
          });
        });
        break;
      }
      case 'replay': {
        if (values.from === undefined) throw new UsageError('--policy replay needs --from EPISODE_ID (see `awb episodes list`)');
        const t = loadTrajectory(store!.db, values.from as EpisodeId);
        if (t.instance.templateId !== instance.template.id || t.instance.seed !== instance.seed) {
          throw new UsageError(`Episode ${values.from} is ${t.instance.templateId} seed ${t.instance.seed}, not ${instance.template.id} seed ${instance.seed}`);
        }
        const actions = t.steps.map((s) => s.raw);
        const k = values['replay-steps'];
        policy = createPolicy(k === undefined ? { name: 'replay', actions } : { name: 'replay', actions: actions.slice(0, k), then: { name: 'oracle' } }, { task });
        break;
      }
      case 'vlm':
        policy = createPolicy({ name: 'vlm', settings: vlm! }, { task });
        break;
      case 'vlm-replay': {
        const spec = vlmReplaySpec(values, () => store!.db, instance);
        replay = spec;
        policy = createPolicy(spec, { task });
        break;
      }
      default:
        if (isOnnxPolicyArg(values.policy)) {
          onnx = await loadOnnxPolicyArg(values.policy);
          policy = createPolicy({ name: 'onnx', model: onnx.path }, { task, models: new PolicyModels().keep(onnx.path, onnx) });
        } else policy = createPolicy({ name: values.policy }, { task });
    }

    const shotDir = values.screenshots;
    // Before the run exists: a --screenshots that is a file is refused with nothing recorded.
    if (shotDir) mkdirSync(shotDir, { recursive: true });
    const runId = record ? createRun(store!.db, { kind: 'single', name: `${instance.template.id} #${instance.seed} ${values.policy}`, config: { task: instance.template.id, seed: instance.seed, policy: values.policy, ...(values.params !== undefined ? { params: instance.params } : {}), ...(initialize ? {} : { initialize: false }), ...(vlm ? { vlm: storableVlmSettings(vlm, values.endpoint) } : {}), ...(onnx ? { onnx: { path: onnx.path, sha256: onnx.sha256 } } : {}), ...(replay ? { vlmReplay: { ...replay, replies: replay.replies.length, source: values.replies ?? `episode ${values.from}` } } : {}) } }).id : null;
    const tracker = values.subgoals ? new SubgoalTracker(device, instance) : null;
    // With --subgoals (which needs a recording) the progress is written in the transaction that ends the episode.
    const recorder = runId === null ? undefined : tracker ? new SubgoalStoreRecorder(store!.db, runId, { kind: 'tracker', tracker }) : new StoreRecorder(store!.db, runId);
    if (!values.json) io.out(`${instance.template.id} seed ${instance.seed}: ${instance.instruction}`);
    // SIGINT or SIGTERM: stop now, the episode kept as interrupted with the steps it took.
    removeSignals = handleStopSignals({
      first: (signal) => {
        if (runId !== null) interruptRun(store!.db, runId);
        io.err(`awb: ${signal}: interrupted${recorder?.episodeId != null ? `; episode ${recorder.episodeId} is kept as interrupted` : ''}`);
        process.exit(signalExitCode(signal));
      },
    });

    let result: EpisodeResult;
    try {
      result = await runEpisode({
        device, instance, policy, initialize, screenshots: 'half', onMalformed: values['on-malformed'] ?? (human || replay ? 'continue' : 'end'),
        ...(recorder ? { recorder } : {}),
        ...(values['max-steps'] ? { maxSteps: values['max-steps'] } : {}),
        ...(tracker ? { onStepDone: tracker.onStepDone } : {}),
        onStep: (step, obs) => {
          // The screen each action was taken on (what the recorder keeps too).
          if (shotDir && obs.screenshot) {
            const file = join(shotDir, `step-${String(step.index).padStart(2, '0')}.png`);
            atPath(file, () => writeFileSync(file, obs.screenshot!));
          }
          if (!values.json) io.out(`  ${String(step.index + 1).padStart(2)}. ${step.description ?? JSON.stringify(step.raw)}${step.error ? `  [${step.error.name}: ${step.error.message}]` : ''}`);
        },
      });
    } catch (e) {
      if (runId === null) throw e;
      // The store or the screenshots folder failed mid-episode: the episode and its run end interrupted, steps kept.
      throw runStopped(e, runId, null, store!.path, () => interruptRun(store!.db, runId));
    }
    const episodeId = recorder?.episodeId ?? null;
    const subgoals: SubgoalProgress | null = tracker && episodeId !== null ? getSubgoalProgress(store!.db, episodeId) : null;
    if (runId !== null) finishRun(store!.db, runId, 'finished');
    if (values.json) io.out(JSON.stringify({ ...episodeSummary(result), episode: episodeId, db: store?.path ?? null, ...(subgoals ? { subgoals } : {}) }));
    else {
      io.out(`${result.status.toUpperCase()} after ${result.steps.length} steps (ended by ${result.terminatedBy}${result.error ? `: ${result.error.message}` : ''})`);
      if (subgoals) io.out(`Subgoals reached: ${subgoals.done.at(-1) ?? 0}/${subgoals.names.length}${subgoals.names.length ? ` (${subgoals.names.join(' → ')})` : ''}`);
      if (episodeId !== null) io.out(`Recorded as episode ${episodeId}; see \`awb episodes show ${episodeId}${values.db ? ` --db ${store!.path}` : ''}\`.`);
    }
    return 0;
  } finally {
    removeSignals();
    target.close();
    store?.db.close();
    await onnx?.close();
  }
}

/** `--params` is not a JSON object, or names a file that cannot be read or holds none. */
export class TaskParamsArgError extends Error {
  override name = 'TaskParamsArgError';
  constructor(readonly value: string, why: string) {
    super(`--params ${JSON.stringify(value.length > 120 ? `${value.slice(0, 120)}…` : value)}: ${why}`);
  }
}

/** `--params '{…}'` (inline JSON, told apart by its brace) or `--params FILE`: the object, unchecked (the template's schema checks it). */
export function paramsArg(value: string): unknown {
  const inline = value.trimStart().startsWith('{');
  let text = value;
  if (!inline) {
    try {
      text = readFileSync(value, 'utf8');
    } catch (e) {
      throw new TaskParamsArgError(value, `not inline JSON (no leading "{") and not a readable file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new TaskParamsArgError(value, `${inline ? '' : 'the file '}is not JSON (${(e as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new TaskParamsArgError(value, `${inline ? '' : 'the file '}holds ${Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : typeof parsed}, not a JSON object`);
  }
  return parsed;
}

function episodeSummary(r: EpisodeResult) {
  return {
    template: r.templateId, seed: r.seed, policy: r.policy, instruction: r.instruction, success: r.success, status: r.status,
    steps: r.steps.length, terminatedBy: r.terminatedBy, answer: r.outcome.answer ?? null, error: r.error ?? null, timings: r.timings,
    actions: r.steps.map((s) => ({
      action: s.action ?? s.raw, description: s.description ?? null, error: s.error ?? null,
      ...(s.timings.requestMs !== undefined ? { requestMs: Math.round(s.timings.requestMs) } : {}), ...(s.usage ? { usage: s.usage } : {}),
    })),
  };
}
