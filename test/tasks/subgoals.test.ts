import { afterAll, describe, expect, it } from 'vitest';
import { TASKS } from '../../core/tasks/registry.js';
import { instantiate } from '../../core/tasks/instance.js';
import { resetForTask } from '../../core/episode/runner.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import { observe } from '../../core/device/observation.js';
import { parseAction, isTerminal } from '../../core/actions/schema.js';
import { executeAction } from '../../core/actions/execute.js';
import { device } from '../helpers/simdroid.js';

/**
 * Ground-truth subgoals are what milestone and progress rewards will be scored against, so each
 * template's oracle must pass through all of them, in order: after every step the next unmet
 * subgoal is checked against the new screen and state (a sequential pointer, as ADMIRE matches
 * milestones).
 */
const d = device();
afterAll(() => d.close());

describe.each(TASKS.map((t) => [t.id, t] as const))('%s', (_id, template) => {
  it('oracle reaches every subgoal in order', async () => {
    for (const seed of [0, 1, 2]) {
      const instance = instantiate(template, seed);
      const subgoals = template.subgoals(instance.params);
      await resetForTask(d, instance);
      const policy = new OraclePolicy();
      policy.start({ instance });
      const start = await observe(d);
      // A subgoal list already complete at the start would give progress for doing nothing.
      expect(await subgoals[subgoals.length - 1]!.check({ device: d, obs: start }), `seed ${seed}: last subgoal met before any action`).toBe(false);
      let reached = 0;
      const advance = async () => {
        const obs = await observe(d);
        while (reached < subgoals.length && (await subgoals[reached]!.check({ device: d, obs }))) reached++;
        return obs;
      };
      // As many steps as the template allows its runs (its oracle needs no more).
      for (let step = 0; step < Math.max(60, template.maxSteps ?? 0); step++) {
        const obs = await advance();
        const action = parseAction(policy.act(obs, { instruction: instance.instruction, step, history: [], instance }).action);
        if (isTerminal(action)) break;
        await executeAction(d, action, obs);
      }
      await advance();
      expect({ seed, reached: subgoals.slice(0, reached).map((s) => s.name), missing: subgoals.slice(reached).map((s) => s.name) })
        .toEqual({ seed, reached: subgoals.map((s) => s.name), missing: [] });
    }
  });
});
