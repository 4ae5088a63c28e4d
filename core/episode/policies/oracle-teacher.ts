import { parseAction, type Action } from '../../actions/schema.js';
import type { Observation } from '../../device/observation.js';
import type { TaskInstance } from '../../tasks/instance.js';
import type { StepRecord } from '../record.js';
import type { PolicyContext } from '../policy.js';
import { OraclePolicy } from './oracle.js';

/** The same action whatever the order of its fields. */
const same = (a: Action | undefined, b: Action) => a !== undefined && JSON.stringify(a, Object.keys(a).sort()) === JSON.stringify(b, Object.keys(b).sort());

/**
 * The oracle as a teacher on another policy's states: what it would do next on the screen the other policy reached
 * (DAgger's expert labels; Ross, Gordon & Bagnell 2011). Every step another policy took that is not what the oracle
 * proposed counts as an override, so the oracle re-plans from the live screen as it does after a person's override
 * (OraclePolicy). Where its script cannot go on from that screen there is no label (null).
 */
export class OracleTeacher {
  private readonly oracle = new OraclePolicy();
  private readonly proposed = new Map<number, Action>();

  start(ctx: { instance?: TaskInstance }): void {
    this.oracle.start(ctx);
    this.proposed.clear();
  }

  label(obs: Observation, ctx: PolicyContext): Action | null {
    const history: StepRecord[] = ctx.history.map((h) => {
      const p = this.proposed.get(h.index);
      return p && !same(h.action, p) ? { ...h, overridden: true } : h;
    });
    const decision = this.oracle.act(obs, { ...ctx, history });
    if (decision.handover) return null;
    const action = parseAction(decision.action);
    this.proposed.set(ctx.step, action);
    return action;
  }
}
