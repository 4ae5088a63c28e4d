import type { Action } from '../../actions/schema.js';
import type { Observation } from '../../device/observation.js';
import type { TaskInstance } from '../../tasks/instance.js';
import { OracleUi } from '../../tasks/oracle.js';
import type { OracleScript } from '../../tasks/task.js';
import type { StepRecord } from '../record.js';
import type { Policy, PolicyContext, PolicyDecision } from '../policy.js';

export class OracleUnavailableError extends Error {
  override name = 'OracleUnavailableError';
  constructor() {
    super('The oracle policy needs a task instance (free-form instructions have no scripted solution)');
  }
}

const COMPLETE: Action = { action_type: 'status', goal_status: 'complete' };
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The step carried out what the oracle proposed (a person may have overridden it with something else). */
function followed(step: StepRecord, proposed: Action): boolean {
  return !step.overridden || same(step.action ?? step.raw, proposed);
}

/**
 * The template's scripted solution, driven one action per step from the live screen.
 *
 * Closed loop: a script is a generator that reads the screen it is resumed on, so it is a pure
 * function of the screens it was shown. When a person overrides a step with another action, the
 * script's idea of where it is no longer holds; the oracle rebuilds it by replaying a fresh script
 * over the screens of the steps it did carry out and then resuming it on the live screen, i.e. it
 * retries the overridden step's intent from where the device is now (an overridden Save is
 * proposed again instead of a wrong "complete"). When the script cannot go on from that screen it
 * hands over to the person (a `wait` with `handover`, which holds a step-through session) and
 * tries again after each of their steps.
 */
export class OraclePolicy implements Policy {
  readonly name = 'oracle';
  private instance: TaskInstance | null = null;
  private script: OracleScript | null = null;
  private readonly ui = new OracleUi();
  private finished = false;
  /** The steps whose scripted action was carried out: the screen it was chosen on and the action. */
  private carried: Array<{ obs: Observation; action: Action }> = [];
  private proposed: { index: number; obs: Observation; action: Action } | null = null;
  /** A person's override broke the script's position; it is rebuilt from the live screen. */
  private diverged = false;

  start(ctx: { instance?: TaskInstance }): void {
    if (!ctx.instance) throw new OracleUnavailableError();
    this.instance = ctx.instance;
    this.script = ctx.instance.template.oracle(ctx.instance.params, this.ui);
    this.finished = false;
    this.carried = [];
    this.proposed = null;
    this.diverged = false;
  }

  act(obs: Observation, ctx: PolicyContext): PolicyDecision {
    if (!this.script) {
      if (!ctx.instance) throw new OracleUnavailableError();
      this.start(ctx);
    }
    const last = ctx.history.at(-1);
    if (this.proposed && last?.index === this.proposed.index) {
      if (followed(last, this.proposed.action)) this.carried.push({ obs: this.proposed.obs, action: this.proposed.action });
      else this.diverged = true;
    }
    this.proposed = null;
    if (this.diverged) return this.replan(obs, ctx.step);
    this.ui.update(obs);
    if (this.finished) return this.propose(ctx.step, obs, COMPLETE);
    const r = this.script!.next();
    if (r.done) {
      this.finished = true;
      return { ...this.propose(ctx.step, obs, COMPLETE), thought: 'The scripted solution is done.' };
    }
    return this.propose(ctx.step, obs, r.value);
  }

  private propose(index: number, obs: Observation, action: Action): PolicyDecision {
    this.proposed = { index, obs, action };
    return { action };
  }

  /** A fresh script replayed over the carried-out steps' screens, then resumed on the live screen. */
  private replan(obs: Observation, index: number): PolicyDecision {
    const script = this.instance!.template.oracle(this.instance!.params, this.ui);
    let next: IteratorResult<Action, void>;
    try {
      for (const c of this.carried) {
        this.ui.update(c.obs);
        const r = script.next();
        if (r.done || !same(r.value, c.action)) return this.handover('its script no longer retraces the steps already taken');
      }
      this.ui.update(obs);
      next = script.next();
    } catch (e) {
      return this.handover(e instanceof Error ? e.message.split('\n')[0]! : String(e));
    }
    this.script = script;
    this.diverged = false;
    this.finished = next.done === true;
    const action = next.done ? COMPLETE : next.value;
    return { ...this.propose(index, obs, action), thought: 'Re-planned from this screen after your override.' };
  }

  private handover(why: string): PolicyDecision {
    return {
      action: { action_type: 'wait' },
      thought: `The oracle cannot go on from this screen after the override (${why}). Take over: choose an action, then Step; it tries again after each step.`,
      handover: `oracle lost after an override: ${why}`,
    };
  }
}
