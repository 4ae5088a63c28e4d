import type { Observation } from '../../device/observation.js';
import type { TaskInstance } from '../../tasks/instance.js';
import { OracleUi } from '../../tasks/oracle.js';
import type { OracleScript } from '../../tasks/task.js';
import type { Policy, PolicyContext, PolicyDecision } from '../policy.js';

export class OracleUnavailableError extends Error {
  override name = 'OracleUnavailableError';
  constructor() {
    super('The oracle policy needs a task instance (free-form instructions have no scripted solution)');
  }
}

/** The template's scripted solution, driven one action per step from the live screen. */
export class OraclePolicy implements Policy {
  readonly name = 'oracle';
  private script: OracleScript | null = null;
  private readonly ui = new OracleUi();
  private finished = false;

  start(ctx: { instance?: TaskInstance }): void {
    if (!ctx.instance) throw new OracleUnavailableError();
    this.script = ctx.instance.template.oracle(ctx.instance.params, this.ui);
    this.finished = false;
  }

  act(obs: Observation, ctx: PolicyContext): PolicyDecision {
    if (!this.script) {
      if (!ctx.instance) throw new OracleUnavailableError();
      this.start(ctx);
    }
    this.ui.update(obs);
    if (this.finished) return { action: { action_type: 'status', goal_status: 'complete' } };
    const r = this.script!.next();
    if (r.done) {
      this.finished = true;
      return { action: { action_type: 'status', goal_status: 'complete' }, thought: 'The scripted solution is done.' };
    }
    return { action: r.value };
  }
}
