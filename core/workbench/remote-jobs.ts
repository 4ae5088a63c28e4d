import { mkdirSync, rmSync } from 'node:fs';
import { isAbsolute, join, normalize, resolve } from 'node:path';
import { prepareBundle } from '../remote-jobs/prepare.js';
import { parseJobConfig } from '../remote-jobs/protocol.js';
import { isRewardJobKind } from '../remote-jobs/prepare-rewards.js';
import { registerRewardModel } from '../remote-jobs/register-reward.js';
import { TrainerProfiles } from '../remote-jobs/profiles.js';
import { checkTrainerReachable } from '../remote-jobs/reach.js';
import { RemoteJobs, type RemoteJobsDeps } from '../remote-jobs/remote.js';
import type { WritableDB } from '../store/db.js';
import type { EpisodeId } from '../store/ids.js';
import type { RemoteJob } from '../store/remote-jobs.js';
import { parsePart, parseSplit } from '../tasks/splits.js';
import { WorkbenchError } from '../util/errors.js';
import type { SecretStore } from '../util/secret-store.js';
import type { PublicTrainerProfile, RemoteJobEvent, RemoteJobInfo, RemoteJobSubmit, TrainerSave } from '../api/job-types.js';

/**
 * The workbench's remote jobs (docs/jobs.md "In the workbench"): submissions from the Jobs view, one background
 * follower per unfinished job streaming its events to onRemoteJob listeners (and into the store), and
 * downloads / registration. The store and data folder are read per call: the data folder can move.
 */
export interface RemoteJobsHostDeps {
  db(): WritableDB;
  dataDir(): string;
  log(message: string): void;
  /** Tests give short client timeouts. */
  clientFor?: RemoteJobsDeps['clientFor'];
  /** Where trainers' tokens are kept (the workbench's secret store); default <data folder>/secrets.json. */
  secrets?: SecretStore;
}

export class RemoteJobInputError extends WorkbenchError {
  override name = 'RemoteJobInputError';
  constructor(readonly field: string, reason: string) {
    super(`Remote job ${field}: ${reason}`);
  }
}

export const toInfo = (j: RemoteJob): RemoteJobInfo => ({ ...j, id: j.id as number });

export class RemoteJobsHost {
  private readonly listeners = new Set<(e: RemoteJobEvent) => void>();
  private readonly followers = new Map<number, AbortController>();

  constructor(private readonly deps: RemoteJobsHostDeps) {}

  private jobs(): RemoteJobs {
    return new RemoteJobs({
      db: this.deps.db(), dataDir: this.deps.dataDir(),
      ...(this.deps.clientFor ? { clientFor: this.deps.clientFor } : {}), ...(this.deps.secrets ? { secrets: this.deps.secrets } : {}),
    });
  }

  private profiles(): TrainerProfiles {
    return new TrainerProfiles(this.deps.dataDir(), this.deps.secrets);
  }

  private emit(e: RemoteJobEvent): void {
    for (const l of this.listeners) l(e);
  }

