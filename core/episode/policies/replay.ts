import type { Observation } from '../../device/observation.js';
import type { Policy, PolicyContext, PolicyDecision } from '../policy.js';
import type { TaskInstance } from '../../tasks/instance.js';

/**
 * Re-executes a recorded action list, then hands over to another policy (an agent or a person),
 * or ends the episode when there is none: "replay on device from step k".
 */
export class ReplayPolicy implements Policy {
  readonly name: string;
  private next = 0;

  constructor(private readonly actions: readonly unknown[], private readonly then?: Policy) {
    this.name = then ? `replay+${then.name}` : 'replay';
  }

  async start(ctx: { instruction: string; instance?: TaskInstance }): Promise<void> {
    this.next = 0;
    await this.then?.start?.(ctx);
  }

  async act(obs: Observation, ctx: PolicyContext): Promise<PolicyDecision | null> {
    if (this.next < this.actions.length) return { action: this.actions[this.next++], thought: `Replaying recorded step ${this.next}.` };
    return this.then ? this.then.act(obs, ctx) : null;
  }
}
