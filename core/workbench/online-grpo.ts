import { isAbsolute } from 'node:path';
import { OnlineGrpoConfigError, OnlineGrpoStoppedError } from '../remote-jobs/online-errors.js';
import { ONLINE_METRIC, runOnlineGrpo, type OnlineGrpoOptions, type OnlineIteration, type OnlinePolicy } from '../remote-jobs/online.js';
import { JobConfigError } from '../remote-jobs/protocol.js';
import { RemoteJobs, type RemoteJobsDeps } from '../remote-jobs/remote.js';
import type { JobEvent } from '../remote-jobs/protocol.js';
import { redact } from '../llm/redact.js';
import type { EndpointProfiles } from '../policy/vlm/profiles.js';
import { VlmPolicySettings } from '../policy/vlm/settings.js';
import type { WritableDB } from '../store/db.js';
import type { RemoteJob } from '../store/remote-jobs.js';
import { TASKS } from '../tasks/registry.js';
import { parsePart, parseSplit, splitInstances } from '../tasks/splits.js';
import { assertNever, WorkbenchError } from '../util/errors.js';
import type { SecretStore } from '../util/secret-store.js';
import type { Activity } from '../api/types.js';
import type { OnlineGrpoIterationView, OnlineGrpoRunInfo, OnlineGrpoStart, RemoteJobEvent } from '../api/job-types.js';
import { trainableCheckpoint } from './policy-choices.js';
import { toInfo } from './remote-jobs.js';
import { withPromptTemplate } from './prompt-templates.js';

/**
 * Online GRPO started from the workbench (docs/online-grpo.md "In the workbench"): `runOnlineGrpo`
 * (core/remote-jobs/online.ts) in the background of the API host process, one loop at a time. Its state,
 * iterations and log lines go to onRemoteJob listeners as `online` events, its iteration jobs as
 * ordinary `job` / `log` / `metric` events (so the Jobs table shows each), and its progress as an
 * activity (done / total = iterations). The endpoint key is resolved here from the profile and
 * handed to the loop in memory: it is neither in the API's input nor in any event (redacted from
 * log lines and errors).
 *
 * Where it runs: in the API host process, not a worker thread. The rollouts are SimDroid episodes
 * whose steps are short synchronous bursts between awaits (as `awb jobs grpo` runs them), and the
 * rest is waiting on the trainer and the endpoint; a worker would need the loop's hooks, the
 * remote-job events and the abort relayed over messages, which this first version does not do.
 */
export interface OnlineGrpoHostDeps {
  db(): WritableDB;
  dataDir(): string;
  log(message: string): void;
  clientFor?: RemoteJobsDeps['clientFor'];
  /** Where trainers' tokens are kept (the workbench's secret store); default <data folder>/secrets.json. */
  secrets?: SecretStore;
  /** The data folder's endpoint profiles, with keys from the workbench's secret store. */
  endpoints(): EndpointProfiles;
  activity: { id(): string; emit(a: Activity): void };
  /** Tests: the VLM's endpoint calls and GET /v1/models; the wait between /v1/models tries. */
  fetch?: typeof fetch;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Lines of the loop's log kept per run (the Jobs view's tail). */
export const ONLINE_LOG_TAIL = 200;

/** A start request refused: the field (as the form names it) and why, as `issues` so the form marks it. */
export class OnlineGrpoInputError extends WorkbenchError {
  override name = 'OnlineGrpoInputError';
  readonly issues: Array<{ path: string; message: string }>;
  constructor(readonly field: string, readonly value: unknown, reason: string, issues?: Array<{ path: string; message: string }>) {
    super(`Online GRPO ${field} ${JSON.stringify(value)}: ${reason}`);
    this.issues = issues ?? [{ path: field, message: `${reason} (got ${JSON.stringify(value)})` }];
  }
}

/** One loop at a time: its rollouts take the host's SimDroids and cores. */
export class OnlineGrpoBusyError extends WorkbenchError {
  override name = 'OnlineGrpoBusyError';
  constructor(readonly runId: number) {
    super(`Online GRPO run ${runId} is running: one online GRPO loop runs at a time; stop it first`);
  }
}

