import { afterAll, describe, expect, it } from 'vitest';
import { getTemplate, TASKS } from '../../core/tasks/registry.js';
import { instantiate } from '../../core/tasks/instance.js';
import { runEpisode, resetForTask } from '../../core/episode/runner.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import { device } from '../helpers/simdroid.js';

/**
 * Every template is solved by its oracle for 12 seeds, through the UI only; and no template is
 * already solved right after initialize (so a do-nothing agent fails it). 12 seeds (once 20) keep the file
 * near 45 s of CI's 2 cores; the suite, split and demonstration tests run the oracles on other seeds too.
 */
const SEEDS = Array.from({ length: 12 }, (_, i) => i);
const d = device();
afterAll(() => d.close());

describe.each(TASKS.map((t) => [t.id, t] as const))('%s', (_id, template) => {
  it('is solved by its oracle for 12 seeds', async () => {
    const failures: string[] = [];
    for (const seed of SEEDS) {
      const instance = instantiate(template, seed);
      const r = await runEpisode({ device: d, instance, policy: new OraclePolicy() });
      if (!r.success) {
        const trace = r.steps.map((s) => `${s.description ?? JSON.stringify(s.raw)}${s.error ? ` [${s.error.message}]` : ''}`).join(' → ');
        failures.push(`seed ${seed} (${instance.instruction}): ${r.error?.message ?? r.terminatedBy}: ${trace}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('is not solved by doing nothing', async () => {
    for (const seed of [0, 1, 2]) {
      const instance = instantiate(template, seed);
      await resetForTask(d, instance);
      const answerless = { actions: [] };
      expect((await template.check(d, instance.params, answerless)).ok).toBe(false);
    }
  });
});

describe('settings switches already in the goal state (AndroidWorld\'s *Verify instances)', () => {
  it('the oracle reads the switch and leaves it; the device is not set up again (initialize: false)', async () => {
    const instance = instantiate(getTemplate('SystemWifiTurnOn'), 0);
    await resetForTask(d, instance);
    await d.shell('settings put global wifi_on 1');
    const r = await runEpisode({ device: d, instance, policy: new OraclePolicy(), initialize: false });
    expect(r.success).toBe(true);
    expect(r.steps.map((s) => s.description)).not.toContainEqual(expect.stringContaining('Tap "Wi‑Fi"'));
    expect((await d.shell('settings get global wifi_on')).stdout.trim()).toBe('1');
  });
});
