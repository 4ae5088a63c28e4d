import { afterAll, describe, expect, it } from 'vitest';
import type { Action } from '../../core/actions/schema.js';
import { OracleTeacher } from '../../core/episode/policies/oracle-teacher.js';
import type { Policy } from '../../core/episode/policy.js';
import { runEpisode } from '../../core/episode/runner.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { device } from '../helpers/simdroid.js';

/** The oracle labelling another policy's states (DAgger's teacher): it re-plans after steps that were not its own. */
const d = device();
afterAll(() => d.close());

/** A learner that does `own(step)` when it returns an action, and otherwise follows the teacher's label. */
function learner(teacher: OracleTeacher, own: (step: number, label: Action | null) => Action | null, labels: (Action | null)[]): Policy {
  return {
    name: 'learner',
    start: (ctx) => teacher.start(ctx),
    act(obs, ctx) {
      const label = teacher.label(obs, ctx);
      labels.push(label);
      return { action: own(ctx.step, label) ?? label ?? { action_type: 'wait' } };
    },
  };
}

describe('OracleTeacher', () => {
  it("labels the oracle's next action after a step it did not propose, and following its labels from there solves the task", async () => {
    const teacher = new OracleTeacher();
    const labels: (Action | null)[] = [];
    // Step 1 is the learner's own (a wait): the oracle's second action is still to do, so it is proposed again at step 2.
    const r = await runEpisode({
      device: d, instance: instantiate(getTemplate('ContactsAddContact'), 0),
      policy: learner(teacher, (step) => (step === 1 ? { action_type: 'wait' } : null), labels),
    });
    expect(r.success).toBe(true);
    expect(labels[2]).toEqual(labels[1]);
    expect(labels.every((l) => l !== null)).toBe(true);
    expect(labels.at(-1)).toEqual({ action_type: 'status', goal_status: 'complete' });
  });

  it('gives no label where its script cannot go on from the screen the learner reached', async () => {
    const teacher = new OracleTeacher();
    const labels: (Action | null)[] = [];
    // Going home right after opening Contacts leaves the oracle's next tap with nothing to tap.
    await runEpisode({
      device: d, instance: instantiate(getTemplate('ContactsAddContact'), 0), maxSteps: 4,
      policy: learner(teacher, (step) => (step === 1 ? { action_type: 'navigate_home' } : step > 1 ? { action_type: 'wait' } : null), labels),
    });
    expect(labels[0]).toMatchObject({ action_type: 'open_app' });
    expect(labels[2]).toBeNull();
  });
});
