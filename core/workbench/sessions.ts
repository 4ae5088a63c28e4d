import { randomUUID } from 'node:crypto';
import { EpisodeController } from '../episode/controller.js';
import type { Breakpoint } from '../episode/breakpoints.js';
import { ReplayPolicy } from '../episode/policies/replay.js';
import { errorOf, type EpisodeResult } from '../episode/record.js';
import { createPolicy, loadPolicyModels, PolicyModels, taskOf, type PolicySpec } from '../policy/registry.js';
import { instantiate, type TaskInstance } from '../tasks/instance.js';
import { getTemplate } from '../tasks/registry.js';
import { freeFormInstance } from '../tasks/free-form.js';
import { createRun, finishRun, loadTrajectory, StoreRecorder, type EpisodeId, type WritableDB } from '../store/index.js';
import { finishView, followController } from './session-view.js';
import { assertNever } from '../util/errors.js';
import type { SessionCommand, SessionReplies, SessionStart } from '../api/api.js';
import { parseReplies } from '../policy/vlm/replay.js';
import type { DeviceRegistry } from './devices.js';
import type { AdapterSessionPolicy, CheckpointSessionPolicy, SessionEvent, SessionInfo, SessionPolicy, VlmSessionPolicy } from '../api/types.js';

export class SessionNotFoundError extends Error {
  override name = 'SessionNotFoundError';
  constructor(readonly sessionId: string) {
    super(`No session ${JSON.stringify(sessionId)} (it may have been closed)`);
  }
}

export class DeviceBusyError extends Error {
  override name = 'DeviceBusyError';
  constructor(readonly serial: string, readonly sessionId: string) {
    super(`${serial} is running session ${sessionId}: stop it first`);
  }
}

/**
 * Live input into a device a session holds is refused rather than recorded: a raw gesture is not an
 * action of the agent's action space, and it would change the screen under the held proposal
 * without a step saying so. The Agent view's own screen records a click as an override instead.
 */
export class DeviceInSessionError extends Error {
  override name = 'DeviceInSessionError';
  constructor(readonly serial: string, readonly sessionId: string, readonly state: string) {
    super(`${serial} is in step-through session ${sessionId} (${state}): input here would not be recorded. Click the screen in Agent to override the next step, or stop the session.`);
  }
}

export class SessionStateError extends Error {
  override name = 'SessionStateError';
  constructor(readonly sessionId: string, readonly command: string, readonly state: string) {
    super(`Session ${sessionId} is ${state}: cannot ${command}`);
  }
}

/** The manual policy proposes `wait` until the person chooses: running it would record a string of waits as a failed episode. */
export class ManualRunError extends Error {
  override name = 'ManualRunError';
  constructor(readonly sessionId: string | null) {
    super(`The manual policy is stepped by you${sessionId ? ` (session ${sessionId})` : ''}: choose an action on the screen or in the list, then Step; Run would only record "wait" steps`);
  }
}

export class DuplicateBreakpointError extends Error {
  override name = 'DuplicateBreakpointError';
  constructor(readonly ids: string[]) {
    super(`Breakpoint ids must be unique: ${ids.filter((id, i) => ids.indexOf(id) !== i).join(', ')} given twice`);
  }
}

export class ReplayMismatchError extends Error {
  override name = 'ReplayMismatchError';
  constructor(readonly episodeId: number, readonly recorded: string, readonly requested: string) {
    super(`Episode ${episodeId} is ${recorded}, not ${requested}: replay it with its own task and seed`);
  }
}

function vlmScreenshots(policy: SessionPolicy, mode: 'none' | 'half' | 'full'): 'none' | 'half' | 'full' {
  return (policy.startsWith('vlm:') || policy === 'vlm-replay') && mode === 'none' ? 'half' : mode;
}

/** Breakpoints are toggled and removed by id, so two with one id would be ambiguous. */
function uniqueIds(breakpoints: readonly Breakpoint[]): void {
  const ids = breakpoints.map((b) => b.id);
  if (new Set(ids).size !== ids.length) throw new DuplicateBreakpointError(ids);
}

/** The policy of a stored or served session policy (`vlm:`, `checkpoint:`, `adapter:`): core/workbench/policy-choices.ts. */
export type StoredPolicySpecOf = (name: SessionPolicy) => PolicySpec;

interface PolicySpecsOf {
  stored?: StoredPolicySpecOf | undefined;
  replies?: SessionReplies | undefined;
}

const isStored = (name: SessionPolicy): name is VlmSessionPolicy | CheckpointSessionPolicy | AdapterSessionPolicy =>
  name.startsWith('vlm:') || name.startsWith('checkpoint:') || name.startsWith('adapter:');

