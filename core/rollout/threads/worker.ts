import { parentPort, workerData } from 'node:worker_threads';
import { openSimDroid } from '../../devices/provider.js';
import { getTemplate } from '../../tasks/registry.js';
import { instantiate } from '../../tasks/instance.js';
import { runEpisode } from '../../episode/runner.js';
import { BuiltinPolicy, type PolicyModel } from '../../policy/builtin.js';
import { ScorerAdapter } from '../../policy/adapter.js';
import { AdaptedPolicy, type AdapterChoice } from '../../policy/adapter-policy.js';
import { createEncoder, type TextEncoder } from '../../policy/encoder.js';
import { ScorerNetwork } from '../../policy/network.js';
import { createPolicy, PolicyModels } from '../../policy/registry.js';
import { LoadingTransformerPolicy } from '../../policy/transformer/policy.js';
import { errorOf, type EpisodeRecorder } from '../../episode/record.js';
import { assertNever } from '../../util/errors.js';
import { SubgoalTracker } from '../../rewards/episode.js';
import type { FromWorker, RolloutJob, ToWorker, WorkerConfig, WorkerModel } from './protocol.js';

/** A rollout worker: one SimDroid, one episode at a time, every record posted to the pool as it happens. */
const config = workerData as WorkerConfig;
const port = parentPort!;
const device = openSimDroid({ serial: config.serial, seed: config.deviceSeed });
const post = (m: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

/** Checkpoint and ONNX models by path, each loading once for all this worker's jobs. */
const models = new PolicyModels();

/** The model of 'builtin-sample' jobs (the last 'model' message), and the base of 'builtin-adapted-sample' ones. */
let sampleModel: PolicyModel | null = null;
/** The adapters of 'builtin-adapted-sample' jobs (the last 'model' message's; null when it had none). */
let sampleAdapters: AdapterChoice[] | null = null;
// The encoder only depends on its config; keeping it keeps its memo of embedded texts warm across iterations.
const encoders = new Map<string, TextEncoder>();

class NoWorkerModelError extends Error {
  override name = 'NoWorkerModelError';
  constructor(readonly key: string, what = "no 'model' message") {
    super(`Job ${JSON.stringify(key)} samples the builtin policy, but ${what} reached this worker`);
  }
}

function setModel(m: WorkerModel): void {
  const id = JSON.stringify(m.encoder);
  let encoder = encoders.get(id);
  if (!encoder) encoders.set(id, (encoder = createEncoder(m.encoder)));
  sampleModel = { encoder, net: new ScorerNetwork(m.dims, m.params) };
  sampleAdapters = m.adapters?.map((a) => ({ app: a.app, package: a.package, adapter: new ScorerAdapter(a.spec, m.dims, a.params) })) ?? null;
}

/** A bad checkpoint throws inside run(): the job is reported as failed. */
const policyFor = (job: RolloutJob) => createPolicy(job.policy, {
  task: job, models,
  sampleModel: () => {
    if (!sampleModel) throw new NoWorkerModelError(job.key);
    return sampleModel;
  },
  sampleAdapters: () => {
    if (!sampleAdapters) throw new NoWorkerModelError(job.key, "no 'model' message with adapters");
    return sampleAdapters;
  },
});

async function run(job: RolloutJob, forward: WorkerConfig['forward']): Promise<void> {
  try {
    const instance = instantiate(getTemplate(job.templateId), job.seed);
    const policy = policyFor(job);
    // Ground truth is read from this worker's SimDroid after each step, as the in-process loop does;
    // it travels with the records, so without them there is nobody to take it.
    const tracker = job.subgoals && forward === 'records' ? new SubgoalTracker(device, instance) : null;
    // Training records travel with the result; their feature matrices are moved, not copied.
    const ended = (m: Extract<FromWorker, { type: 'end' }>) => {
      const records = job.policy.name === 'builtin-sample' && policy instanceof BuiltinPolicy ? policy.takeRecords()
        : job.policy.name === 'builtin-adapted-sample' && policy instanceof AdaptedPolicy ? policy.takeRecords() : null;
      const transformer = job.policy.name === 'transformer-sample' && policy instanceof LoadingTransformerPolicy ? policy.takeRecords() : null;
      // Each step's scored candidates are ~90% of a result's bytes and a trainer reads only the
      // records; with nobody recording, they stay here.
      const result = forward === 'results' ? { ...m.result, steps: m.result.steps.map(({ candidates: _, ...step }) => step) } : m.result;
      if (records) post({ ...m, result, records }, records.map((r) => r.features.buffer as ArrayBuffer));
      else if (transformer) post({ ...m, result, records: transformer });
      else post(m);
    };
    // Without a recorder on the other side, only results cross the thread boundary: serialising
    // every observation would cost more than the step itself.
    const recorder: EpisodeRecorder = forward === 'records'
      ? {
          begin: (start) => post({ type: 'begin', key: job.key, start, ...(tracker ? { subgoalNames: tracker.progress().names } : {}) }),
          // The runner calls onStepDone (the tracker) before it records the step, so the count is there.
          step: (step, before) => post({ type: 'step', key: job.key, step, before, ...(tracker ? { subgoalsDone: tracker.progress().done[step.index]! } : {}) }),
          end: (result, final) => ended({ type: 'end', key: job.key, result, final }),
        }
      : { begin: () => {}, step: () => {}, end: (result) => ended({ type: 'end', key: job.key, result, final: { xml: '' } }) };
    const maxSteps = job.maxSteps ?? config.maxSteps;
    await runEpisode({
      device, instance, policy, recorder, screenshots: config.screenshots,
      ...(maxSteps !== undefined ? { maxSteps } : {}),
      ...(config.onMalformed ? { onMalformed: config.onMalformed } : {}),
      ...(tracker ? { onStepDone: tracker.onStepDone } : {}),
    });
  } catch (e) {
    // Bad job input (unknown template, bad seed) or a bug: the pool records it and goes on.
    post({ type: 'failed', key: job.key, error: errorOf(e) });
  }
}

port.on('message', (m: ToWorker) => {
  switch (m.type) {
    case 'model':
      setModel(m.model);
      return;
    case 'job':
      void run(m.job, m.forward ?? config.forward).then(() => post({ type: 'ready' }));
      return;
    default:
      assertNever(m, 'worker message');
  }
});
post({ type: 'ready' });
