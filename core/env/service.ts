import { randomUUID } from 'node:crypto';
import type { Device } from '../device/device.js';
import { REWARD_KINDS } from '../rewards/component.js';
import { VLM_FORMAT_IDS } from '../policy/vlm/format.js';
import { createRun, finishRun, type RunId, type WritableDB } from '../store/index.js';
import { ENV_PROTOCOL_VERSION, ProtocolError, SessionNotFoundError, type CreateRequest } from './protocol.js';
import { EpisodeRewardStream } from './rewards.js';
import type { EnvResult } from './results.js';
import { EnvSession, type EnvSessionEvent } from './session.js';
import { TaskSource, taskCatalog } from './tasks.js';

/**
 * The environment server's sessions, whatever carries them (docs/env-protocol.md): `awb env serve`, `awb serve` and
 * the desktop app's host all make one EnvService over the workbench's store and devices. Runs are found by the name
 * the agent gives: sessions naming the same run share it while the service lives, and it is finished when the last of
 * them closes.
 */

export class DevicesBusyError extends Error {
  override name = 'DevicesBusyError';
  constructor(readonly limit: number) {
    super(`All ${limit} SimDroid devices of this server are in sessions: close one, or start the server with --devices ${limit + 1} or more`);
  }
}

export class DeviceBusyError extends Error {
  override name = 'DeviceBusyError';
  constructor(readonly serial: string, readonly holder: string) {
    super(`${serial} is in ${holder}: close it first, or ask for "simdroid"`);
  }
}

export interface DeviceLease {
  device: Device;
  release(): void;
}

/** Where sessions get their devices: the workbench's (so the Devices and Live views show them) or a bare pool in tests. */
export interface EnvDevices {
  /** 'simdroid': one of the server's SimDroids (DevicesBusyError past its limit); else that serial (DeviceBusyError if in use). */
  lease(spec: string, session: string): Promise<DeviceLease>;
  /** What `hello` reports. */
  describe(): Promise<{ simdroid: number; adb: string[] }>;
}

/**
 * SimDroids for sessions, at most `limit` at once, started on demand and kept for the next session (each episode
 * restores the boot snapshot anyway), plus adb devices by serial.
 */
export class SimDroidPool implements EnvDevices {
  private readonly idle: Device[] = [];
  private started = 0;
  private readonly held = new Map<string, string>();

  constructor(private readonly opts: {
    limit: number;
    start(): Promise<Device>;
    open?(serial: string): Promise<Device>;
    adbSerials?(): Promise<string[]>;
    /** Who else holds a device (a step-through session of the workbench), if anyone. */
    holder?(serial: string): string | null;
  }) {}

  async lease(spec: string, session: string): Promise<DeviceLease> {
    let device: Device;
    if (spec === 'simdroid') {
      const free = this.idle.pop();
      if (free) device = free;
      else {
        if (this.started >= this.opts.limit) throw new DevicesBusyError(this.opts.limit);
        this.started++;
        try {
          device = await this.opts.start();
        } catch (e) {
          this.started--;
          throw e;
        }
      }
      this.held.set(device.serial, `session ${session}`);
      return { device, release: () => this.giveBack(device, true) };
    }
    const holder = this.held.get(spec) ?? this.opts.holder?.(spec) ?? null;
    if (holder) throw new DeviceBusyError(spec, holder);
    if (!this.opts.open) throw new ProtocolError(`this server has no adb: ask for "simdroid", not ${JSON.stringify(spec)}`);
    device = await this.opts.open(spec);
    this.held.set(spec, `session ${session}`);
    return { device, release: () => this.giveBack(device, false) };
  }

  private giveBack(device: Device, pooled: boolean): void {
    if (!this.held.delete(device.serial)) return;
    if (pooled) this.idle.push(device);
  }

  /** Which session holds a device, if one does. */
  holderOf(serial: string): string | null {
    return this.held.get(serial) ?? null;
  }

  async describe(): Promise<{ simdroid: number; adb: string[] }> {
    return { simdroid: this.opts.limit, adb: (await this.opts.adbSerials?.()) ?? [] };
  }
}

export interface EnvServiceDeps {
  db(): WritableDB;
  /** Where reward components find their checkpoints (the workbench's data folder). */
  dataDir?(): string;
  devices: EnvDevices;
  server: string;
  log(message: string): void;
}

export type EnvServiceEvent = { kind: 'opened'; session: EnvSession; run: { id: number; name: string } } | { kind: 'closed'; session: EnvSession };

/** A client's hook for its sessions' notices (held / released). */
export type Notify = (event: Record<string, unknown>) => void;

