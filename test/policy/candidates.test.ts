import { afterAll, describe, expect, it } from 'vitest';
import { TASKS } from '../../core/tasks/registry.js';
import { instantiate } from '../../core/tasks/instance.js';
import { resetForTask, runEpisode } from '../../core/episode/runner.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import type { Policy } from '../../core/episode/policy.js';
import { parseAction } from '../../core/actions/schema.js';
import { observe } from '../../core/device/observation.js';
import { buildCandidates, matchCandidate } from '../../core/policy/candidates.js';
import { device } from '../helpers/simdroid.js';

const d = device();
afterAll(() => d.close());

describe('buildCandidates', () => {
  it('contains the oracle\'s action in at least 95% of the oracle steps it is built to offer (every template × 2 seeds)', async () => {
    // Every template (a 30-template sample is as fast but its figure swings with the sample). The candidates
    // hold the instruction's values to type and no free swipes: an oracle step that types what it read on
    // the screen (a note's text, an address) or swipes by a measured distance lies outside them by design.
    const templates = TASKS;
    let hits = 0;
    let steps = 0;
    let outside = 0;
    const misses: Record<string, number> = {};
    for (const t of templates) {
      for (const seed of [0, 1]) {
        const oracle = new OraclePolicy();
        const spy: Policy = {
          name: 'spy',
          start: (ctx) => oracle.start(ctx),
          act(obs, ctx) {
            const decision = oracle.act(obs, ctx);
            const action = parseAction(decision.action);
            if (action.action_type === 'swipe' || (action.action_type === 'input_text' && !ctx.instruction.includes(action.text))) {
              outside++;
              return decision;
            }
            steps++;
            if (matchCandidate(buildCandidates(obs, ctx.instruction), action, obs) >= 0) hits++;
            else misses[action.action_type] = (misses[action.action_type] ?? 0) + 1;
            return decision;
          },
        };
        await runEpisode({ device: d, instance: instantiate(t, seed), policy: spy });
      }
    }
    console.log(`candidate coverage: ${hits}/${steps} oracle steps (${((100 * hits) / steps).toFixed(1)}%), misses by kind ${JSON.stringify(misses)}; ${outside} steps outside the candidates by design`);
    expect(templates.length).toBeGreaterThanOrEqual(100);
    expect(steps).toBeGreaterThan(200);
    expect(hits / steps).toBeGreaterThanOrEqual(0.95);
  });

  it('is deterministic, duplicate-free, and offers typing, navigation, apps and completion', async () => {
    const instance = instantiate(TASKS.find((t) => t.id === 'ContactsAddContact')!, 0);
    await resetForTask(d, instance);
    d.shellBytes('am start -n com.google.android.contacts/com.android.contacts.activities.PeopleActivity');
    const obs = await observe(d);
    const a = buildCandidates(obs, instance.instruction);
    const b = buildCandidates(obs, instance.instruction);
    expect(a.map((c) => JSON.stringify(c.action))).toEqual(b.map((c) => JSON.stringify(c.action)));
    const keys = a.map((c) => JSON.stringify(c.action));
    expect(new Set(keys).size).toBe(keys.length);
    const kinds = new Set(a.map((c) => c.kind));
    for (const k of ['click', 'scroll', 'navigate_back', 'navigate_home', 'open_app', 'status'] as const) expect(kinds).toContain(k);
    expect(kinds).not.toContain('answer');
    expect(a.at(-1)!.action).toEqual({ action_type: 'status', goal_status: 'complete' });
  });

  it('offers screen texts as answers to questions, and matches an index-less input to the focused field', async () => {
    const instance = instantiate(TASKS.find((t) => t.id === 'ContactsPhoneNumberQuestion')!, 0);
    await resetForTask(d, instance);
    d.shellBytes('am start -n com.google.android.contacts/com.android.contacts.activities.PeopleActivity');
    const obs = await observe(d);
    const c = buildCandidates(obs, instance.instruction);
    const shown = obs.elements.map((e) => e.node.text).find((t) => t.trim())!;
    expect(c.some((x) => x.kind === 'answer' && x.value === shown.trim())).toBe(true);
    expect(matchCandidate(c, { action_type: 'answer', text: ` ${shown} ` }, obs)).toBeGreaterThanOrEqual(0);
    expect(matchCandidate(c, { action_type: 'answer', text: 'not on this screen at all' }, obs)).toBe(-1);
    expect(matchCandidate(c, { action_type: 'click', x: 10, y: 10 }, obs)).toBe(-1);
    expect(matchCandidate(c, { action_type: 'open_app', app_name: 'contacts' }, obs)).toBe(c.findIndex((x) => x.value === 'Contacts'));
  });
});
