import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAction } from '../../core/actions/schema.js';
import { observe } from '../../core/device/observation.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import type { Policy } from '../../core/episode/policy.js';
import { resetForTask, runEpisode } from '../../core/episode/runner.js';
import { actionChoice, choiceAction, choiceText } from '../../core/policy/transformer/actions.js';
import { buildStepInputs } from '../../core/policy/transformer/inputs.js';
import { ACTION_TYPES, DEFAULT_LAYOUT, ITEM_FEATURES, POINTER_TYPES } from '../../core/policy/transformer/layout.js';
import { WordPieceTokenizer } from '../../core/policy/transformer/wordpiece.js';
import { headShape } from '../../core/rl/transformer-sft.js';
import { instantiate } from '../../core/tasks/instance.js';
import { TASKS } from '../../core/tasks/registry.js';
import { device } from '../helpers/simdroid.js';

const tok = WordPieceTokenizer.load(join(import.meta.dirname, 'transformer-fixtures', 'tokenizer.json'));
const d = device();
afterAll(() => d.close());
const shape = headShape(DEFAULT_LAYOUT);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

describe('transformer policy inputs and actions', () => {
  it('can form the oracle\'s action in at least 90% of oracle steps (every template, seed 0), and forms exactly that action', async () => {
    let steps = 0;
    let formed = 0;
    const misses: Record<string, number> = {};
    for (const t of TASKS) {
      const oracle = new OraclePolicy();
      const spy: Policy = {
        name: 'spy',
        start: (ctx) => oracle.start(ctx),
        act(obs, ctx) {
          const decision = oracle.act(obs, ctx);
          const action = parseAction(decision.action);
          const inputs = buildStepInputs(obs, ctx, tok, DEFAULT_LAYOUT);
          steps++;
          const choice = actionChoice(action, inputs, obs, shape);
          if (!choice) misses[action.action_type] = (misses[action.action_type] ?? 0) + 1;
          else {
            formed++;
            const back = choiceAction(choice, inputs);
            // The same action, with what the policy always adds: clear before typing, the focused field's index.
            const want = action.action_type === 'input_text' ? { ...action, index: back.action_type === 'input_text' ? back.index : -1, clear: true } : action;
            if (!same(back, want) && !(action.action_type === 'answer' && back.action_type === 'answer' && back.text === action.text.trim())) {
              expect({ template: t.id, back }).toEqual({ template: t.id, back: want });
            }
          }
          return decision;
        },
      };
      await runEpisode({ device: d, instance: instantiate(t, 0), policy: spy });
    }
    console.log(`transformer action coverage: ${formed}/${steps} oracle steps (${((100 * formed) / steps).toFixed(1)}%), misses by kind ${JSON.stringify(misses)}`);
    expect(steps).toBeGreaterThan(800);
    // 96.9% before issue 34's templates; they added coordinate swipes (no coordinate head here) and texts read on an
    // earlier screen (copies come from the goal and this screen only): 91.7% (docs/policy-transformer.md). A drop
    // below 90% means the inputs lost something.
    expect(formed / steps).toBeGreaterThanOrEqual(0.9);
  });

  it('reads the goal and the screen as items with masks that follow the screen', async () => {
    const instance = instantiate(TASKS.find((t) => t.id === 'ContactsAddContact')!, 0);
    await resetForTask(d, instance);
    const home = buildStepInputs(await observe(d), { instruction: instance.instruction, step: 0, history: [] }, tok, DEFAULT_LAYOUT);
    const S = home.items;
    expect(home.itemIds.length).toBe(S * DEFAULT_LAYOUT.itemTokens);
    expect(home.itemFeatures.length).toBe(S * ITEM_FEATURES.length);
    expect(home.decode.items[0]!.kind).toBe('screen');
    expect(home.decode.items.filter((i) => i.kind === 'app').length).toBeGreaterThan(20);
    // No text field on the launcher: typing is masked out, and nothing may be answered for a non-question.
    expect(home.typeMask[ACTION_TYPES.indexOf('input_text')]).toBe(0);
    expect(home.typeMask[ACTION_TYPES.indexOf('answer')]).toBe(0);
    const openRow = POINTER_TYPES.indexOf('open_app');
    home.decode.items.forEach((it, s) => expect(home.pointerMask[openRow * S + s]).toBe(it.kind === 'app' ? 1 : 0));
    // Every goal word can be copied back exactly.
    const words = instance.instruction.split(/\s+/).filter((w) => /^[A-Za-z]+$/.test(w));
    for (const w of words.slice(0, 5)) {
      const at = home.decode.goalTokens.findIndex((t) => !t.continuation && instance.instruction.slice(t.start, t.end) === w);
      let n = 1;
      while (home.decode.goalTokens[at + n]?.continuation) n++;
      expect(choiceText({ source: 'goal', start: at, length: n }, home)).toBe(w);
    }
    d.shellBytes('am start -n com.google.android.contacts/com.android.contacts.activities.PeopleActivity');
    const app = buildStepInputs(await observe(d), { instruction: instance.instruction, step: 1, history: [] }, tok, DEFAULT_LAYOUT);
    const clickRow = POINTER_TYPES.indexOf('click');
    const clickable = app.decode.items.filter((_, s) => app.pointerMask[clickRow * app.items + s] === 1);
    expect(clickable.length).toBeGreaterThan(0);
    expect(clickable.every((i) => i.kind === 'element')).toBe(true);
  });
});
