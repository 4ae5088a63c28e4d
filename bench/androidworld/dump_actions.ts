/**
 * Cases for checking the environment server's AndroidWorld actions against AndroidWorld's own
 * `actuation.execute_adb_action` (docs/env-protocol.md, `step`): screens from every template's oracle episode (seed 2),
 * and on each a spread of JSONActions (clicks, double taps and long presses by index and by point, typing with and
 * without a field and clearing, scrolls on the screen and on elements, swipes, keys, apps, answers) with what
 * core/env/androidworld-action.ts and the action planner make of them: the input events, or the reason refused.
 *   node --import tsx bench/androidworld/dump_actions.ts OUT.json [SCREENS]
 *   python bench/androidworld/actions.py --aw /path/to/android_world OUT.json
 */
import { writeFileSync } from 'node:fs';
import { serializeUiTree } from '../../core/a11y/ui-tree.js';
import { planInput } from '../../core/actions/execute.js';
import type { Observation } from '../../core/device/observation.js';
import { openSimDroid } from '../../core/devices/provider.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import { runEpisode } from '../../core/episode/runner.js';
import { fromJsonAction } from '../../core/env/androidworld-action.js';
import { instantiate } from '../../core/tasks/instance.js';
import { TASKS } from '../../core/tasks/registry.js';
import { createRng } from '../../core/util/rng.js';

const [out, n = '60'] = process.argv.slice(2);
if (!out) throw new Error('usage: dump_actions.ts OUT.json [SCREENS]');
const limit = Number(n);
const device = openSimDroid({ serial: 'simdroid-aw-actions' });
const screens: Observation[] = [];
for (const t of TASKS) {
  if (screens.length >= limit) break;
  await runEpisode({ device, instance: instantiate(t, 2), policy: new OraclePolicy(), onStep: (_s, obs) => void (screens.length < limit && screens.push(obs)) });
}
device.close();

const rng = createRng('aw-actions');
function actionsFor(obs: Observation): Array<Record<string, unknown>> {
  const pick = () => rng.int(0, obs.elements.length - 1);
  const field = obs.elements.find((e) => e.node.className === 'android.widget.EditText');
  const scrollable = obs.elements.find((e) => e.ordinal > 0 && e.node.scrollable);
  const list: Array<Record<string, unknown>> = [
    { action_type: 'click', index: pick() }, { action_type: 'click', x: rng.int(0, 1079), y: rng.int(0, 2399) },
    { action_type: 'double_tap', index: pick() }, { action_type: 'long_press', index: String(pick()) }, { action_type: 'long_press', x: 540.7, y: 1200.2 },
    { action_type: 'scroll', direction: rng.pick(['up', 'down', 'left', 'right']) }, { action_type: 'scroll', direction: 'down', index: 0 },
    { action_type: 'swipe', direction: rng.pick(['up', 'down', 'left', 'right']) },
    { action_type: 'input_text', text: 'Hello world 42' }, { action_type: 'input_text', text: 'Café déjà vu' },
    { action_type: 'keyboard_enter' }, { action_type: 'navigate_home' }, { action_type: 'navigate_back' },
    { action_type: 'open_app', app_name: rng.pick(['Contacts', 'clock', 'Simple SMS Messenger', 'Markor', 'settings']) },
    { action_type: 'wait' }, { action_type: 'answer', text: 'Friday' }, { action_type: 'status', goal_status: 'complete' },
  ];
  if (field) list.push({ action_type: 'input_text', text: 'Ana Souza', index: field.ordinal, clear_text: true });
  if (scrollable) list.push({ action_type: 'scroll', direction: rng.pick(['up', 'down', 'left', 'right']), index: scrollable.ordinal });
  return list;
}

const cases = screens.flatMap((obs) => actionsFor(obs).map((json) => {
  const c = fromJsonAction(json, obs);
  let ours: unknown;
  if (!c.ok) ours = { refused: c.reason };
  else {
    try {
      ours = { action: c.action, plan: planInput(c.action, obs) };
    } catch (e) {
      ours = { action: c.action, error: `${(e as Error).name}: ${(e as Error).message}` };
    }
  }
  return { xml: serializeUiTree(obs.tree), screen: [obs.screen.width, obs.screen.height], json, ours };
}));
writeFileSync(out, JSON.stringify(cases));
console.log(`${cases.length} cases on ${screens.length} screens → ${out}`);
