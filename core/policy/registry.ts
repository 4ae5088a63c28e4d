import { z } from 'zod';
import { ManualPolicy } from '../episode/policies/manual.js';
import { OraclePolicy } from '../episode/policies/oracle.js';
import { RandomPolicy } from '../episode/policies/random.js';
import { ReplayPolicy } from '../episode/policies/replay.js';
import type { Policy } from '../episode/policy.js';
import type { TaskInstance } from '../tasks/instance.js';
import { assertNever } from '../util/errors.js';
import { createRng } from '../util/rng.js';
import { BuiltinPolicy, TemperatureError, type PolicyModel } from './builtin.js';
import { loadCheckpoint } from './checkpoint.js';
import { OnnxPolicy, OnnxPolicyModel, pendingOnnxPolicy } from './onnx/index.js';
import { VlmPolicy } from './vlm/policy.js';
import { VlmPolicySettings } from './vlm/settings.js';
import { VlmFormatId } from './vlm/format.js';
import { CoordinateSpace } from './vlm/geometry.js';
import { VlmReplyReplay } from './vlm/replay.js';
import { AdaptedPolicy, HOME_MODES, type AdapterChoice, type HomeMode } from './adapter-policy.js';
import { TransformerModel } from './transformer/model.js';
import { LoadingTransformerPolicy } from './transformer/policy.js';
import { DuplicateAdapterError, loadAdapter, loadBasePolicy, type AppAdapter } from './adapter-file.js';

/**
 * The policies by name, with their options: what `awb run|suite|eval --policy`, a rollout worker's
 * job and a workbench session choose from. A spec is plain data, so it crosses to a worker thread;
 * createPolicy makes a fresh Policy for one episode from it.
 *
 * `awb run --policy human` is not here: a person at the terminal is wired to the CLI's own I/O.
 */
export type PolicySpec =
  /** The task's scripted solution. */
  | { name: 'oracle' }
  /** Random actions, the stream keyed by the task instance so an episode reproduces anywhere. */
  | { name: 'random' }
  /** A person in the step-through view overrides every step. */
  | { name: 'manual' }
  /** Recorded actions re-executed, then `then` takes over (or the episode ends). */
  | { name: 'replay'; actions: unknown[]; then?: PolicySpec }
  /** The builtin policy, greedy, from a checkpoint file; `policyName` names it in records (default 'builtin'). */
  | { name: 'builtin'; checkpoint: string; policyName?: string }
  /**
   * The builtin policy, greedy, from a checkpoint file with per-app adapter files (made by `awb adapt`
   * or the Adaptation view for that checkpoint): each adapter scores its app's screens, and on the home
   * screen the adapter of the task's app (`home` 'task-app', the default; core/policy/adapter-policy.ts).
   */
  | { name: 'builtin-adapted'; checkpoint: string; adapters: string[]; home?: HomeMode; policyName?: string }
  /** The builtin policy, greedy, scored in ONNX Runtime from an exported model file (core/policy/onnx); default name 'onnx'. */
  | { name: 'onnx'; model: string; policyName?: string }
  /** The transformer policy, greedy, from its model folder (core/policy/transformer, run in ONNX Runtime); default name 'transformer'. */
  | { name: 'transformer'; model: string; policyName?: string }
  /**
   * The transformer policy sampling from a model folder, its RNG named by rngKey, recording each step for a trainer
   * (transformer GRPO and adaptation rollouts in worker threads or on rollout servers). A worker keeps the last two
   * such folders loaded, by path: a trainer writes each new model to a new folder.
   */
  | { name: 'transformer-sample'; model: string; temperature: number; rngKey: string; policyName: string }
  /**
   * The builtin policy sampling with parameters its caller holds (PolicyInputs.sampleModel: GRPO
   * rollouts), its RNG named by rngKey, recording each step for a trainer.
   */
  | { name: 'builtin-sample'; temperature: number; rngKey: string; policyName: string }
  /**
   * The builtin policy with per-app adapters sampling with the base and adapters its caller holds
   * (PolicyInputs.sampleModel and sampleAdapters: adaptation's GRPO rollouts), as 'builtin-sample' does.
   */
  | { name: 'builtin-adapted-sample'; temperature: number; rngKey: string; policyName: string; home: HomeMode }
  /** A VLM served by an OpenAI-compatible endpoint (core/policy/vlm). */
  | { name: 'vlm'; settings: VlmPolicySettings }
  /**
   * A VLM's recorded replies (reply k answers step k) parsed by the format's parser on the live screen
   * (core/policy/vlm/replay.ts); `image`: the screenshot size the model saw, default each step's.
   */
  | {
    name: 'vlm-replay'; replies: string[]; format: VlmFormatId; coordinates?: CoordinateSpace;
    minPixels?: number; maxPixels?: number; image?: { width: number; height: number }; policyName?: string;
  };