  subscribe(listener: (e: RemoteJobEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  trainers(): PublicTrainerProfile[] {
    return this.profiles().list();
  }

  /**
   * Checks the profile, then that it answers (TrainerCheckError, unless `saveAnyway`: a trainer that
   * is off now), then stores it. Returns once the token is stored (the app's keychain writes later: a failed write rejects).
   */
  async saveTrainer({ saveAnyway, ...p }: TrainerSave): Promise<PublicTrainerProfile[]> {
    const profile = TrainerProfiles.validate(p);
    if (!saveAnyway) await checkTrainerReachable(profile, { then: 'or save anyway to keep a trainer that is off now' });
    const profiles = this.profiles();
    profiles.put(profile);
    await profiles.settled();
    return this.trainers();
  }

  async removeTrainer(name: string): Promise<PublicTrainerProfile[]> {
    const profiles = this.profiles();
    profiles.remove(name);
    await profiles.settled();
    return this.trainers();
  }

  list(): RemoteJobInfo[] {
    return this.jobs().list().map(toInfo);
  }

  /** Checks that the trainer answers (before the bundle is built and hashed), builds the bundle, uploads, submits, then follows the job in the background. */
  async submit(input: RemoteJobSubmit): Promise<RemoteJobInfo> {
    const jobs = this.jobs();
    const profile = jobs.profiles.get(input.trainer);
    const config = parseJobConfig(input.kind, input.config);
    const dataDir = this.deps.dataDir();
    let init: string | undefined;
    if (input.init !== undefined) {
      // A page names files under the data folder only: it must not make the workbench read any file.
      if (isAbsolute(input.init) || normalize(input.init).split(/[\\/]/).includes('..')) {
        throw new RemoteJobInputError('init', `a checkpoint through the workbench is a path under the data folder, got ${JSON.stringify(input.init)}`);
      }
      init = resolve(dataDir, input.init);
    }
    // A dead URL is said now, plainly, not after the bundle's hash and an upload's retries.
    await checkTrainerReachable(profile, { then: 'or correct the trainer profile (Jobs → Trainers)' });
    const dir = join(dataDir, 'jobs', 'bundles');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `bundle-${process.pid}-${Date.now()}.tar`);
    try {
      const prepared = await prepareBundle({
        kind: input.kind, file, createdAt: Date.now(), seed: input.seed ?? 0,
        ...(input.episodeIds ? { episodes: { db: jobs.db, ids: input.episodeIds as EpisodeId[] } }
          : { split: { split: parseSplit(input.split ?? 'unseen-instance'), part: parsePart(input.part ?? 'train') } }),
        ...(input.limit !== undefined ? { limit: input.limit } : {}),
        ...(init ? { init } : {}),
        grpo: { groupSize: input.groupSize ?? 4, temperature: input.temperature ?? 1, maxSteps: input.maxSteps ?? 20 },
      });
      const { job } = await jobs.submit({ trainer: input.trainer, kind: input.kind, bundle: prepared.bundle, config, ...(input.name ? { name: input.name } : {}) });
      const info = toInfo(job);
      this.emit({ type: 'job', job: info });
      this.follow(info.id);
      return info;
    } finally {
      rmSync(file, { force: true });
    }
  }

  /**
   * Streams a job's events (from the start: a view opened later gets the whole log) to the listeners
   * until it ends; one follower per job. A stream that fails for good is logged and the record kept.
   */
  follow(id: number): void {
    if (this.followers.has(id)) return;
    const abort = new AbortController();
    this.followers.set(id, abort);
    void (async () => {
      const jobs = this.jobs();
      try {
        for await (const ev of jobs.follow(String(id), { signal: abort.signal })) {
          switch (ev.type) {
            case 'log':
              this.emit({ type: 'log', jobId: id, seq: ev.seq, time: ev.time, level: ev.level, message: ev.message });
              break;
            case 'metric':
              this.emit({ type: 'metric', jobId: id, seq: ev.seq, time: ev.time, step: ev.step, metrics: ev.metrics });
              break;
            case 'status':
              this.emit({ type: 'job', job: toInfo(jobs.resolve(String(id))) });
              break;
          }
        }
      } catch (e) {
        if (!abort.signal.aborted) this.deps.log(`remote job ${id}: following stopped: ${(e as Error).name}: ${(e as Error).message}`);
      } finally {
        this.followers.delete(id);
      }
    })();
  }

  async cancel(id: number): Promise<RemoteJobInfo> {
    const info = toInfo(await this.jobs().cancel(String(id)));
    this.emit({ type: 'job', job: info });
    return info;
  }

  async download(id: number, names?: string[]): Promise<RemoteJobInfo> {
    const info = toInfo(await this.jobs().download(String(id), names ? { names } : {}));
    this.emit({ type: 'job', job: info });
    return info;
  }

  /** A builtin job's policy.json into policies/, a progrm / prm job's model.json beside the reward models (register-reward.ts). */
  registerPolicy(id: number): RemoteJobInfo {
    const jobs = this.jobs();
    const ref = String(id);
    const row = isRewardJobKind(jobs.resolve(ref).kind) ? registerRewardModel(jobs, this.deps.dataDir(), ref).job : jobs.registerPolicy(ref);
    const info = toInfo(row);
    this.emit({ type: 'job', job: info });
    return info;
  }

  close(): void {
    for (const a of this.followers.values()) a.abort();
    this.followers.clear();
  }
}