/** The registry spec of a session's policy name. */
function specOf(name: SessionPolicy, specs: PolicySpecsOf): PolicySpec {
  if (isStored(name)) {
    if (!specs.stored) throw new SessionStateError('(new)', `start a ${name} session`, 'without stored policies');
    return specs.stored(name);
  }
  switch (name) {
    case 'oracle':
    case 'random':
    case 'manual':
      return { name };
    case 'vlm-replay': {
      // The input schema pairs this policy with its replies.
      const r = specs.replies!;
      return { name, replies: parseReplies(r.text, 'the replies given'), format: r.format, ...(r.coordinates ? { coordinates: r.coordinates } : {}) };
    }
    default:
      return assertNever(name, 'policy');
  }
}

/**
 * What a person can do to a session, whoever runs it: the workbench's own controller, or an outside agent's session
 * (core/workbench/outside-sessions.ts), whose episodes come and go under one session.
 */
export interface SessionControl {
  step(): void;
  run(): void;
  pause(): void;
  stop(): void;
  /** Throws ActionParseError for a malformed action. */
  override(action: unknown): void;
  setBreakpoints(list: Breakpoint[]): Breakpoint[];
  /** The override the next step will carry out, sketched; null if none. */
  pending(): SessionInfo['pendingOverride'];
  /** Outside agents' sessions only (undefined otherwise). */
  takeOver?(): void;
  handBack?(): void;
  /** Ends the session's current episode (stopped) and resolves when it has. */
  end(): Promise<void>;
}

export interface Entry {
  info: SessionInfo;
  control: SessionControl;
  listeners: Set<(e: SessionEvent) => void>;
  /** A copy of the info, with the pending override refreshed. */
  snapshot(): SessionInfo;
  emit(e: SessionEvent): void;
  watched(): boolean;
  /** Tells list watchers when what the list shows of the session changed (its state, an agent's episode or takeover). */
  listed(): void;
  /** The person chooses every action (the manual policy, not a replay's hold): Run is refused. */
  byHand: boolean;
}

/** A controller as a SessionControl. */
export function controllerControl(controller: EpisodeController): SessionControl {
  return {
    step: () => controller.step(), run: () => controller.run(), pause: () => controller.pause(), stop: () => controller.stop(),
    override: (action) => controller.override(action),
    setBreakpoints: (list) => {
      controller.setBreakpoints(list);
      return controller.getBreakpoints();
    },
    pending: () => controller.pending(),
    end: async () => {
      controller.stop();
      await controller.start();
    },
  };
}

/** What the session list shows of a session beyond its being there: a change is worth telling list watchers. */
function listedAs(info: SessionInfo): string {
  const a = info.agent;
  return JSON.stringify([info.state, info.templateId, info.seed, a ? [a.episodes, a.takenOver, a.connected] : null]);
}

/** How often at most a session's state changes send the session list (sessions coming and going send it at once). */
const LIST_EVERY_MS = 100;

/** How many finished sessions are kept for the UI to look at. */
const KEEP_FINISHED = 20;

/**
 * Step-through sessions: one EpisodeController per session, recorded into the store (a 'single'
 * run per session), with its state mirrored as plain SessionInfo for the UI and events on every
 * change. One session per device at a time.
 */
export class SessionManager {
  private readonly sessions = new Map<string, Entry>();

  constructor(private readonly deps: {
    db(): WritableDB; devices: DeviceRegistry; onDeviceUse(): void; log(m: string): void;
    storedPolicy?: StoredPolicySpecOf;
  }) {}

  sessionOf(serial: string): string | null {
    // An outside agent's session holds its device between episodes too.
    for (const s of this.sessions.values()) if (s.info.serial === serial && (s.info.state !== 'finished' || s.info.agent?.connected)) return s.info.id;
    return null;
  }

  /** Throws DeviceInSessionError when a session holds the device (input from outside it would go unrecorded). */
  refuseOutsideInput(serial: string): void {
    const id = this.sessionOf(serial);
    if (id) throw new DeviceInSessionError(serial, id, this.sessions.get(id)!.info.state);
  }

