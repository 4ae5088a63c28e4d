/**
 * Run by bench/adb.ts in a fresh process (with and without FRAME_BUFFER_TUNABLES, which glibc only
 * reads at start-up): SimDroid's full-size PNG screenshot after a change, as adbd's `screencap -p` makes it.
 */
import { SimDroid } from '../emulators/simdroid/simdroid.js';
import { stats } from './stats.js';

const d = new SimDroid();
d.shellBytes('am start -n com.android.settings/.Settings');
const samples: number[] = [];
for (let i = 0; i < 60; i++) {
  d.inputSync({ kind: 'swipe', x1: 540, y1: 1500 + (i % 2) * 200, x2: 540, y2: 1300, durationMs: 100 });
  const t = performance.now();
  await d.shellBytesAsync('screencap -p');
  if (i >= 10) samples.push(performance.now() - t);
}
d.close();
console.log(JSON.stringify(stats(samples)));
