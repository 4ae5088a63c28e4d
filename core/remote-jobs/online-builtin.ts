import { readFileSync } from 'node:fs';
import type { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { openSimDroids } from '../devices/provider.js';
import { createModel, type PolicyModel } from '../policy/builtin.js';
import { deserializeCheckpoint, serializeCheckpoint } from '../policy/checkpoint.js';
import { runRollouts, type RolloutJob } from '../rollout/rollouts.js';
import type { RemoteJob } from '../store/remote-jobs.js';
import { createRng } from '../util/rng.js';
import { RemoteJobStateError } from './errors.js';
import { trainerSeed, type BuiltinOnlinePolicy, type OnlineDriver, type OnlineGrpoOptions, type OnlineRollouts, type OnlineRun } from './online-types.js';
import { parseJobConfig } from './protocol.js';
import type { RemoteJobs } from './remote.js';
import { grpoBundleSteps } from './steps.js';

/**
 * The builtin policy in the online loop: G rollouts per instance with the current model on
 * in-process SimDroids, the same steps.jsonl `awb jobs submit --kind builtin-grpo` sends
 * (grpoBundleSteps with the loop's trajectory-level group advantages), init/policy.json = the
 * current checkpoint's text; after the job, its policy.json is downloaded, loaded and becomes the current
 * checkpoint. The last job's checkpoint is registered under <data folder>/policies/.
 */
export class BuiltinOnlineDriver implements OnlineDriver {
  readonly jobKind = 'builtin-grpo';
  private model: PolicyModel;
  private text: string;
  private label: string;
  private readonly devices: SimDroid[];
  private readonly config: Record<string, unknown>;

  constructor(
    private readonly o: OnlineGrpoOptions, private readonly p: BuiltinOnlinePolicy,
    private readonly jobs: RemoteJobs, private readonly run: OnlineRun,
  ) {
    // Validated before any rollout: a bad override is refused with the field named (JobConfigError).
    this.config = parseJobConfig('builtin-grpo', o.config ?? {});
    if (p.init) {
      this.text = readFileSync(p.init, 'utf8');
      this.model = deserializeCheckpoint(this.text, p.init).model;
      this.label = p.init;
    } else {
      this.model = createModel(createRng(`online-grpo/${o.seed}/init`));
      this.text = serializeCheckpoint(this.model, { init: 'fresh', seed: o.seed });
      this.label = `fresh (seed ${o.seed})`;
    }
    this.devices = openSimDroids(o.devices ?? 1, 'simdroid-online-');
  }

  get current(): string {
    return this.label;
  }

  async rollout(iteration: number): Promise<OnlineRollouts> {
    const o = this.o;
    // Every rollout samples with its own RNG, named by the run seed, iteration, group and rollout.
    const jobs: RolloutJob[] = o.instances.flatMap((instance, g) => Array.from({ length: o.groupSize }, (_, r) => ({
      group: g, rollout: r, instance, rngKey: `online-grpo/${o.seed}/${iteration}/${g}/${r}`,
    })));
    const t0 = performance.now();
    const recording = this.run.recording;
    const rollouts = await runRollouts(this.devices, jobs, {
      model: this.model, temperature: o.temperature, maxSteps: o.maxSteps,
      ...(recording ? { recorder: (job: RolloutJob) => recording.recorder(iteration, job), screenshots: this.run.screenshots } : {}),
    });
    const rolloutS = (performance.now() - t0) / 1000;
    const groups = o.instances.map((_, g) => rollouts.filter((r) => r.job.group === g));
    const initPolicy = this.text;
    return {
      groups: groups.map((g) => g.map((r) => ({ group: r.job.group, rollout: r.job.rollout, result: r.result, reward: r.reward }))),
      steps: groups.map((g) => g.map((r) => r.records.length)),
      rolloutS,
      batch: (a) => {
        const steps = grpoBundleSteps(groups, a);
        const batchEpisodes = groups.reduce((n, g, gi) => n + (a.groups[gi]!.skipped ? 0 : g.filter((r) => r.records.length > 0).length), 0);
        return { bundle: steps.length ? { kind: 'builtin-grpo', steps, initPolicy } : null, batchEpisodes, batchSteps: steps.length, extra: {} };
      },
    };
  }

  jobConfig(iteration: number): Record<string, unknown> {
    return { ...this.config, seed: this.o.config?.seed ?? trainerSeed(this.o.seed, iteration) };
  }

  async switchTo(_iteration: number, job: RemoteJob, signal?: AbortSignal): Promise<string> {
    const row = await this.jobs.download(String(job.id), { names: ['policy.json'], ...(signal ? { signal } : {}) });
    const art = row.artifacts.find((a) => a.name === 'policy.json');
    if (!art) throw new RemoteJobStateError(String(job.id), 'policy.json was not downloaded');
    const text = readFileSync(art.path, 'utf8');
    this.model = deserializeCheckpoint(text, art.path).model;
    this.text = text;
    this.label = art.path;
    return this.label;
  }

  finish(last: RemoteJob | null): string {
    if (!last) return this.label;
    const row = this.jobs.registerPolicy(String(last.id));
    this.label = row.policyPath!;
    return this.label;
  }

  close(): void {
    for (const d of this.devices) d.close();
  }
}
