import { randomUUID } from 'node:crypto';
import { EpisodeController, type ProposalView } from '../episode/controller.js';
import type { Breakpoint } from '../episode/breakpoints.js';
import { ReplayPolicy } from '../episode/policies/replay.js';
import { errorOf, type EpisodeResult, type StepRecord } from '../episode/record.js';
import { createPolicy, loadPolicyModels, PolicyModels, taskOf, type PolicySpec } from '../policy/registry.js';
import { instantiate, type TaskInstance } from '../tasks/instance.js';
import { getTemplate } from '../tasks/registry.js';
import { freeFormInstance } from '../tasks/free-form.js';
import { createRun, finishRun, loadTrajectory, StoreRecorder, type EpisodeId, type WritableDB } from '../store/index.js';
import { assertNever } from '../util/errors.js';
import type { SessionCommand, SessionReplies, SessionStart } from '../api/api.js';
import { parseReplies } from '../policy/vlm/replay.js';
import type { DeviceRegistry } from './devices.js';
import type { AdapterSessionPolicy, CheckpointSessionPolicy, ProposalInfo, SessionEvent, SessionInfo, SessionPolicy, SessionStepInfo, VlmSessionPolicy } from '../api/types.js';

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

function proposalInfo(v: ProposalView): ProposalInfo {
  return {
    index: v.index, action: v.action, description: v.description, target: v.target, thought: v.thought ?? null,
    candidates: v.candidates ?? [], error: v.error ?? null, foreground: v.foreground, handover: v.handover ?? null,
  };
}

function stepInfo(s: StepRecord): SessionStepInfo {
  return {
    index: s.index, action: s.action ?? s.raw, description: s.description ?? null, thought: s.thought ?? null,
    target: s.target ? { bounds: s.target.bounds, label: s.target.label } : null, overridden: s.overridden ?? false,
    error: s.error ?? null, foreground: s.foreground, rewards: {},
  };
}

interface Entry {
  info: SessionInfo;
  controller: EpisodeController;
  listeners: Set<(e: SessionEvent) => void>;
  /** A copy of the info, with the pending override refreshed. */
  snapshot(): SessionInfo;
  emit(e: SessionEvent): void;
  /** The person chooses every action (the manual policy, not a replay's hold): Run is refused. */
  byHand: boolean;
}

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
    for (const s of this.sessions.values()) if (s.info.serial === serial && s.info.state !== 'finished') return s.info.id;
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
      pendingOverride: null,
    };
    const listeners = new Set<(e: SessionEvent) => void>();
    const emit = (e: SessionEvent) => listeners.forEach((l) => l(e));
    const snapshot = (): SessionInfo => {
      info.pendingOverride = controller.pending();
      return structuredClone(info);
    };
    const entry: Entry = { info, controller, listeners, snapshot, emit, byHand };
    this.sessions.set(id, entry);

    controller.on('onState', ({ state }) => {
      info.state = state;
      info.episodeId ??= recorder.episodeId;
      if (state === 'running') {
        info.proposal = null;
        info.hitBreakpoints = [];
      }
      emit({ kind: 'state', session: snapshot() });
    });
    controller.on('onProposal', (v) => {
      info.proposal = proposalInfo(v);
      info.episodeId ??= recorder.episodeId;
      emit({ kind: 'proposal', session: snapshot() });
    });
    controller.on('onBreak', ({ breakpoints }) => {
      info.hitBreakpoints = breakpoints.map((b) => b.id);
      emit({ kind: 'break', session: snapshot(), breakpoints: info.hitBreakpoints });
    });
    controller.on('onStep', (s) => {
      const step = stepInfo(s);
      info.steps.push(step);
      emit({ kind: 'step', session: snapshot(), step });
    });
    controller.on('onFinished', (r: EpisodeResult) => this.finish(entry.info, r, run.id, recorder, emit, snapshot));

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
      emit({ kind: 'finished', session: snapshot() });
      this.deps.onDeviceUse();
    });
    return snapshot();
  }

  private finish(info: SessionInfo, r: EpisodeResult, runId: Parameters<typeof finishRun>[1], recorder: StoreRecorder,
    emit: (e: SessionEvent) => void, snapshot: () => SessionInfo): void {
    finishRun(this.deps.db(), runId, 'finished');
    info.episodeId = recorder.episodeId;
    info.proposal = null;
    info.result = { status: r.status, success: r.success, terminatedBy: r.terminatedBy, error: r.error ?? null, answer: r.outcome.answer ?? null };
    // The rewards as stored (the outcome reward on the last step, more kinds as they are computed).
    if (info.episodeId !== null) {
      const stored = loadTrajectory(this.deps.db(), info.episodeId as EpisodeId).steps;
      for (const s of info.steps) {
        const rewards = stored.find((x) => x.index === s.index)?.rewards ?? {};
        s.rewards = Object.fromEntries(Object.entries(rewards).map(([k, v]) => [k, v.value]));
      }
    }
    emit({ kind: 'finished', session: snapshot() });
    this.deps.onDeviceUse();
    this.prune();
  }

  private prune(): void {
    const finished = [...this.sessions.values()].filter((s) => s.info.state === 'finished');
    for (const s of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.sessions.delete(s.info.id);
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
    const { controller, info, snapshot, byHand } = this.entry(id);
    if (info.state === 'finished') throw new SessionStateError(id, command, 'finished');
    switch (command) {
      case 'step':
        controller.step();
        break;
      case 'run':
        if (byHand) throw new ManualRunError(id);
        controller.run();
        break;
      case 'pause':
        controller.pause();
        break;
      case 'stop':
        controller.stop();
        break;
      default:
        assertNever(command, 'session command');
    }
    return snapshot();
  }

  override(id: string, action: unknown): SessionInfo {
    const { controller, info, snapshot, emit } = this.entry(id);
    if (info.state === 'finished') throw new SessionStateError(id, 'override', 'finished');
    controller.override(action);
    // Every viewer of the session learns that the next step will use it.
    const session = snapshot();
    emit({ kind: 'state', session });
    return session;
  }

  setBreakpoints(id: string, breakpoints: Breakpoint[]): SessionInfo {
    const { controller, info, snapshot, emit } = this.entry(id);
    uniqueIds(breakpoints);
    controller.setBreakpoints(breakpoints);
    info.breakpoints = controller.getBreakpoints();
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
    for (const s of ending) s.controller.stop();
    await Promise.all(ending.map((s) => s.controller.start()));
  }

  async close(): Promise<void> {
    const running = [...this.sessions.values()].filter((s) => s.info.state !== 'finished');
    for (const s of running) s.controller.stop();
    await Promise.all(running.map((s) => s.controller.start()));
  }
}
