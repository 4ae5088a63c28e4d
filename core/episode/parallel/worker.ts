import { parentPort, workerData } from 'node:worker_threads';
import { SimDroid } from '../../../emulators/simdroid/simdroid.js';
import { getTemplate } from '../../tasks/registry.js';
import { instantiate } from '../../tasks/instance.js';
import { createRng } from '../../util/rng.js';
import { runEpisode } from '../runner.js';
import { OraclePolicy } from '../policies/oracle.js';
import { RandomPolicy } from '../policies/random.js';
import { ReplayPolicy } from '../policies/replay.js';
import { BuiltinPolicy, type PolicyModel } from '../../policy/builtin.js';
import { loadCheckpoint } from '../../policy/checkpoint.js';
import type { Policy } from '../policy.js';
import { errorOf, type EpisodeRecorder } from '../record.js';
import { assertNever } from '../../util/errors.js';
import type { FromWorker, PolicySpec, RolloutJob, ToWorker, WorkerConfig } from './protocol.js';

/** A rollout worker: one SimDroid, one episode at a time, every record posted to the pool as it happens. */
const config = workerData as WorkerConfig;
const port = parentPort!;
const device = new SimDroid({ serial: config.serial, seed: config.deviceSeed });
const post = (m: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

const models = new Map<string, PolicyModel>();

function policyFor(spec: PolicySpec, job: RolloutJob): Policy {
  switch (spec.name) {
    case 'oracle':
      return new OraclePolicy();
    case 'random':
      // Keyed by the task instance, so the same job gives the same episode on any worker.
      return new RandomPolicy(createRng(`random/${job.templateId}/${job.seed}`));
    case 'replay':
      return new ReplayPolicy(spec.actions);
    case 'builtin': {
      // A bad checkpoint throws here, inside run(): the job is reported as failed.
      let model = models.get(spec.checkpoint);
      if (!model) {
        model = loadCheckpoint(spec.checkpoint).model;
        models.set(spec.checkpoint, model);
      }
      return new BuiltinPolicy(model);
    }
    default:
      return assertNever(spec, 'policy spec');
  }
}

async function run(job: RolloutJob): Promise<void> {
  // Without a recorder on the other side, only results cross the thread boundary: serialising
  // every observation would cost more than the step itself.
  const recorder: EpisodeRecorder = config.forward === 'records'
    ? {
        begin: (start) => post({ type: 'begin', key: job.key, start }),
        step: (step, before) => post({ type: 'step', key: job.key, step, before }),
        end: (result, final) => post({ type: 'end', key: job.key, result, final }),
      }
    : { begin: () => {}, step: () => {}, end: (result) => post({ type: 'end', key: job.key, result, final: { xml: '' } }) };
  try {
    const instance = instantiate(getTemplate(job.templateId), job.seed);
    await runEpisode({
      device, instance, policy: policyFor(job.policy, job), recorder, screenshots: config.screenshots,
      ...(config.maxSteps !== undefined ? { maxSteps: config.maxSteps } : {}),
      ...(config.onMalformed ? { onMalformed: config.onMalformed } : {}),
    });
  } catch (e) {
    // Bad job input (unknown template, bad seed) or a bug: the pool records it and goes on.
    post({ type: 'failed', key: job.key, error: errorOf(e) });
  }
}

port.on('message', (m: ToWorker) => {
  if (m.type === 'exit') {
    device.close();
    port.close();
    return;
  }
  void run(m.job).then(() => post({ type: 'ready' }));
});
post({ type: 'ready' });
