import type { Device } from '../device/device.js';
import { observe, type Observation } from '../device/observation.js';
import type { Breakpoint } from '../episode/breakpoints.js';
import { EpisodeController } from '../episode/controller.js';
import type { Policy, PolicyContext, PolicyDecision } from '../episode/policy.js';
import type { EpisodeResult, StepRecord } from '../episode/record.js';
import { DEFAULT_MAX_STEPS, type ScreenshotMode } from '../episode/runner.js';
import { serializeUiTree } from '../a11y/ui-tree.js';
import { StoreRecorder, type RunId, type WritableDB } from '../store/index.js';
import type { TaskInstance } from '../tasks/instance.js';
import { agentDecision } from './agent-action.js';
import { encodeObservation } from './observation.js';
import { EpisodeEndedError, EpisodeNotStartedError, SessionBusyError, type ObservationSpec, type StepRequest, type TaskSpec } from './protocol.js';
import { finalStepResult, resetResult, stepResult, type EnvResult } from './results.js';
import type { EpisodeRewardStream } from './rewards.js';
import { TaskSource } from './tasks.js';

/**
 * One outside agent's session (docs/env-protocol.md): a device, a task source, and one episode at a time. Each episode
 * is run by the workbench's one runner under an EpisodeController — the agent is its policy: when the runner asks for
 * a decision, the screen goes to the agent as the answer to its pending `reset` or `step`, and the agent's next `step`
 * is the decision — so every episode is recorded like any other, and a person in the workbench can pause it, step it,
 * override the agent's action or take over, through the same controller the Agent view drives.
 */

/** A person's command that would record a step nobody chose (the placeholder a taken-over session holds at). */
export class SessionControlError extends Error {
  override name = 'SessionControlError';
  constructor(readonly session: string, readonly command: string, reason: string) {
    super(`Session ${session}: cannot ${command}: ${reason}`);
  }
}

/** The device failed while serving the agent (the episode, if any, ended as an environment error). */
export class EnvironmentError extends Error {
  override name = 'EnvironmentError';
}

export interface SessionOptions {
  id: string;
  agent: string;
  device: Device;
  task: TaskSpec;
  observation: ObservationSpec;
  record: ScreenshotMode;
  rewards: EpisodeRewardStream;
  maxSteps?: number | undefined;
  onMalformed: 'continue' | 'end';
  db(): WritableDB;
  runId: RunId;
  /** To the agent's connection: its pending step waits for a person, or goes on. */
  notify(event: { event: 'held'; reason: string } | { event: 'released' }): void;
  log(message: string): void;
}

/** What a workbench watching the session is told: a new episode (its controller to watch and steer), or the end. */
export type EnvSessionEvent = { kind: 'episode'; controller: EpisodeController; instance: TaskInstance; recorder: StoreRecorder } | { kind: 'closed' };

interface Episode {
  instance: TaskInstance;
  controller: EpisodeController;
  recorder: StoreRecorder;
  done: Promise<EpisodeResult>;
  steps: StepRecord[];
  /** The uiautomator XML each step was taken on (for the reward components). */
  trees: string[];
  /** Steps already reported to the agent. */
  delivered: number;
  /** Reward already given to the agent in this episode. */
  given: number;
  result: EpisodeResult | null;
}

interface Pending {
  op: 'reset' | 'step';
  resolve(r: EnvResult): void;
  reject(e: unknown): void;
}

const TAKEN_OVER = 'A person took over from the agent in the workbench: choose the next action, then hand back';

