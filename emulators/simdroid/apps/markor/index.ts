import type { AppDef } from '../../runtime/app.js';
import { MAIN_ACTIVITY, MARKOR_PKG, NOTEBOOK, join } from './files.js';
import { mainActivity } from './main.js';
import { documentActivity } from './document.js';

/**
 * Markor (net.gsantner.markor), the Markdown notes app AndroidWorld uses. Notes are plain files in
 * the notebook folder /storage/emulated/0/Documents/Markor; see files.ts.
 */
const BOOT_NOTES: ReadonlyArray<[string, string]> = [
  ['shopping_list.md', '# Shopping list\n- Milk\n- Eggs\n- Whole wheat bread\n- Apples'],
  ['meeting_notes.md', '# Team sync\nDiscussed the release schedule.\nAction items:\n- Update the roadmap\n- Book the demo room'],
  ['ideas.txt', 'Start a herb garden on the balcony.\nLearn to make sourdough bread.\nPlan a weekend hike.'],
  ['reading_list.md', '# Books to read\n- The Pragmatic Programmer\n- Dune\n- Sapiens'],
  ['recipes.txt', 'Pancakes: flour, milk, eggs, a pinch of salt.\nFry on medium heat.'],
  ['travel_plan.md', '# Lisbon trip\nFlights booked for Friday.\nVisit Belem tower and the old town.'],
];

const DAY_MS = 86_400_000;

const boot: NonNullable<AppDef['boot']> = (env) => {
  const { fs, clock } = env.sys;
  fs.mkdirp(NOTEBOOK);
  const notes = env.rng.sample(BOOT_NOTES, 4);
  notes.forEach(([name, text], i) => {
    // Written over the past days, so dates and "sort by date" differ.
    fs.writeFile(join(NOTEBOOK, name), text, { mtime: clock.now() - (i + 1) * env.rng.int(1, 3) * DAY_MS });
  });
  fs.mkdirp(join(NOTEBOOK, 'Work'));
  fs.writeFile(join(NOTEBOOK, 'Work/project_plan.md'), '# Project plan\n- Define scope\n- Draft timeline', { mtime: clock.now() - 4 * DAY_MS });
};

export const markorApp: AppDef = {
  package: MARKOR_PKG,
  label: 'Markor',
  icon: { glyph: 'note', color: '#388E3C' },
  accent: '#388E3C',
  launchActivity: MAIN_ACTIVITY,
  activities: [mainActivity, documentActivity],
  boot,
};
