import { parseAction, type Action } from '../actions/schema.js';
import { describeAction } from '../actions/kinds.js';
import { actionElement } from '../actions/target.js';
import type { Observation } from '../device/observation.js';
import { elementLabel, type Bounds } from '../a11y/ui-tree.js';
import { hits, type Breakpoint } from './breakpoints.js';
import { runEpisode, type RunEpisodeOptions, type StepProposal } from './runner.js';
import type { EpisodeResult, StepRecord } from './record.js';

/**
 * Step-through control of one episode, as a debugger controls a program: run, pause, step, stop,
 * breakpoints, and overriding the agent's next action. The episode holds at a *proposal* — the
 * policy has chosen an action for the current screen but it has not been carried out — so a
 * person sees what the agent is about to do and can replace it.
 */
export type ControllerState = 'idle' | 'running' | 'paused' | 'finished';

/** How an action reads and what it touches on the screen it was proposed for (for drawing it). */
export interface ActionSketch {
  /** One line, e.g. `Tap "Save" in Contacts`; null when it does not parse or fit the screen. */
  description: string | null;
  target: { bounds: Bounds; label: string } | null;
}

export interface ProposalView extends ActionSketch {
  index: number;
  /** The proposed action, verbatim. */
  action: unknown;
  thought?: string;
  /** The policy's alternatives, with the softmax of their scores. */
  candidates?: Array<{ action: unknown; score: number; probability: number } & ActionSketch>;
  /** Why it does not parse, if it does not. */
  error?: { name: string; message: string };
  /** The policy wants a person to choose (why): the episode holds here even while running. */
  handover?: string;
  foreground: { package: string; activity: string };
}

export interface ControllerEvents {
  onState: { state: ControllerState; step: number };
  onProposal: ProposalView;
  onBreak: { breakpoints: Breakpoint[]; proposal: ProposalView };
  onStep: StepRecord;
  onFinished: EpisodeResult;
}

type Listener<T> = (event: T) => void;

/** Describes an action against a screen; anything that does not parse or fit gives nulls. */
export function sketchAction(raw: unknown, obs: Observation): ActionSketch {
  let action: Action;
  try {
    action = parseAction(raw);
  } catch {
    return { description: null, target: null };
  }
  let description: string | null = null;
  let target: ActionSketch['target'] = null;
  try {
    description = describeAction(action, obs);
    const el = actionElement(action, obs);
    if (el) target = { bounds: el.node.bounds, label: elementLabel(el) };
  } catch {
    // An index out of range or no focused field: the step would fail the same way; nothing to draw.
  }
  return { description, target };
}

function view(p: StepProposal): ProposalView {
  const v: ProposalView = { index: p.index, action: p.decision.action, foreground: p.obs.foreground, ...sketchAction(p.action ?? p.decision.action, p.obs) };
  if (p.decision.thought !== undefined) v.thought = p.decision.thought;
  const cands = p.decision.candidates;
  if (cands && cands.length) {
    const max = Math.max(...cands.map((c) => c.score));
    const exps = cands.map((c) => Math.exp(c.score - max));
    const total = exps.reduce((a, b) => a + b, 0);
    v.candidates = cands.map((c, i) => ({ action: c.action, score: c.score, probability: exps[i]! / total, ...sketchAction(c.action, p.obs) }));
  }
  if (p.error) v.error = p.error;
  if (p.decision.handover !== undefined) v.handover = p.decision.handover;
  return v;
}

export class EpisodeController {
  private stateValue: ControllerState = 'idle';
  private mode: 'run' | 'pause' = 'pause';
  private stopRequested = false;
  private pendingOverride: unknown = undefined;
  /** The latest proposal (its screen is what a pending override is sketched against). */
  private latest: StepProposal | null = null;
  private release: (() => void) | null = null;
  private stepIndex = 0;
  private breakpoints: Breakpoint[] = [];
  private readonly listeners: { [K in keyof ControllerEvents]: Set<Listener<ControllerEvents[K]>> } = {
    onState: new Set(), onProposal: new Set(), onBreak: new Set(), onStep: new Set(), onFinished: new Set(),
  };
  private resultPromise: Promise<EpisodeResult> | null = null;
  /** The proposal the episode is holding at, if paused at one. */
  current: ProposalView | null = null;

