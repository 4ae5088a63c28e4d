/**
 * Renders a contact sheet of SimDroid screens for the README: `npm run docs:gallery`
 * (writes docs/img/simdroid-gallery.png). Screens are reached through the shell and the public
 * input events, like any agent would.
 */
import { writeFileSync } from 'node:fs';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { SimDroid } from '../emulators/simdroid/simdroid.js';
import { boundsCenter, findFirst, flattenUiTree, type UiSelector } from '../core/a11y/ui-tree.js';

const d = new SimDroid({ seed: 1 });
const tap = (sel: UiSelector) => {
  const el = findFirst(flattenUiTree(d.uiTreeSync()), sel);
  if (!el) throw new Error(`gallery: no ${JSON.stringify(sel)} on screen`);
  d.inputSync({ kind: 'tap', ...boundsCenter(el.node.bounds) });
};
const allow = () => {
  if (findFirst(flattenUiTree(d.uiTreeSync()), { text: 'Allow' })) tap({ text: 'Allow' });
};
const shots: Buffer[] = [];
const shot = () => shots.push(d.screenshotSync(0.5));

d.inputSync({ kind: 'swipe', x1: 540, y1: 1900, x2: 540, y2: 700, durationMs: 300 });
shot();
d.shellBytes('am start -n com.google.android.contacts/com.android.contacts.activities.PeopleActivity');
allow();
shot();
d.shellBytes('am start -n com.simplemobiletools.smsmessenger/.activities.MainActivity');
allow();
tap({ resourceId: 'com.simplemobiletools.smsmessenger:id/conversation_frame' });
shot();
d.shellBytes('am start -n com.simplemobiletools.calendar.pro/.activities.MainActivity');
allow();
shot();
d.shellBytes('am start -n com.google.android.deskclock/com.android.deskclock.DeskClock');
allow();
shot();
d.shellBytes('am start -n org.tasks/com.todoroo.astrid.activity.MainActivity');
allow();
tap({ contentDesc: 'Create new task' });
shot();
d.shellBytes('settings put secure ui_night_mode 2');
d.shellBytes('am start -n com.android.settings/.SubSettings --es page display');
shot();
d.shellBytes('settings put secure ui_night_mode 1');
d.shellBytes('am start -n com.google.android.documentsui/com.android.documentsui.files.FilesActivity');
allow();
shot();

const w = 270;
const h = 600;
const gap = 12;
const canvas = createCanvas(4 * w + 5 * gap, 2 * h + 3 * gap);
const g = canvas.getContext('2d');
g.fillStyle = '#E8EAED';
g.fillRect(0, 0, canvas.width, canvas.height);
for (const [i, png] of shots.entries()) {
  const img = await loadImage(png);
  g.drawImage(img, gap + (i % 4) * (w + gap), gap + Math.floor(i / 4) * (h + gap), w, h);
}
writeFileSync(new URL('../docs/img/simdroid-gallery.png', import.meta.url), canvas.toBuffer('image/png'));
d.close();
console.log(`wrote docs/img/simdroid-gallery.png (${shots.length} screens)`);
