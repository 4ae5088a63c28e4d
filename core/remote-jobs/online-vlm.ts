import type { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { openSimDroids } from '../devices/provider.js';
import { runEpisode } from '../episode/runner.js';
import { resolveApiKey } from '../policy/vlm/client.js';
import { QWEN_MAX_PIXELS, QWEN_MIN_PIXELS } from '../policy/vlm/geometry.js';
import { VlmPolicy } from '../policy/vlm/policy.js';
import type { VlmServer } from '../policy/vlm/server.js';
import type { VlmPolicySettings } from '../policy/vlm/settings.js';
import type { GrpoAdvantages } from '../rl/grpo-loop.js';
import { scheduleOnDevices } from '../rollout/in-process.js';
import { outcomeReward } from '../rollout/rollouts.js';
import type { EpisodeId } from '../store/ids.js';
import { StoreRecorder } from '../store/recorder.js';
import type { RemoteJob } from '../store/remote-jobs.js';
import { createRng } from '../util/rng.js';
import { RemoteJobStateError } from './errors.js';
import { OnlineGrpoConfigError } from './online-errors.js';
import { assertNever } from '../util/errors.js';
import { loadServedFolder, readPublished, servingRoot, unloadAdapter, waitUntilServed } from './online-publish.js';
import {
  trainerSeed, type OnlineBatch, type OnlineDriver, type OnlineGrpoOptions, type OnlineRollouts, type OnlineRun, type ScoredRollout, type VlmOnlinePolicy,
} from './online-types.js';
import type { RemoteJobs } from './remote.js';
import { trainingSteps } from './vlm-episodes.js';


/**
 * A served VLM in the online loop. Rollouts: one VlmPolicy per episode asking the endpoint for the
 * current model (the base model, then `<name>-<job id>` of the last job), at the loop's temperature,
 * with a request `seed` derived from the run seed (vLLM, SGLang and OpenAI honour it), recorded into
 * the training run with screenshots. The bundle is the store's export of the episodes of groups
 * with a reward spread, each line with its `advantage` (the loop's trajectory-level group
 * advantage, with local GRPO's defaults) and each step with `raw` = the completion text and `messages` = the chat
 * the policy sent, as its steps recorded it (images as `{"type": "image", "step": k}`: vlm-episodes.ts). The job config asks the trainer to continue
 * from the previous job's adapter and to publish the new one to the endpoint; after the job the
 * loop reads published.json, makes the endpoint serve the new version and asks for it next — per endpoint server:
 * vLLM's adapter by name (listed by /v1/models; the previous version unloaded), or transformers serve's merged
 * model folder by path (the old model reset, the folder loaded); online-publish.ts.
 * The config also carries the endpoint's pixel bounds (trainerPixels), so the trainer scores the image tokens the
 * server produced.
 */

/** The request seed of one rollout: from the run seed, iteration, group and rollout (no Math.random). */
export function rolloutRequestSeed(seed: number, iteration: number, group: number, rollout: number): number {
  return createRng(`online-grpo/${seed}/${iteration}/${group}/${rollout}/request`).int(0, 2 ** 31 - 1);
}

/**
 * The image-size bounds the served model resizes screenshots within (the endpoint's minPixels/maxPixels, else Qwen2.5-VL's
 * processor defaults, which is what the workbench's coordinate maths assumes too): sent with every job, so the trainer
 * expands each screenshot to the image tokens the policy saw.
 */
export function trainerPixels(s: Pick<VlmPolicySettings, 'minPixels' | 'maxPixels'>): { minPixels: number; maxPixels: number } {
  return { minPixels: s.minPixels ?? QWEN_MIN_PIXELS, maxPixels: s.maxPixels ?? QWEN_MAX_PIXELS };
}

/** Why an endpoint of server `other` cannot run the loop. */
export const SERVER_OTHER = 'cannot serve new weights: the loop publishes them through vLLM (load_lora_adapter) or transformers serve (a merged model folder by path); set the profile\'s server';

/** Fields of the trainer config the loop sets itself. */
const OWNED = ['model', 'resumeFrom', 'minPixels', 'maxPixels'] as const;

/**
 * The user's trainer config overrides for vlm-grpo, checked: `model` and `resumeFrom` are the loop's,
 * and of `publish` only `apiKeyEnv` may be given (a variable on the trainer machine, never a key).
 */
export function vlmConfigOverrides(config: Record<string, unknown>): { overrides: Record<string, unknown>; publishKeyEnv: string | undefined } {
  const { publish, ...overrides } = config;
  for (const k of OWNED) if (k in overrides) throw new OnlineGrpoConfigError(`config.${k}`, overrides[k], 'is set by the loop (--base-model; the previous job; the endpoint\'s minPixels/maxPixels)');
  if (publish === undefined) return { overrides, publishKeyEnv: undefined };
  const ok = typeof publish === 'object' && publish !== null && !Array.isArray(publish) && Object.keys(publish).every((k) => k === 'apiKeyEnv')
    && typeof (publish as { apiKeyEnv?: unknown }).apiKeyEnv === 'string';
  if (!ok) throw new OnlineGrpoConfigError('config.publish', publish, 'only {"apiKeyEnv": "VAR"} may be given (an env var on the trainer machine); baseUrl and name are the loop\'s');
  return { overrides, publishKeyEnv: (publish as { apiKeyEnv: string }).apiKeyEnv };
}

/** A rollout with its recorded episode (whose steps keep the requests the policy sent). */
type VlmRollout = ScoredRollout & { episode: EpisodeId | null };

export class VlmOnlineDriver implements OnlineDriver {
  readonly jobKind = 'vlm-grpo';
  private model: string;
  private readonly root: string;
  private readonly publishName: string;
  private readonly overrides: Record<string, unknown>;
  private readonly publishKeyEnv: string | undefined;
  private readonly devices: SimDroid[];

  constructor(
    private readonly o: OnlineGrpoOptions, private readonly p: VlmOnlinePolicy, private readonly jobs: RemoteJobs,
    private readonly run: OnlineRun,
    private readonly deps: { fetch?: typeof fetch; sleep?: (ms: number, signal?: AbortSignal) => Promise<void>; log?: (line: string) => void } = {},
  ) {
    // runOnlineGrpo checked the options (temperature > 0, the overrides) before the run was created.
    const { overrides, publishKeyEnv } = vlmConfigOverrides(o.config ?? {});
    this.publishKeyEnv = publishKeyEnv;
    this.overrides = overrides;
    this.model = p.settings.endpoint.model;
    this.root = servingRoot(p.settings.endpoint.baseUrl);
    this.publishName = p.publishName ?? `awb-online-${run.id}`;
    this.devices = openSimDroids(o.devices ?? 1, 'simdroid-online-');
  }

  get current(): string {
    return this.model;
  }

  async rollout(iteration: number, signal?: AbortSignal): Promise<OnlineRollouts> {
    const o = this.o;
    const s = this.p.settings;
    const todo = o.instances.flatMap((instance, g) => Array.from({ length: o.groupSize }, (_, r) => ({ instance, g, r })));
    const done: VlmRollout[] = new Array(todo.length);
    const t0 = performance.now();
    // Devices take the next rollout as soon as they are free; the endpoint's semaphore bounds the requests. A stop
    // lets the episodes in flight end (the run keeps whole episodes only) and starts no other.
    await scheduleOnDevices(this.devices, todo, (device) => async ({ instance, g, r }, k) => {
      const policy = new VlmPolicy({
        ...s, temperature: o.temperature, endpoint: { ...s.endpoint, model: this.model },
        extraBody: { seed: rolloutRequestSeed(o.seed, iteration, g, r), ...s.extraBody },
      }, { ...(this.deps.fetch ? { fetch: this.deps.fetch } : {}) });
      // Tagged with its iteration and place as offline GRPO's rollouts (the loop always records a VLM's).
      const recorder = this.run.recording?.recorder(iteration, { group: g, rollout: r }) ?? new StoreRecorder(this.run.db, this.run.id);
      const result = await runEpisode({ device, instance, policy, maxSteps: o.maxSteps, screenshots: this.p.screenshots ?? 'half', recorder });
      done[k] = { group: g, rollout: r, result, reward: outcomeReward(result), episode: recorder.episodeId };
    }, signal ? { signal } : {});
    signal?.throwIfAborted();
    const rolloutS = (performance.now() - t0) / 1000;

    const groups = o.instances.map((_, g) => done.filter((d) => d.group === g));
    return {
      groups, rolloutS,
      // The trainer takes one advantage per episode (the loop's trajectory level), so each counts as one step.
      steps: groups.map((g) => g.map(() => 1)),
      batch: (a) => this.batch(groups, a),
    };
  }

  /** The store's export of the episodes of groups with a reward spread, each with its advantage and each step with what the trainer replays. */
  private batch(groups: readonly (readonly VlmRollout[])[], a: GrpoAdvantages): OnlineBatch {
    const byEpisode = new Map<EpisodeId, { advantage: number }>();
    groups.forEach((g, gi) => g.forEach((d, i) => {
      // Unscorable episodes (an endpoint or device failure) say nothing about the policy: not trained on.
      if (a.groups[gi]!.skipped || !Number.isFinite(d.reward) || d.episode === null) return;
      byEpisode.set(d.episode, { advantage: a.advantages[gi]![i]![0]! });
    }));
    const done = groups.flat();
    const ids = [...byEpisode.keys()];
    const batchSteps = done.filter((d) => d.episode !== null && byEpisode.has(d.episode)).reduce((n, d) => n + d.result.steps.length, 0);
    const formatErrors = done.reduce((n, d) => n + d.result.steps.filter((st) => st.error?.name === 'ActionParseError').length, 0);
    return {
      batchEpisodes: ids.length, batchSteps, extra: { 'rollout/format_errors': formatErrors },
      bundle: ids.length ? {
        kind: 'vlm-grpo', episodes: { db: this.run.db, ids },
        annotateEpisode: (line, id) => {
          const e = byEpisode.get(id)!;
          return { ...line, advantage: e.advantage, steps: trainingSteps(this.run.db, id, line.steps as Array<Record<string, unknown>>).steps };
        },
      } : null,
    };
  }

  jobConfig(iteration: number, previous: RemoteJob | null): Record<string, unknown> {
    return {
      seed: trainerSeed(this.o.seed, iteration), ...this.overrides, model: this.p.baseModel, resumeFrom: previous?.remoteId ?? null,
      ...trainerPixels(this.p.settings),
      publish: { server: this.server, baseUrl: this.root, name: this.publishName, ...(this.publishKeyEnv ? { apiKeyEnv: this.publishKeyEnv } : {}) },
    };
  }

  async switchTo(iteration: number, job: RemoteJob, signal?: AbortSignal): Promise<string> {
    const row = await this.jobs.download(String(job.id), { names: ['published.json'], ...(signal ? { signal } : {}) });
    const art = row.artifacts.find((a) => a.name === 'published.json');
    if (!art || !job.remoteId) throw new RemoteJobStateError(String(job.id), 'published.json was not downloaded');
    const server = this.server;
    if (server === 'other') throw new OnlineGrpoConfigError('endpoint.server', server, SERVER_OTHER); // refused by the loop's checks already
    const published = readPublished(art.path, iteration, job.remoteId, `${this.publishName}-${job.remoteId}`, server);
    const apiKey = resolveApiKey(this.p.settings.endpoint);
    const calls = { apiKey, ...(this.deps.fetch ? { fetch: this.deps.fetch } : {}), ...(signal ? { signal } : {}) };
    switch (server) {
      case 'vllm': {
        await waitUntilServed(this.root, published.name, {
          iteration, ...calls, ...(this.p.servedTries ? { tries: this.p.servedTries } : {}),
          ...(this.p.servedDelayMs !== undefined ? { delayMs: this.p.servedDelayMs } : {}), ...(this.deps.sleep ? { sleep: this.deps.sleep } : {}),
        });
        const previous = this.model;
        this.model = published.name;
        // The base model stays; an earlier version of this loop is never asked for again.
        if (previous !== this.p.settings.endpoint.model) {
          const problem = await unloadAdapter(this.root, previous, calls);
          this.deps.log?.(problem ? `iteration ${iteration}: could not unload ${previous} from vLLM (${problem}); it stays loaded` : `iteration ${iteration}: unloaded ${previous} from vLLM`);
        }
        break;
      }
      case 'transformers':
        // readPublished checked servedPath for transformers.
        await loadServedFolder(this.root, published.servedPath!, { iteration, ...calls });
        this.model = published.servedPath!;
        break;
      default: return assertNever(server);
    }
    return this.model;
  }

  private get server(): VlmServer {
    return this.p.settings.endpoint.server;
  }

  finish(): string {
    return this.model;
  }

  close(): void {
    for (const d of this.devices) d.close();
  }
}