export type PolicyName = PolicySpec['name'];

/** The option schemas, one per kind: a spec read from outside (a file, a message) is checked with this. */
export const PolicySpecSchema: z.ZodType<PolicySpec> = z.lazy(() => z.discriminatedUnion('name', [
  z.strictObject({ name: z.literal('oracle') }),
  z.strictObject({ name: z.literal('random') }),
  z.strictObject({ name: z.literal('manual') }),
  z.strictObject({ name: z.literal('replay'), actions: z.array(z.unknown()), then: PolicySpecSchema.optional() }),
  z.strictObject({ name: z.literal('builtin'), checkpoint: z.string().min(1), policyName: z.string().min(1).optional() }),
  z.strictObject({
    name: z.literal('builtin-adapted'), checkpoint: z.string().min(1), adapters: z.array(z.string().min(1)).min(1),
    home: z.enum(HOME_MODES).optional(), policyName: z.string().min(1).optional(),
  }),
  z.strictObject({ name: z.literal('onnx'), model: z.string().min(1), policyName: z.string().min(1).optional() }),
  z.strictObject({ name: z.literal('transformer'), model: z.string().min(1), policyName: z.string().min(1).optional() }),
  z.strictObject({ name: z.literal('transformer-sample'), model: z.string().min(1), temperature: z.number().positive(), rngKey: z.string(), policyName: z.string().min(1) }),
  z.strictObject({ name: z.literal('builtin-sample'), temperature: z.number().positive(), rngKey: z.string(), policyName: z.string().min(1) }),
  z.strictObject({
    name: z.literal('builtin-adapted-sample'), temperature: z.number().positive(), rngKey: z.string(), policyName: z.string().min(1), home: z.enum(HOME_MODES),
  }),
  z.strictObject({ name: z.literal('vlm'), settings: VlmPolicySettings }),
  z.strictObject({
    name: z.literal('vlm-replay'), replies: z.array(z.string()).min(1), format: VlmFormatId, coordinates: CoordinateSpace.optional(),
    minPixels: z.int().min(1).optional(), maxPixels: z.int().min(1).optional(),
    image: z.strictObject({ width: z.int().min(1), height: z.int().min(1) }).optional(), policyName: z.string().min(1).optional(),
  }),
]));

/** The kinds in a sentence each (the workbench lists its session policies with these). */
export const POLICY_DESCRIPTIONS: Record<PolicyName, string> = {
  oracle: "The task's scripted solution, one action per step from the live screen",
  random: 'Uniformly random actions over the screen (a baseline)',
  manual: 'You choose every action: click an element or pick one, then Step',
  replay: 'A recorded episode re-executed, then another policy or the end',
  builtin: 'The builtin policy from a checkpoint file, greedy',
  'builtin-adapted': 'The builtin policy from a checkpoint with per-app adapters (each scores its app\'s screens), greedy',
  onnx: 'The builtin policy exported to ONNX, scored in ONNX Runtime, greedy',
  transformer: 'The transformer policy (reads the goal and the screen\'s elements) from its model folder, greedy',
  'transformer-sample': 'The transformer policy sampling with temperature from its model folder (rollouts for training)',
  'builtin-sample': 'The builtin policy sampling with temperature (rollouts for training)',
  'builtin-adapted-sample': 'The builtin policy with per-app adapters sampling with temperature (rollouts for adaptation)',
  vlm: 'A VLM served by an OpenAI-compatible endpoint',
  'vlm-replay': "A VLM's recorded replies re-executed through its format's parser on the live screen",
};

/** A 'builtin-sample' spec, but the caller gave no model to sample with. */
export class MissingSampleModelError extends Error {
  override name = 'MissingSampleModelError';
  constructor(readonly spec: PolicySpec) {
    super(`Policy ${JSON.stringify(spec)} samples with its caller's model${spec.name === 'builtin-adapted-sample' ? ' and adapters' : ''}, and none was given`);
  }
}

/**
 * Checkpoint and ONNX models by path, each loaded once: a rollout worker keeps one for all its jobs;
 * a command that loaded (and hashed) a file itself hands the model over with keep().
 */
export class PolicyModels {
  private readonly checkpoints = new Map<string, PolicyModel>();
  private readonly adapted = new Map<string, { model: PolicyModel; adapters: AppAdapter[] }>();
  private readonly onnxLoading = new Map<string, Promise<OnnxPolicyModel>>();
  private readonly onnxLoaded = new Map<string, OnnxPolicyModel>();
  private readonly transformerLoading = new Map<string, Promise<TransformerModel>>();
  /** 'transformer-sample' models, oldest first: a trainer's models succeed each other, so only the last two stay loaded. */
  private readonly sampling: Array<[string, Promise<TransformerModel>]> = [];