  async start(input: SessionStart, defaults: { screenshots: 'none' | 'half' | 'full'; maxSteps: number | null }): Promise<SessionInfo> {
    uniqueIds(input.breakpoints ?? []);
    // Replay on device (`from`) runs its recorded steps, then holds for the person: that Run is the replay's.
    const byHand = input.policy === 'manual' && input.from === undefined;
    if (input.run && byHand) throw new ManualRunError(null);
    const busy = this.sessionOf(input.serial);
    if (busy) throw new DeviceBusyError(input.serial, busy);
    const device = await this.deps.devices.require(input.serial);
    const instance: TaskInstance = input.instruction !== undefined ? freeFormInstance(input.instruction) : instantiate(getTemplate(input.templateId!), input.seed ?? 0);
    const spec = specOf(input.policy, { stored: this.deps.storedPolicy, replies: input.replies });
    // Model files load now: a bad one refuses the session rather than failing its first step.
    const models = new PolicyModels();
    await loadPolicyModels(spec, models);
    let policy = createPolicy(spec, { task: taskOf(instance), models });
    if (input.from) {
      const t = loadTrajectory(this.deps.db(), input.from.episodeId as EpisodeId);
      if (t.instance.templateId !== instance.template.id || t.instance.seed !== instance.seed) {
        throw new ReplayMismatchError(input.from.episodeId, `${t.instance.templateId} seed ${t.instance.seed}`, `${instance.template.id} seed ${instance.seed}`);
      }
      policy = new ReplayPolicy(t.steps.slice(0, input.from.steps).map((s) => s.raw), policy, { holdAfter: true });
    }
    const id = randomUUID().slice(0, 8);
    const run = createRun(this.deps.db(), {
      kind: 'single', name: `${instance.template.id} #${instance.seed} ${policy.name} (step-through)`,
      config: { task: instance.template.id, seed: instance.seed, policy: policy.name, session: id, ...(input.from ? { from: input.from } : {}) },
    });
    const recorder = new StoreRecorder(this.deps.db(), run.id);
    const maxSteps = input.maxSteps ?? defaults.maxSteps ?? undefined;
    const controller = new EpisodeController({
      // A VLM sees the screen: without screenshots configured it gets half-scale ones.
      device, instance, policy, recorder, screenshots: vlmScreenshots(input.policy, input.screenshots ?? defaults.screenshots),
      // A replayed trace goes on past its format errors, as the recorded run did: reply k stays step k's.
      onMalformed: input.policy === 'manual' || input.policy === 'vlm-replay' ? 'continue' : 'end',
      ...(maxSteps !== undefined ? { maxSteps } : {}),
    }, { breakpoints: input.breakpoints ?? [], startPaused: !input.run });
    const info: SessionInfo = {
      id, serial: input.serial, templateId: instance.template.id, seed: instance.seed, instruction: instance.instruction, policy: policy.name,
      state: 'idle', breakpoints: controller.getBreakpoints(), proposal: null, steps: [], episodeId: null, result: null, hitBreakpoints: [],
      pendingOverride: null, agent: null,
    };
    const entry = this.add(info, controllerControl(controller), byHand);
    followController(controller, entry, () => recorder.episodeId);
    controller.on('onFinished', (r: EpisodeResult) => {
      finishRun(this.deps.db(), run.id, 'finished');
      finishView(entry, r, this.deps.db(), recorder.episodeId);
      this.deps.onDeviceUse();
      this.prune();
    });

    this.deps.onDeviceUse();
    void controller.start().catch((e: unknown) => {
      // Not the agent's or the device's failure (those end the episode normally) but ours, e.g. the
      // store refused a write: end the session visibly instead of leaving it "running" forever.
      this.deps.log(`session ${id}: ${(e as Error).stack ?? String(e)}`);
      try {
        finishRun(this.deps.db(), run.id, 'interrupted');
      } catch (f) {
        this.deps.log(`session ${id}: ${String(f)}`);
      }
      info.state = 'finished';
      info.proposal = null;
      info.result = { status: 'error', success: false, terminatedBy: 'environment_error', error: errorOf(e), answer: null };
      entry.emit({ kind: 'finished', session: entry.snapshot() });
      entry.listed();
      this.deps.onDeviceUse();
    });
    return entry.snapshot();
  }

  /** Adds a session (the workbench's own, or an outside agent's) under its info's id; viewers learn of it. */
  add(info: SessionInfo, control: SessionControl, byHand = false): Entry {
    const listeners = new Set<(e: SessionEvent) => void>();
    let shown = listedAs(info);
    const entry: Entry = {
      info, control, listeners, byHand,
      emit: (e) => listeners.forEach((l) => l(e)),
      watched: () => listeners.size > 0,
      // The list follows each session's state, not its steps, whoever watches the session.
      listed: () => {
        const now = listedAs(info);
        if (now === shown) return;
        shown = now;
        this.listSoon();
      },
      snapshot: () => {
        info.pendingOverride = control.pending();
        return structuredClone(info);
      },
    };
    this.sessions.set(info.id, entry);
    this.listChanged();
    return entry;
  }

