import type { Observation } from '../../device/observation.js';
import type { Policy, PolicyDecision } from '../policy.js';

/**
 * A person choosing each action from outside (the UI, a terminal): `act` waits until `supply`
 * gives the next action, or `end` says there will be no more.
 */
export class HumanPolicy implements Policy {
  readonly name = 'human';
  private waiting: ((d: PolicyDecision | null) => void) | null = null;
  private queued: Array<PolicyDecision | null> = [];
  /** The screen the person is deciding on (for a UI that shows it). */
  lastObservation: Observation | null = null;

  /** `onAwait` is told each time the episode starts waiting for the person, with the screen. */
  constructor(private readonly onAwait?: (obs: Observation) => void) {}

  act(obs: Observation): Promise<PolicyDecision | null> {
    this.lastObservation = obs;
    const q = this.queued.shift();
    if (q !== undefined) return Promise.resolve(q);
    const next = new Promise<PolicyDecision | null>((resolve) => {
      this.waiting = resolve;
    });
    this.onAwait?.(obs);
    return next;
  }

  /** True while the episode waits for the person's next action. */
  get awaiting(): boolean {
    return this.waiting !== null;
  }

  supply(action: unknown, thought?: string): void {
    this.deliver({ action, ...(thought !== undefined ? { thought } : {}) });
  }

  end(): void {
    this.deliver(null);
  }

  private deliver(d: PolicyDecision | null): void {
    const w = this.waiting;
    if (w) {
      this.waiting = null;
      w(d);
    } else {
      this.queued.push(d);
    }
  }
}