export class EnvSession {
  readonly id: string;
  readonly agent: string;
  readonly device: Device;
  private task: TaskSource;
  private episode: Episode | null = null;
  private busy: string | null = null;
  private pending: Pending | null = null;
  /** Where the agent's next decision goes: the runner waiting in the policy, or a revision of a held proposal. */
  private toRunner: ((d: PolicyDecision) => void) | null = null;
  /** The screen the agent is deciding on. */
  private turn: Observation | null = null;
  private closed = false;
  private readonly watchers = new Set<(e: EnvSessionEvent) => void>();
  // A person's hold on the session, kept across episodes.
  private paused = false;
  private breakpoints: Breakpoint[] = [];
  private takenOver = false;
  /** The runner is held at the placeholder the policy proposed while a person has the session. */
  private placeholderHeld = false;
  /** Handed back while held at the placeholder: the agent's next action will replace it. */
  private handingBack = false;
  private heldNotice = false;

  constructor(private readonly opts: SessionOptions) {
    this.id = opts.id;
    this.agent = opts.agent;
    this.device = opts.device;
    this.task = new TaskSource(opts.task);
  }

  get controller(): EpisodeController | null {
    return this.episode?.controller ?? null;
  }

  get instance(): TaskInstance | null {
    return this.episode?.instance ?? null;
  }

