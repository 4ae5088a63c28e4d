import { elementLabel, flattenUiTree } from '../../core/a11y/ui-tree.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import type { Policy } from '../../core/episode/policy.js';

/**
 * A failure on a real SimDroid: the oracle's path, but going back (twice) instead of tapping Save,
 * then declaring the task complete (the analysis tests and the Trajectories view's tests share it).
 */
export function backInsteadOfSave(): Policy {
  const oracle = new OraclePolicy();
  let backs = 0;
  return {
    name: 'back-instead-of-save',
    start: (ctx) => oracle.start(ctx),
    act: async (obs, ctx) => {
      // The first Back only hides the keyboard (the same screen, as alignment sees it); the second leaves the form.
      if (backs === 2) return { action: { action_type: 'status', goal_status: 'complete' } };
      if (backs === 1) {
        backs++;
        return { action: { action_type: 'navigate_back' } };
      }
      const d = await oracle.act(obs, ctx);
      const a = d?.action as { action_type?: string; index?: number } | undefined;
      if (a?.action_type === 'click' && elementLabel(flattenUiTree(obs.tree)[a.index!]!) === 'Save') {
        backs++;
        return { action: { action_type: 'navigate_back' } };
      }
      return d;
    },
  };
}
