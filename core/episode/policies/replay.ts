import type { Observation } from '../../device/observation.js';
import type { Policy, PolicyContext, PolicyDecision } from '../policy.js';
import type { TaskInstance } from '../../tasks/instance.js';

/**
 * Re-executes a recorded action list, then hands over to another policy (an agent or a person),
 * or ends the episode when there is none: "replay on device from step k". With `holdAfter`, the
 * first proposal after the replayed steps is a handover, so a step-through session holds there
 * for the person (without a breakpoint that would outlive the session).
 */
export class ReplayPolicy implements Policy {
  readonly name: string;
  private next = 0;
  private held = false;

  constructor(private readonly actions: readonly unknown[], private readonly then?: Policy, private readonly opts: { holdAfter?: boolean } = {}) {
    this.name = then ? `replay+${then.name}` : 'replay';
  }

  async start(ctx: { instruction: string; instance?: TaskInstance }): Promise<void> {
    this.next = 0;
    this.held = false;
    await this.then?.start?.(ctx);
  }

  async act(obs: Observation, ctx: PolicyContext): Promise<PolicyDecision | null> {
    if (this.next < this.actions.length) return { action: this.actions[this.next++], thought: `Replaying recorded step ${this.next}.` };
    if (!this.then) return null;
    const d = await this.then.act(obs, ctx);
    if (!d || !this.opts.holdAfter || this.held || this.actions.length === 0) return d;
    this.held = true;
    const n = this.actions.length;
    return { ...d, handover: `replayed the first ${n} recorded step${n === 1 ? '' : 's'}; ${d.handover ?? `${this.then.name} proposes the next`}` };
  }
}
