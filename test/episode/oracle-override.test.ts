import { afterAll, describe, expect, it } from 'vitest';
import { EpisodeController } from '../../core/episode/controller.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import { ManualPolicy } from '../../core/episode/policies/manual.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { device } from '../helpers/simdroid.js';

/** Overriding a step of the oracle: it re-plans from the live screen or hands over, never a silent wrong "complete". */
const d = device();
afterAll(() => d.close());
const addContact = () => instantiate(getTemplate('ContactsAddContact'), 0);
const until = async (cond: () => boolean) => {
  for (let i = 0; i < 400 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
};

/** Steps the held proposals until one matches, returning its index. */
async function stepUntil(c: EpisodeController, match: (description: string) => boolean): Promise<number> {
  for (let i = 0; i < 15; i++) {
    await until(() => c.state === 'paused' && c.current !== null);
    if (match(c.current!.description ?? '')) return c.current!.index;
    const at = c.current!.index;
    c.step();
    await until(() => c.state === 'paused' && (c.current?.index ?? -1) > at);
  }
  throw new Error('no such proposal');
}

describe('closed-loop oracle', () => {
  it('proposes Save again after Save was overridden by typing, and the contact is saved', async () => {
    const c = new EpisodeController({ device: d, instance: addContact(), policy: new OraclePolicy() });
    const done = c.start();
    const save = await stepUntil(c, (t) => t.startsWith('Tap "Save"'));
    c.override({ action_type: 'input_text', text: 'Jr' });
    c.step();
    await until(() => c.state === 'paused' && c.current?.index === save + 1);
    // Open-loop, the script believed Save was done and proposed "complete" here.
    expect(c.current).toMatchObject({ action: { action_type: 'click' }, thought: 'Re-planned from this screen after your override.' });
    expect(c.current!.description).toMatch(/^Tap "Save"/);
    c.run();
    const r = await done;
    expect(r.steps[save]!.overridden).toBe(true);
    expect(r.steps.at(-1)!.action).toEqual({ action_type: 'status', goal_status: 'complete' });
    expect(r.success).toBe(true);
  });

  it('hands over when it cannot go on from the screen, holds even while running, and resumes once the person brings it back', async () => {
    const c = new EpisodeController({ device: d, instance: addContact(), policy: new OraclePolicy() });
    const done = c.start();
    const save = await stepUntil(c, (t) => t.startsWith('Tap "Save"'));
    c.override({ action_type: 'navigate_home' });
    c.run();
    // Running, yet held: the home screen has no Save to tap.
    await until(() => c.state === 'paused' && c.current?.index === save + 1);
    expect(c.current).toMatchObject({ action: { action_type: 'wait' } });
    expect(c.current!.handover).toMatch(/oracle lost after an override/);
    expect(c.current!.thought).toMatch(/Take over/);
    // The person reopens Contacts (its editor is still on its task): the oracle taps Save from there.
    c.override({ action_type: 'open_app', app_name: 'Contacts' });
    c.step();
    await until(() => c.state === 'paused' && c.current?.index === save + 2);
    expect(c.current!.description).toMatch(/^Tap "Save"/);
    c.run();
    const r = await done;
    expect(r.steps.filter((s) => s.overridden).map((s) => s.index)).toEqual([save, save + 1]);
    expect(r.success).toBe(true);
  });

  it('manual + Run holds at each proposal for the person instead of recording waits', async () => {
    const c = new EpisodeController({ device: d, instance: addContact(), policy: new ManualPolicy() }, { startPaused: false });
    const done = c.start();
    await until(() => c.state === 'paused' && c.current?.index === 0);
    expect(c.current!.handover).toMatch(/manual policy/);
    c.override({ action_type: 'open_app', app_name: 'Contacts' });
    c.run();
    await until(() => c.state === 'paused' && c.current?.index === 1);
    c.stop();
    const r = await done;
    expect(r.steps.map((s) => s.action?.action_type)).toEqual(['open_app']);
  });
});
