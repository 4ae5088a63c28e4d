/**
 * Screens for checking the environment server's `ui_elements` against AndroidWorld's own `xml_dump_to_ui_elements`
 * (docs/env-protocol.md, "The observation"): every template's oracle episode (seed 1) on SimDroid, each step's
 * uiautomator XML beside what core/a11y/androidworld-elements.ts makes of it, up to N screens, written as JSON.
 *   node --import tsx bench/androidworld/dump_screens.ts OUT.json [N]
 *   python bench/androidworld/ui_elements.py --aw /path/to/android_world OUT.json
 */
import { writeFileSync } from 'node:fs';
import { serializeUiTree } from '../../core/a11y/ui-tree.js';
import { openSimDroid } from '../../core/devices/provider.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import { runEpisode } from '../../core/episode/runner.js';
import { awUiElements } from '../../core/a11y/androidworld-elements.js';
import { instantiate } from '../../core/tasks/instance.js';
import { TASKS } from '../../core/tasks/registry.js';

const [out, n = '400'] = process.argv.slice(2);
if (!out) throw new Error('usage: dump_screens.ts OUT.json [N]');
const limit = Number(n);
const device = openSimDroid({ serial: 'simdroid-aw-elements' });
const screens: Array<{ template: string; xml: string; ours: unknown }> = [];
for (const t of TASKS) {
  if (screens.length >= limit) break;
  await runEpisode({
    device, instance: instantiate(t, 1), policy: new OraclePolicy(),
    onStep: (_s, obs) => void (screens.length < limit && screens.push({ template: t.id, xml: serializeUiTree(obs.tree), ours: awUiElements(obs.elements) })),
  });
}
writeFileSync(out, JSON.stringify(screens));
console.log(`${screens.length} screens → ${out}`);
device.close();