  constructor(private readonly opts: Omit<RunEpisodeOptions, 'hooks'>, init: { breakpoints?: Breakpoint[]; startPaused?: boolean } = {}) {
    this.breakpoints = [...(init.breakpoints ?? [])];
    this.mode = init.startPaused === false ? 'run' : 'pause';
  }

  get state(): ControllerState {
    return this.stateValue;
  }

  on<K extends keyof ControllerEvents>(event: K, listener: Listener<ControllerEvents[K]>): () => void {
    this.listeners[event].add(listener);
    return () => this.listeners[event].delete(listener);
  }

  private emit<K extends keyof ControllerEvents>(event: K, payload: ControllerEvents[K]): void {
    for (const l of this.listeners[event]) l(payload);
  }

  private setState(s: ControllerState): void {
    if (this.stateValue === s) return;
    this.stateValue = s;
    this.emit('onState', { state: s, step: this.stepIndex });
  }

  setBreakpoints(list: Breakpoint[]): void {
    this.breakpoints = [...list];
  }

  getBreakpoints(): Breakpoint[] {
    return [...this.breakpoints];
  }

  /** Starts the episode (held at the first proposal unless started with startPaused: false). */
  start(): Promise<EpisodeResult> {
    if (this.resultPromise) return this.resultPromise;
    this.setState('running');
    this.resultPromise = runEpisode({
      ...this.opts,
      onStep: (step, obs) => {
        this.stepIndex = step.index + 1;
        this.emit('onStep', step);
        this.opts.onStep?.(step, obs);
      },
      hooks: {
        beforeStep: async () => (this.stopRequested ? 'stop' : 'continue'),
        beforeAct: (p) => this.atProposal(p),
      },
    }).then((result) => {
      this.current = null;
      this.setState('finished');
      this.emit('onFinished', result);
      return result;
    });
    return this.resultPromise;
  }

  private async atProposal(p: StepProposal): Promise<{ override?: unknown; stop?: boolean }> {
    const v = view(p);
    this.latest = p;
    this.emit('onProposal', v);
    if (this.stopRequested) return { stop: true };
    // Evaluated while stepping too, as a debugger reports the breakpoint a step lands on.
    const hit = hits(this.breakpoints, p);
    if (hit.length) {
      this.mode = 'pause';
      this.emit('onBreak', { breakpoints: hit, proposal: v });
    }
    // Running on would record the placeholder the policy proposed; hold for the person instead.
    if (v.handover !== undefined) this.mode = 'pause';
    if (this.mode === 'pause') {
      this.current = v;
      this.setState('paused');
      await new Promise<void>((resolve) => {
        this.release = resolve;
      });
      this.release = null;
      this.current = null;
      this.setState('running');
      if (this.stopRequested) return { stop: true };
    }
    const override = this.pendingOverride;
    this.pendingOverride = undefined;
    return override === undefined ? {} : { override };
  }

  private resume(mode: 'run' | 'pause'): void {
    this.mode = mode;
    this.release?.();
  }

  /** Carry on until a breakpoint or the end. */
  run(): void {
    this.resume('run');
  }

  /** Carry out the held proposal (or the override), then hold at the next one. */
  step(): void {
    this.resume('pause');
  }

  /** Hold at the next proposal. */
  pause(): void {
    this.mode = 'pause';
  }

  /** End the episode; it is recorded as stopped. */
  stop(): void {
    this.stopRequested = true;
    this.release?.();
  }

  /**
   * Replaces the agent's next action (the held proposal when paused). Throws ActionParseError for
   * a malformed action, so the person gets the error, not the episode.
   */
  override(action: unknown): void {
    this.pendingOverride = parseAction(action);
  }

  /** The override the next step will carry out, sketched on the latest proposal's screen; null if none. */
  pending(): ({ action: unknown } & ActionSketch) | null {
    if (this.pendingOverride === undefined) return null;
    const sketch = this.latest ? sketchAction(this.pendingOverride, this.latest.obs) : { description: null, target: null };
    return { action: this.pendingOverride, ...sketch };
  }
}