export class OnlineGrpoNotFoundError extends WorkbenchError {
  override name = 'OnlineGrpoNotFoundError';
  constructor(readonly runId: number) {
    super(`No online GRPO loop of this workbench has run ${runId}`);
  }
}

/** RemoteJobs whose record changes and followed events reach the Jobs view (the loop calls these). */
class AnnouncingRemoteJobs extends RemoteJobs {
  constructor(deps: RemoteJobsDeps, private readonly announce: (e: RemoteJobEvent) => void) {
    super(deps);
  }

  private job(row: RemoteJob): RemoteJob {
    this.announce({ type: 'job', job: toInfo(row) });
    return row;
  }

  override async submit(o: Parameters<RemoteJobs['submit']>[0]): ReturnType<RemoteJobs['submit']> {
    const r = await super.submit(o);
    this.job(r.job);
    return r;
  }

  override async refresh(ref: string, signal?: AbortSignal): ReturnType<RemoteJobs['refresh']> {
    const r = await super.refresh(ref, signal);
    this.job(r.row);
    return r;
  }

  override async cancel(ref: string, signal?: AbortSignal): Promise<RemoteJob> {
    return this.job(await super.cancel(ref, signal));
  }

  override async download(ref: string, opts: Parameters<RemoteJobs['download']>[1] = {}): Promise<RemoteJob> {
    return this.job(await super.download(ref, opts));
  }

  override registerPolicy(ref: string): RemoteJob {
    return this.job(super.registerPolicy(ref));
  }

  override async *follow(ref: string, opts: Parameters<RemoteJobs['follow']>[1] = {}): AsyncGenerator<JobEvent> {
    const id = this.resolve(ref).id as number;
    for await (const ev of super.follow(ref, opts)) {
      switch (ev.type) {
        case 'log': this.announce({ type: 'log', jobId: id, seq: ev.seq, time: ev.time, level: ev.level, message: ev.message }); break;
        case 'metric': this.announce({ type: 'metric', jobId: id, seq: ev.seq, time: ev.time, step: ev.step, metrics: ev.metrics }); break;
        case 'status': this.job(this.resolve(ref)); break;
      }
      yield ev;
    }
  }
}

function iterationView(it: OnlineIteration): OnlineGrpoIterationView {
  return {
    iteration: it.iteration, successRate: it.metrics[ONLINE_METRIC.success] ?? 0, rewardMean: it.metrics[ONLINE_METRIC.rewardMean] ?? 0,
    groupsSkipped: it.metrics[ONLINE_METRIC.groupsSkipped] ?? 0, job: it.job, policy: it.policy, metrics: it.metrics,
  };
}

/** Problems of the trainer config overrides, at `config.<field>` (JobConfigError's "field: reason" lines). */
function configIssues(e: JobConfigError): Array<{ path: string; message: string }> {
  return e.problems.map((p) => {
    const at = p.indexOf(': ');
    return at > 0 ? { path: `config.${p.slice(0, at)}`, message: p.slice(at + 2) } : { path: 'config', message: p };
  });
}

interface Running {
  info: OnlineGrpoRunInfo;
  abort: AbortController;
  done: Promise<void>;
}

export class OnlineGrpoHost {
  private readonly listeners = new Set<(e: RemoteJobEvent) => void>();
  private readonly runs = new Map<number, Running>();
  /** Ends the follows of cancelled jobs at close. */
  private readonly closing = new AbortController();

  constructor(private readonly deps: OnlineGrpoHostDeps) {}