  keep(path: string, model: PolicyModel | OnnxPolicyModel | TransformerModel): this {
    if (model instanceof TransformerModel) {
      this.transformerLoading.set(path, Promise.resolve(model));
    } else if (model instanceof OnnxPolicyModel) {
      this.onnxLoaded.set(path, model);
      this.onnxLoading.set(path, Promise.resolve(model));
    } else this.checkpoints.set(path, model);
    return this;
  }

  /** The checkpoint's model; a bad file throws CheckpointError (and is tried again next time). */
  checkpoint(path: string): PolicyModel {
    let model = this.checkpoints.get(path);
    if (!model) {
      model = loadCheckpoint(path).model;
      this.checkpoints.set(path, model);
    }
    return model;
  }

  /**
   * A base checkpoint with its adapters, each checked against the base's bytes (an adapter of another
   * base throws AdapterBaseMismatchError; two for one package, DuplicateAdapterError).
   */
  adaptedModel(checkpoint: string, adapterFiles: readonly string[]): { model: PolicyModel; adapters: AppAdapter[] } {
    const key = JSON.stringify([checkpoint, ...adapterFiles]);
    let hit = this.adapted.get(key);
    if (!hit) {
      const base = loadBasePolicy(checkpoint);
      const adapters = adapterFiles.map((f) => loadAdapter(f, { baseSha256: base.sha256, model: base.model }));
      const byPackage = new Map<string, string>();
      adapterFiles.forEach((f, i) => {
        const prior = byPackage.get(adapters[i]!.package);
        if (prior) throw new DuplicateAdapterError(adapters[i]!.package, [prior, f]);
        byPackage.set(adapters[i]!.package, f);
      });
      hit = { model: base.model, adapters };
      this.adapted.set(key, hit);
    }
    return hit;
  }

  /** The ONNX model, loading (ONNX Runtime sessions are created asynchronously). */
  onnx(path: string): Promise<OnnxPolicyModel> {
    let model = this.onnxLoading.get(path);
    if (!model) {
      model = OnnxPolicyModel.load(path);
      model.then((m) => this.onnxLoaded.set(path, m), () => {});
      this.onnxLoading.set(path, model);
    }
    return model;
  }

  /** The transformer policy's model folder, loading (its ONNX Runtime session is created asynchronously). */
  transformer(path: string): Promise<TransformerModel> {
    let model = this.transformerLoading.get(path);
    if (!model) {
      model = TransformerModel.load(path);
      model.catch(() => this.transformerLoading.delete(path));
      this.transformerLoading.set(path, model);
    }
    return model;
  }

  /**
   * A trainer's current model folder, loading; the one before it stays (a job of the last batch may still hold it),
   * older ones are released. One episode at a time runs in a rollout worker, so none of them is in use.
   */
  transformerSample(path: string): Promise<TransformerModel> {
    const hit = this.sampling.find(([p]) => p === path);
    if (hit) return hit[1];
    const model = TransformerModel.load(path);
    model.catch(() => {
      const i = this.sampling.findIndex(([, m]) => m === model);
      if (i >= 0) this.sampling.splice(i, 1);
    });
    this.sampling.push([path, model]);
    while (this.sampling.length > 2) void this.sampling.shift()![1].then((m) => m.close(), () => {});
    return model;
  }

  /** The ONNX model if it has finished loading. */
  onnxIfLoaded(path: string): OnnxPolicyModel | undefined {
    return this.onnxLoaded.get(path);
  }
}

/** What a policy is made from besides its spec. */
export interface PolicyInputs {
  /** The episode's task instance: the random policy's stream is keyed by it. */
  task: { templateId: string; seed: number };
  /** Where 'builtin' and 'onnx' find their model files; default: loaded afresh. */
  models?: PolicyModels;
  /** The parameters 'builtin-sample' samples with, and 'builtin-adapted-sample' as its base (it may throw: a worker not sent any yet). */
  sampleModel?: () => PolicyModel;
  /** The adapters 'builtin-adapted-sample' samples with over sampleModel's base (it may throw, as sampleModel). */
  sampleAdapters?: () => readonly AdapterChoice[];
}

export const taskOf = (instance: TaskInstance): PolicyInputs['task'] => ({ templateId: instance.template.id, seed: instance.seed });

/** The builtin policy sampling for a trainer: one construction, so an episode is the same in a worker thread or in process. */
export function samplingPolicy(model: PolicyModel, opts: { temperature: number; rngKey: string; policyName: string }): BuiltinPolicy {
  return new BuiltinPolicy(model, { mode: 'sample', temperature: opts.temperature, rng: createRng(opts.rngKey) }, { record: true, name: opts.policyName });
}