  watch(listener: (e: EnvSessionEvent) => void): () => void {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  /** One request at a time per session (SessionBusyError); the work runs with the claim held. */
  private async claimed<T>(op: string, work: () => Promise<T>): Promise<T> {
    if (this.busy) throw new SessionBusyError(this.id, this.busy);
    this.busy = op;
    try {
      return await work();
    } finally {
      this.busy = null;
    }
  }

  private wait(op: Pending['op']): Promise<EnvResult> {
    return new Promise((resolve, reject) => {
      this.pending = { op, resolve, reject };
    });
  }

  /** Answers the pending request with `how`'s result (or error); the work is kept so close() can wait for it. */
  private settlePending(how: (p: Pending) => Promise<EnvResult>): void {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    this.clearHeld();
    const work = how(p).then(p.resolve, p.reject);
    this.answering = this.answering.then(() => work);
  }

  private answering: Promise<void> = Promise.resolve();

  reset(seed: number | undefined, task: TaskSpec | undefined): Promise<EnvResult> {
    return this.claimed('reset', async () => {
      if (task) this.task = new TaskSource(task);
      await this.endEpisode('aborted');
      const instance = this.task.next(seed);
      const result = this.wait('reset');
      this.startEpisode(instance);
      return result;
    });
  }

  step(req: StepRequest): Promise<EnvResult> {
    return this.claimed('step', async () => {
      const ep = this.episode;
      if (!ep) throw new EpisodeNotStartedError(this.id);
      if (ep.result || !this.toRunner || !this.turn) throw new EpisodeEndedError(this.id, ep.recorder.episodeId);
      const decision = agentDecision(req, this.turn, ep.instance, this.opts.observation);
      const give = this.toRunner;
      this.toRunner = null;
      this.turn = null;
      const result = this.wait('step');
      give(decision);
      return result;
    });
  }

  /** The screen now, without acting (AndroidWorld's get_state). */
  observe(): Promise<EnvResult> {
    return this.claimed('observe', async () => {
      const shots = this.opts.observation.screenshot === 'png' ? { screenshot: true, scale: this.opts.observation.scale } : {};
      const obs = await observe(this.device, shots).catch((e: unknown) => {
        throw new EnvironmentError(`${this.device.serial}: ${(e as Error).message}`);
      });
      const blobs: Uint8Array[] = [];
      const goal = this.episode?.instance.instruction ?? '';
      const observation = await encodeObservation(this.device, obs, this.opts.observation, { goal, step: this.episode?.steps.length ?? 0 }, blobs);
      return { value: { observation }, blobs };
    });
  }

  /** Ends the session: an unfinished episode is recorded as aborted. Idempotent. */
  async close(): Promise<number> {
    if (this.closed) return this.episodes;
    this.closed = true;
    await this.endEpisode('aborted');
    // The aborted episode's last answer (observing the device) ends before the device is handed back.
    await this.answering;
    this.pending?.reject(new EpisodeEndedError(this.id, this.episode?.recorder.episodeId ?? null));
    this.pending = null;
    for (const w of this.watchers) w({ kind: 'closed' });
    this.watchers.clear();
    return this.episodes;
  }

  private episodes = 0;

  private startEpisode(instance: TaskInstance): void {
    const recorder = new StoreRecorder(this.opts.db(), this.opts.runId);
    const policy: Policy = { name: this.agent, act: (obs, ctx) => this.agentTurn(obs, ctx) };
    const controller = new EpisodeController({
      device: this.device, instance, policy, recorder, screenshots: this.opts.record, onMalformed: this.opts.onMalformed,
      ...(this.opts.maxSteps !== undefined ? { maxSteps: this.opts.maxSteps } : {}),
      onStep: (step, obs) => {
        ep.steps.push(step);
        ep.trees.push(serializeUiTree(obs.tree));
      },
    }, { breakpoints: this.breakpoints, startPaused: this.paused || this.takenOver });
    const ep: Episode = { instance, controller, recorder, done: null!, steps: [], trees: [], delivered: 0, given: 0, result: null };
    this.episode = ep;
    this.episodes++;
    this.opts.rewards.reset();
    controller.on('onState', ({ state }) => {
      if (state === 'paused' && this.pending?.op === 'step' && !this.heldNotice) {
        this.heldNotice = true;
        this.opts.notify({ event: 'held', reason: this.takenOver ? 'taken over by a person in the workbench' : 'paused in the workbench' });
      } else if (state === 'running') this.clearHeld();
    });
    controller.on('onFinished', (result) => this.episodeEnded(ep, result));
    // Watchers attach before it starts, so they see every event of the episode.
    for (const w of this.watchers) w({ kind: 'episode', controller, instance, recorder });
    ep.done = controller.start();
  }

  private clearHeld(): void {
    if (!this.heldNotice) return;
    this.heldNotice = false;
    this.opts.notify({ event: 'released' });
  }

  /** The runner asks the agent: the screen goes to the agent's pending request, the agent's next step comes back. */
  private agentTurn(obs: Observation, ctx: PolicyContext): Promise<PolicyDecision> | PolicyDecision {
    if (this.takenOver) {
      this.placeholderHeld = true;
      return { action: { action_type: 'wait' }, handover: TAKEN_OVER };
    }
    return this.handToAgent(obs, ctx.step, (d) => d);
  }

  private handToAgent(obs: Observation, step: number, route: (d: PolicyDecision) => PolicyDecision | void): Promise<PolicyDecision> {
    const ep = this.episode!;
    this.turn = obs;
    const decided = new Promise<PolicyDecision>((resolve) => {
      this.toRunner = (d) => {
        const r = route(d);
        if (r) resolve(r);
      };
    });
    this.settlePending(async (p) => {
      const blobs: Uint8Array[] = [];
      const observation = await encodeObservation(this.device, obs, this.opts.observation, { goal: ep.instance.instruction, step }, blobs);
      if (p.op === 'reset') return resetResult(ep, this.opts.maxSteps ?? ep.instance.template.maxSteps ?? DEFAULT_MAX_STEPS, observation, blobs);
      const values = await this.opts.rewards.provisional(ep.instance, ep.steps, ep.trees, ep.delivered);
      const r = stepResult(ep.steps.slice(ep.delivered), observation, blobs, values);
      ep.delivered = ep.steps.length;
      ep.given += values.total;
      return r;
    });
    return decided;
  }

  private episodeEnded(ep: Episode, result: EpisodeResult): void {
    ep.result = result;
    this.toRunner = null;
    this.turn = null;
    this.placeholderHeld = false;
    this.handingBack = false;
    this.settlePending(async (p) => {
      if (p.op === 'reset') throw new EnvironmentError(result.error ? `${result.error.name}: ${result.error.message}` : `the episode ended before its first step (${result.terminatedBy})`);
      const settled = ep.recorder.episodeId !== null ? await this.opts.rewards.settle(ep.recorder.episodeId) : null;
      const provisional = await this.opts.rewards.provisional(ep.instance, ep.steps, ep.trees, ep.delivered);
      const blobs: Uint8Array[] = [];
      let observation: Record<string, unknown> | null = null;
      try {
        const obs = await observe(this.device, this.opts.observation.screenshot === 'png' ? { screenshot: true, scale: this.opts.observation.scale } : {});
        observation = await encodeObservation(this.device, obs, this.opts.observation, { goal: ep.instance.instruction, step: ep.steps.length }, blobs);
      } catch (e) {
        // The device failed (the episode's own error says so); the agent still gets its result.
        this.opts.log(`session ${this.id}: final observation: ${(e as Error).message}`);
      }
      const r = finalStepResult(ep, result, observation, blobs, provisional, settled);
      ep.delivered = ep.steps.length;
      return r;
    });
  }

  /** Ends the running episode from outside (the agent reset or left): the runner is released wherever it waits. */
  private async endEpisode(how: 'aborted'): Promise<void> {
    const ep = this.episode;
    if (!ep || ep.result) return;
    ep.controller.stop(how);
    // The runner may be waiting for the agent's decision: give it one, which the stop request then discards.
    const give = this.toRunner;
    this.toRunner = null;
    give?.({ action: { action_type: 'wait' } });
    await ep.done;
  }

  // --- a person in the workbench (the Agent view) ---

  pause(): void {
    this.paused = true;
    this.episode?.controller.pause();
  }

  run(): void {
    if (this.takenOver) throw new SessionControlError(this.id, 'run', 'a person has it: hand it back to let the agent run');
    this.refuseWhileHandingBack('run');
    this.paused = false;
    this.episode?.controller.run();
  }

  /** One step, then hold again. (While a person has the session, their steps leave the agent's mode as it was.) */
  stepOnce(): void {
    this.refuseWhileHandingBack('step');
    const c = this.episode?.controller;
    if (this.takenOver && this.placeholderHeld && c && c.pending() === null) {
      throw new SessionControlError(this.id, 'step', 'the person has the session: choose the action first (click the screen, or an action)');
    }
    if (!this.takenOver) this.paused = true;
    c?.step();
  }

  private refuseWhileHandingBack(command: string): void {
    if (this.handingBack) throw new SessionControlError(this.id, command, 'it was handed back and the agent is choosing its next action: wait for it');
  }

  /**
   * Ends the episode as stopped by a person. Held at a proposal, it ends now and the agent's pending step gets the end
   * (truncated); while the agent is deciding, its next step does.
   */
  stop(): void {
    const ep = this.episode;
    if (ep && !ep.result) ep.controller.stop('stopped');
  }

  override(action: unknown): void {
    this.episode?.controller.override(action);
  }

  setBreakpoints(list: Breakpoint[]): void {
    this.breakpoints = [...list];
    this.episode?.controller.setBreakpoints(list);
  }

  /** A person takes the session: the agent's next action is held, and the person chooses until handBack. */
  takeOver(): void {
    if (this.takenOver) return;
    this.takenOver = true;
    this.episode?.controller.pause();
  }

  /**
   * The agent gets the session back. If the runner is held at the person's placeholder, the agent's pending step is
   * answered with the screen now (and the person's steps), and its next action replaces the placeholder.
   */
  handBack(): void {
    if (!this.takenOver) return;
    this.takenOver = false;
    const ep = this.episode;
    const mode = this.paused ? 'pause' : 'run';
    if (!ep || ep.result) return;
    if (this.placeholderHeld && ep.controller.held) {
      this.placeholderHeld = false;
      const obs = ep.controller.heldObservation();
      if (obs) {
        this.handingBack = true;
        this.handToAgent(obs, ep.steps.length, (d) => {
          this.handingBack = false;
          ep.controller.revise(d, mode);
        });
        return;
      }
    }
    if (mode === 'run') ep.controller.run();
  }
}