  subscribe(listener: (e: RemoteJobEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(e: RemoteJobEvent): void {
    for (const l of this.listeners) l(e);
  }

  /** The loop that is running or stopping, if any. */
  active(): OnlineGrpoRunInfo | null {
    for (const r of this.runs.values()) if (r.info.state === 'running' || r.info.state === 'stopping') return r.info;
    return null;
  }

  list(): OnlineGrpoRunInfo[] {
    return [...this.runs.values()].map((r) => structuredClone(r.info)).sort((a, b) => b.startedAt - a.startedAt);
  }

  /** The loop's policy from the request: a registered checkpoint file, or the profile's settings with its key. */
  private policy(p: OnlineGrpoStart['policy']): { policy: OnlinePolicy; start: string; secret: string | undefined } {
    switch (p.kind) {
      case 'builtin': {
        // The workbench records the rollouts, as its offline GRPO jobs do, so Trajectories lists them by run and iteration.
        if (p.init === undefined) return { policy: { kind: 'builtin', recordEpisodes: true }, start: 'a fresh model', secret: undefined };
        // Names only (a page never makes the workbench read a path it chose): a checkpoint or a registered .json.
        if (isAbsolute(p.init)) throw new OnlineGrpoInputError('policy.init', p.init, 'give a checkpoint by name (checkpoint:<name> or a registered .json), not a path');
        let init: string;
        try {
          init = trainableCheckpoint(this.deps.dataDir(), p.init);
        } catch (e) {
          throw new OnlineGrpoInputError('policy.init', p.init, (e as Error).message);
        }
        return { policy: { kind: 'builtin', init, recordEpisodes: true }, start: init, secret: undefined };
      }
      case 'vlm': {
        let settings: VlmPolicySettings;
        try {
          settings = withPromptTemplate(VlmPolicySettings.parse(this.deps.endpoints().resolve(p.endpoint)));
        } catch (e) {
          throw new OnlineGrpoInputError('policy.endpoint', p.endpoint, (e as Error).message);
        }
        return {
          policy: { kind: 'vlm', settings, profile: p.endpoint, baseModel: p.baseModel },
          start: settings.endpoint.model, secret: settings.endpoint.apiKey,
        };
      }
      default: return assertNever(p, 'online policy');
    }
  }

  /**
   * Checks the request, asks the trainer (health), creates the training run and returns once it
   * exists; the iterations go on in the background. Refusals before the run name their field.
   */
  async start(input: OnlineGrpoStart): Promise<OnlineGrpoRunInfo> {
    const busy = this.active();
    if (busy) throw new OnlineGrpoBusyError(busy.runId);
    const splitName = input.split ?? 'unseen-instance';
    const partName = input.part ?? 'train';
    let instances;
    try {
      instances = splitInstances(TASKS, parseSplit(splitName), parsePart(partName));
    } catch (e) {
      throw new OnlineGrpoInputError('split', `${splitName}:${partName}`, (e as Error).message);
    }
    if (input.limit !== undefined) instances = instances.slice(0, input.limit);
    const { policy, start, secret } = this.policy(input.policy);
    const clean = (text: string) => redact(text, [secret]);
    const options: OnlineGrpoOptions = {
      trainer: input.trainer, iterations: input.iterations, instances, source: `${splitName}:${partName}${input.limit !== undefined ? `, limit ${input.limit}` : ''}`,
      groupSize: input.groupSize ?? 4, temperature: input.temperature ?? 1, maxSteps: input.maxSteps ?? 20, seed: input.seed ?? 0,
      config: input.config ?? {}, policy, ...(input.name ? { name: input.name } : {}),
    };
    const jobs = new AnnouncingRemoteJobs(
      { db: this.deps.db(), dataDir: this.deps.dataDir(), ...(this.deps.clientFor ? { clientFor: this.deps.clientFor } : {}), ...(this.deps.secrets ? { secrets: this.deps.secrets } : {}) },
      (e) => this.emit(e),
    );
    try {
      jobs.profiles.get(input.trainer);
    } catch (e) {
      throw new OnlineGrpoInputError('trainer', input.trainer, (e as Error).message);
    }

    const abort = new AbortController();
    const activity: Activity = { id: this.deps.activity.id(), label: `Online GRPO (${input.policy.kind}) on ${input.trainer}`, state: 'running', done: 0, total: input.iterations, error: null };
    let running: Running | null = null;
    const changed = () => {
      if (!running) return;
      this.emit({ type: 'online', run: structuredClone(running.info) });
      this.deps.activity.emit({ ...activity });
    };
    let started!: (r: OnlineGrpoRunInfo) => void;
    let refused!: (e: unknown) => void;
    const ready = new Promise<OnlineGrpoRunInfo>((res, rej) => {
      started = res;
      refused = rej;
    });

    const loop = runOnlineGrpo(options, {
      jobs, dataDir: this.deps.dataDir(), ...(this.deps.fetch ? { fetch: this.deps.fetch } : {}), ...(this.deps.sleep ? { sleep: this.deps.sleep } : {}),
    }, {
      signal: abort.signal,
      onRun: (runId) => {
        const info: OnlineGrpoRunInfo = {
          runId, activityId: activity.id, name: options.name ?? `online-grpo ${policy.kind} ${input.trainer}`, trainer: input.trainer, policyKind: policy.kind,
          iterations: input.iterations, state: 'running', startedAt: Date.now(), finishedAt: null, policy: start, done: [], log: [], error: null, finalPolicy: null,
        };
        running = { info, abort, done: Promise.resolve() };
        this.runs.set(runId, running);
        changed();
        started(structuredClone(info));
      },
      onLog: (line) => {
        if (!running) return;
        running.info.log = [...running.info.log, clean(line)].slice(-ONLINE_LOG_TAIL);
        changed();
      },
      onIteration: (it) => {
        if (!running) return;
        running.info.done = [...running.info.done, iterationView(it)];
        running.info.policy = it.policy;
        activity.done = it.iteration;
        changed();
      },
    });
    const done = loop.then((result) => {
      if (!running) return;
      Object.assign(running.info, { state: 'finished', finishedAt: Date.now(), finalPolicy: result.finalPolicy });
      running.info.log = [...running.info.log, `run ${result.runId} finished; final policy ${result.finalPolicy}`].slice(-ONLINE_LOG_TAIL);
      activity.state = 'done';
      changed();
    }, (e: unknown) => {
      const err = e as Error;
      if (!running) return refused(this.refusal(err, input.config ?? {}, clean));
      const message = clean(`${err.name}: ${err.message}`);
      Object.assign(running.info, { state: err instanceof OnlineGrpoStoppedError ? 'stopped' : 'failed', finishedAt: Date.now(), error: message });
      running.info.log = [...running.info.log, message].slice(-ONLINE_LOG_TAIL);
      Object.assign(activity, { state: 'failed', error: message });
      this.deps.log(`online GRPO run ${running.info.runId}: ${message}`);
      changed();
      if (err instanceof OnlineGrpoStoppedError && err.jobId) this.settle(jobs, input.trainer, err.jobId);
    });
    const info = await ready;
    running!.done = done;
    return info;
  }

  /**
   * A running job is cancelled at its next step boundary (trainer-protocol.md): its record still says
   * 'running' when the loop ends, so it is followed here until it ends and the Jobs table shows that.
   */
  private settle(jobs: RemoteJobs, trainer: string, remoteId: string): void {
    const row = jobs.byRemoteId(trainer, remoteId);
    if (!row || row.status === 'cancelled') return;
    void (async () => {
      try {
        for await (const _ of jobs.follow(String(row.id), { signal: this.closing.signal })) { /* the follow announces each event */ }
      } catch (e) {
        if (!this.closing.signal.aborted) this.deps.log(`online GRPO: following cancelled job ${remoteId} stopped: ${(e as Error).message}`);
      }
    })();
  }

  /** A refusal before the run existed, as the form shows it: at its field, without the key. */
  private refusal(e: Error, config: Record<string, unknown>, clean: (s: string) => string): Error {
    if (e instanceof OnlineGrpoConfigError) return new OnlineGrpoInputError(e.field === 'instances' ? 'limit' : e.field, e.value, clean(e.message));
    if (e instanceof JobConfigError) return new OnlineGrpoInputError('config', config, clean(e.problems.join('; ')), configIssues(e));
    e.message = clean(e.message);
    return e;
  }

  /** Aborts the loop: a job in flight is cancelled, the run ends interrupted (state 'stopped' when it has). */
  stop(runId: number): OnlineGrpoRunInfo {
    const r = this.runs.get(runId);
    if (!r) throw new OnlineGrpoNotFoundError(runId);
    if (r.info.state === 'running') {
      r.info.state = 'stopping';
      r.abort.abort(new Error('stopped from the workbench'));
      this.emit({ type: 'online', run: structuredClone(r.info) });
    }
    return structuredClone(r.info);
  }

  /** Stops any loop and waits for it to end (its job cancelled). */
  async close(): Promise<void> {
    this.closing.abort();
    for (const r of this.runs.values()) if (r.info.state === 'running') r.abort.abort(new Error('the workbench is closing'));
    await Promise.all([...this.runs.values()].map((r) => r.done));
  }
}