/** The adapted policy sampling for adaptation's trainer: one construction, in a worker thread or in process, as samplingPolicy. */
export function adaptedSamplingPolicy(
  base: PolicyModel, adapters: readonly AdapterChoice[], opts: { temperature: number; rngKey: string; policyName: string; home: HomeMode },
): AdaptedPolicy {
  return new AdaptedPolicy(base, adapters, { mode: 'sample', temperature: opts.temperature, rng: createRng(opts.rngKey) }, { record: true, name: opts.policyName, home: opts.home });
}

/** The transformer policy sampling for a trainer: one construction, in a worker or in process (its model may still be loading). */
export function transformerSamplingPolicy(
  model: TransformerModel | Promise<TransformerModel>, opts: { temperature: number; rngKey: string; policyName: string },
): LoadingTransformerPolicy {
  if (!(Number.isFinite(opts.temperature) && opts.temperature > 0)) throw new TemperatureError(opts.temperature);
  return new LoadingTransformerPolicy(Promise.resolve(model), { mode: 'sample', temperature: opts.temperature, rng: createRng(opts.rngKey) }, { record: true, name: opts.policyName });
}

/**
 * A fresh policy for one episode. A checkpoint loads here (a bad file throws CheckpointError); an
 * ONNX model not yet loaded is waited for by the first act(), and a file that fails to load fails
 * that act (loadPolicyModels first, to have it throw before the episode).
 */
export function createPolicy(spec: PolicySpec, inputs: PolicyInputs): Policy {
  const models = inputs.models ?? new PolicyModels();
  const named = (policyName: string | undefined) => (policyName ? { name: policyName } : {});
  switch (spec.name) {
    case 'oracle':
      return new OraclePolicy();
    case 'random':
      return new RandomPolicy(createRng(`random/${inputs.task.templateId}/${inputs.task.seed}`));
    case 'manual':
      return new ManualPolicy();
    case 'replay':
      return new ReplayPolicy(spec.actions, spec.then ? createPolicy(spec.then, { ...inputs, models }) : undefined);
    case 'builtin':
      return new BuiltinPolicy(models.checkpoint(spec.checkpoint), { mode: 'greedy' }, named(spec.policyName));
    case 'builtin-adapted': {
      const { model, adapters } = models.adaptedModel(spec.checkpoint, spec.adapters);
      return new AdaptedPolicy(model, adapters, { mode: 'greedy' }, { home: spec.home ?? 'task-app', ...named(spec.policyName) });
    }
    case 'onnx': {
      const loaded = models.onnxIfLoaded(spec.model);
      if (loaded) return new OnnxPolicy(loaded, { mode: 'greedy' }, named(spec.policyName));
      return pendingOnnxPolicy(models.onnx(spec.model), { mode: 'greedy' }, spec.policyName);
    }
    case 'transformer':
      return new LoadingTransformerPolicy(models.transformer(spec.model), { mode: 'greedy' }, { name: spec.policyName ?? 'transformer' });
    case 'transformer-sample':
      return transformerSamplingPolicy(models.transformerSample(spec.model), spec);
    case 'builtin-sample': {
      if (!inputs.sampleModel) throw new MissingSampleModelError(spec);
      return samplingPolicy(inputs.sampleModel(), spec);
    }
    case 'builtin-adapted-sample': {
      if (!inputs.sampleModel || !inputs.sampleAdapters) throw new MissingSampleModelError(spec);
      return adaptedSamplingPolicy(inputs.sampleModel(), inputs.sampleAdapters(), spec);
    }
    case 'vlm':
      return new VlmPolicy(spec.settings);
    case 'vlm-replay':
      return new VlmReplyReplay(spec.replies, { ...spec, name: spec.policyName });
    default:
      return assertNever(spec, 'policy spec');
  }
}

/** Loads the model files a spec names into `models`, so a bad file throws here rather than in an episode. */
export async function loadPolicyModels(spec: PolicySpec, models: PolicyModels): Promise<void> {
  switch (spec.name) {
    case 'builtin':
      models.checkpoint(spec.checkpoint);
      return;
    case 'builtin-adapted':
      models.adaptedModel(spec.checkpoint, spec.adapters);
      return;
    case 'onnx':
      await models.onnx(spec.model);
      return;
    case 'transformer':
      await models.transformer(spec.model);
      return;
    case 'transformer-sample':
      await models.transformerSample(spec.model);
      return;
    case 'replay':
      if (spec.then) await loadPolicyModels(spec.then, models);
      return;
    case 'oracle':
    case 'random':
    case 'manual':
    case 'builtin-sample':
    case 'builtin-adapted-sample':
    case 'vlm':
    case 'vlm-replay':
      return;
    default:
      return assertNever(spec, 'policy spec');
  }
}