  /** Forgets a session whose owner ended it (an outside agent's, closed). */
  remove(id: string): void {
    if (this.sessions.delete(id)) this.listChanged();
  }

  private readonly listWatchers = new Set<(list: SessionInfo[]) => void>();

  /** The session list, on every start and end, and when a session's state (or an agent's episode, or who has it) changes. */
  watchList(listener: (list: SessionInfo[]) => void): () => void {
    this.listWatchers.add(listener);
    return () => this.listWatchers.delete(listener);
  }

  private listTimer: ReturnType<typeof setTimeout> | null = null;

  /**
   * A session's state changed: list watchers get the list within LIST_EVERY_MS, one list for every change meanwhile
   * (a vector env's episodes start and end many times a second).
   */
  private listSoon(): void {
    if (!this.listWatchers.size || this.listTimer) return;
    this.listTimer = setTimeout(() => {
      this.listTimer = null;
      this.listChanged(false);
    }, LIST_EVERY_MS);
    this.listTimer.unref?.();
  }

  /** Tells list watchers (and, unless only a session's episode changed, the device list, which shows who holds a device). */
  listChanged(devices = true): void {
    if (this.listWatchers.size) {
      const list = this.list();
      for (const l of this.listWatchers) l(list);
    }
    if (devices) this.deps.onDeviceUse();
  }

  private prune(): void {
    // Outside agents' sessions stay while their agents hold them: they finish episodes, not the session.
    const finished = [...this.sessions.values()].filter((s) => s.info.state === 'finished' && s.info.agent === null);
    for (const s of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.sessions.delete(s.info.id);
    if (finished.length > KEEP_FINISHED) this.listChanged();
  }

  private entry(id: string) {
    const e = this.sessions.get(id);
    if (!e) throw new SessionNotFoundError(id);
    return e;
  }

  get(id: string): SessionInfo {
    return this.entry(id).snapshot();
  }

  list(): SessionInfo[] {
    return [...this.sessions.values()].map((s) => s.snapshot());
  }

  control(id: string, command: SessionCommand): SessionInfo {
    const { control, info, snapshot, byHand, emit, listed } = this.entry(id);
    // An outside agent's session takes commands between its episodes too (a pause holds the next one's first step).
    if (info.state === 'finished' && info.agent === null) throw new SessionStateError(id, command, 'finished');
    switch (command) {
      case 'step':
        control.step();
        break;
      case 'run':
        if (byHand) throw new ManualRunError(id);
        control.run();
        break;
      case 'pause':
        control.pause();
        break;
      case 'stop':
        control.stop();
        break;
      case 'takeover':
      case 'handback': {
        const act = command === 'takeover' ? control.takeOver : control.handBack;
        if (!act) throw new SessionStateError(id, command, 'not an outside agent\'s session');
        act();
        // The info says who has the session; the controller's events say the rest.
        if (info.agent) info.agent.takenOver = command === 'takeover';
        emit({ kind: 'state', session: snapshot() });
        listed();
        break;
      }
      default:
        assertNever(command, 'session command');
    }
    return snapshot();
  }

  override(id: string, action: unknown): SessionInfo {
    const { control, info, snapshot, emit } = this.entry(id);
    if (info.state === 'finished') throw new SessionStateError(id, 'override', 'finished');
    control.override(action);
    // Every viewer of the session learns that the next step will use it.
    const session = snapshot();
    emit({ kind: 'state', session });
    return session;
  }

  setBreakpoints(id: string, breakpoints: Breakpoint[]): SessionInfo {
    const { control, info, snapshot, emit } = this.entry(id);
    uniqueIds(breakpoints);
    info.breakpoints = control.setBreakpoints(breakpoints);
    const session = snapshot();
    emit({ kind: 'state', session });
    return session;
  }

  subscribe(id: string, listener: (e: SessionEvent) => void): () => void {
    const e = this.entry(id);
    e.listeners.add(listener);
    return () => e.listeners.delete(listener);
  }

  /** Stops every session on a device and waits for them to end. */
  async stopOn(serial: string): Promise<void> {
    const ending = [...this.sessions.values()].filter((s) => s.info.serial === serial && s.info.state !== 'finished');
    await Promise.all(ending.map((s) => s.control.end()));
  }

  async close(): Promise<void> {
    if (this.listTimer) clearTimeout(this.listTimer);
    const running = [...this.sessions.values()].filter((s) => s.info.state !== 'finished');
    await Promise.all(running.map((s) => s.control.end()));
  }
}