interface SharedRun {
  id: RunId;
  sessions: Set<string>;
}

export class EnvService {
  private readonly sessions = new Map<string, { session: EnvSession; lease: DeviceLease; run: string }>();
  private readonly runs = new Map<string, SharedRun>();
  private readonly listeners = new Set<(e: EnvServiceEvent) => void>();

  constructor(private readonly deps: EnvServiceDeps) {}

  onSession(listener: (e: EnvServiceEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  list(): EnvSession[] {
    return [...this.sessions.values()].map((s) => s.session);
  }

  get(id: string): EnvSession {
    const s = this.sessions.get(id);
    if (!s) throw new SessionNotFoundError(id);
    return s.session;
  }

  async hello(protocol: number): Promise<EnvResult> {
    if (protocol !== ENV_PROTOCOL_VERSION) throw new ProtocolError(`protocol ${protocol} is not spoken here: this server speaks ${ENV_PROTOCOL_VERSION}`);
    return {
      value: {
        protocol: ENV_PROTOCOL_VERSION, server: this.deps.server, devices: await this.deps.devices.describe(),
        formats: [...VLM_FORMAT_IDS], rewards: [...REWARD_KINDS],
      },
      blobs: [],
    };
  }

  tasks(): EnvResult {
    return { value: taskCatalog(), blobs: [] };
  }

  async create(req: CreateRequest, notify: Notify): Promise<{ session: EnvSession; result: EnvResult }> {
    const id = randomUUID().slice(0, 8);
    // Everything the request can get wrong is checked before a device is taken (and before its run is made).
    new TaskSource(req.task);
    const rewards = await EpisodeRewardStream.create(req.rewards, { db: this.deps.db(), ...(this.deps.dataDir ? { dataDir: this.deps.dataDir() } : {}) });
    const runName = req.run ?? `${req.agent} (env)`;
    const lease = await this.deps.devices.lease(req.device, id);
    let session: EnvSession;
    let runId: RunId;
    try {
      const screen = await lease.device.screenInfo();
      runId = this.joinRun(runName, id, req.agent);
      const record = req.record?.screenshots ?? (req.observation.screenshot === 'none' ? 'none' : req.observation.scale === 1 ? 'full' : 'half');
      session = new EnvSession({
        id, agent: req.agent, device: lease.device, task: req.task, observation: req.observation, record, rewards,
        maxSteps: req.max_steps, onMalformed: req.on_malformed, db: this.deps.db, runId, log: this.deps.log,
        notify: (e) => notify({ ...e, session: id }),
      });
      this.sessions.set(id, { session, lease, run: runName });
      const result = {
        value: { session: id, device: { serial: lease.device.serial, ...screen }, run: { id: runId, name: runName } },
        blobs: [],
      };
      for (const l of this.listeners) l({ kind: 'opened', session, run: { id: runId, name: runName } });
      return { session, result };
    } catch (e) {
      this.leaveRun(runName, id);
      lease.release();
      throw e;
    }
  }

  private joinRun(name: string, session: string, agent: string): RunId {
    let run = this.runs.get(name);
    if (!run) {
      const created = createRun(this.deps.db(), { kind: 'env', name, config: { source: 'env', agent, server: this.deps.server } });
      run = { id: created.id, sessions: new Set() };
      this.runs.set(name, run);
    }
    run.sessions.add(session);
    return run.id;
  }

  private leaveRun(name: string, session: string): void {
    const run = this.runs.get(name);
    if (!run || !run.sessions.delete(session) || run.sessions.size) return;
    this.runs.delete(name);
    try {
      finishRun(this.deps.db(), run.id, 'finished');
    } catch (e) {
      this.deps.log(`run ${run.id}: ${(e as Error).message}`);
    }
  }

  /** Closes a session (its unfinished episode recorded as aborted) and frees its device; the number of episodes it played. */
  async closeSession(id: string): Promise<number> {
    const s = this.sessions.get(id);
    if (!s) throw new SessionNotFoundError(id);
    this.sessions.delete(id);
    let episodes = 0;
    try {
      episodes = await s.session.close();
    } finally {
      s.lease.release();
      this.leaveRun(s.run, id);
      for (const l of this.listeners) l({ kind: 'closed', session: s.session });
    }
    return episodes;
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.closeSession(id).catch((e: unknown) => this.deps.log(`session ${id}: ${(e as Error).message}`))));
  }

  /** For watchers of one session (the workbench wires them to the Agent view). */
  watch(id: string, listener: (e: EnvSessionEvent) => void): () => void {
    return this.get(id).watch(listener);
  }
}
