import { readFileSync } from 'node:fs';
/**
 * SimDroid benchmarks (issue 2): one act + accessibility tree, a full observation with a PNG
 * screenshot at full and half resolution, snapshot save/restore, and oracle episode throughput.
 *   npm run bench -- simdroid
 */
import { SimDroid } from '../emulators/simdroid/simdroid.js';
import { BOOT_SNAPSHOT } from '../core/device/device.js';
import { boundsCenter, findFirst, flattenUiTree } from '../core/a11y/ui-tree.js';
import { TASKS } from '../core/tasks/registry.js';
import { instantiate } from '../core/tasks/instance.js';
import { runEpisode } from '../core/episode/runner.js';
import { OraclePolicy } from '../core/episode/policies/oracle.js';
import { fmt, stats, time } from './stats.js';

export async function benchSimdroid(): Promise<Record<string, unknown>> {
  const d = new SimDroid();
  const results: Record<string, unknown> = {};

  // A loop a person would do in Settings: open a page, come back, scroll.
  const step = (i: number) => {
    if (i % 3 === 0) {
      const el = findFirst(flattenUiTree(d.uiTreeSync()), { text: 'Display' }) ?? findFirst(flattenUiTree(d.uiTreeSync()), { text: 'Battery' });
      if (el) d.inputSync({ kind: 'tap', ...boundsCenter(el.node.bounds) });
    } else if (i % 3 === 1) d.inputSync({ kind: 'key', key: 'BACK' });
    else d.inputSync({ kind: 'swipe', x1: 540, y1: 1500, x2: 540, y2: 1200, durationMs: 300 });
  };
  d.shellBytes('am start -n com.android.settings/.Settings');
  for (let i = 0; i < 200; i++) { step(i); d.uiTreeSync(); } // warm-up
  const act = [];
  for (let i = 0; i < 2000; i++) {
    if (i % 300 === 0) d.shellBytes('am start -n com.android.settings/.Settings');
    act.push(time(() => { step(i); d.uiTreeSync(); }));
  }
  results.actAndTree = stats(act);
  console.log(`act + accessibility tree:        ${fmt(stats(act))}`);

  for (const scale of [1, 0.5] as const) {
    const obs = [];
    for (let i = 0; i < 60; i++) obs.push(time(() => { step(i); d.uiTreeSync(); d.screenshotSync(scale); }));
    results[`actTreeScreenshot_${scale === 1 ? 'full' : 'half'}`] = stats(obs);
    console.log(`act + tree + PNG (${scale === 1 ? 'full 1080x2400' : 'half 540x1200'}): ${fmt(stats(obs))}, ${d.screenshotSync(scale).length} bytes`);
  }

  // Snapshot restore after a realistic episode touching settings, files, databases and the UI.
  const restore = [];
  const save = [];
  for (let i = 0; i < 200; i++) {
    d.shellBytes(`settings put global wifi_on ${i % 2} && echo ${i} > /sdcard/Documents/n${i}.txt && content insert --uri content://sms/inbox --bind address:s:555${i} --bind body:s:hi`);
    step(i);
    d.uiTreeSync();
    restore.push(time(() => d.loadSnapshotSync(BOOT_SNAPSHOT)));
    if (i % 10 === 0) save.push(time(() => d.saveSnapshotSync('bench')));
  }
  // Worst case: every database on the device changed since the snapshot.
  const worst = [];
  for (let i = 0; i < 50; i++) {
    for (const db of d.dbs.paths()) d.dbs.require(db).exec('CREATE TABLE IF NOT EXISTS bench_touch (x); INSERT INTO bench_touch VALUES (1);');
    worst.push(time(() => d.loadSnapshotSync(BOOT_SNAPSHOT)));
  }
  results.snapshotRestoreAllDatabasesChanged = { ...stats(worst), databases: d.dbs.paths().length };
  console.log(`snapshot restore, all ${d.dbs.paths().length} DBs changed: ${fmt(stats(worst))}`);
  results.snapshotRestore = stats(restore);
  results.snapshotSave = stats(save);
  console.log(`snapshot restore:                ${fmt(stats(restore))}`);
  console.log(`snapshot save:                   ${fmt(stats(save))}`);

  // Oracle episodes over every template (reset + initialize + solve + check), one device.
  let steps = 0;
  let episodes = 0;
  const t0 = performance.now();
  // AWB_BENCH_TEMPLATES=FILE (one template id per line) runs only those: the same episodes on code with more templates.
  const only = process.env.AWB_BENCH_TEMPLATES ? new Set(readFileSync(process.env.AWB_BENCH_TEMPLATES, 'utf8').split(/\s+/).filter(Boolean)) : null;
  for (const t of TASKS.filter((x) => !only || only.has(x.id))) {
    for (let seed = 0; seed < 3; seed++) {
      const r = await runEpisode({ device: d, instance: instantiate(t, seed), policy: new OraclePolicy() });
      steps += r.steps.length;
      episodes++;
    }
  }
  const secs = (performance.now() - t0) / 1000;
  results.oracleEpisodes = { episodes, steps, seconds: secs, stepsPerSecond: steps / secs, episodesPerSecond: episodes / secs };
  console.log(`oracle episodes:                 ${episodes} episodes, ${steps} steps in ${secs.toFixed(2)} s = ${(steps / secs).toFixed(0)} steps/s, ${(episodes / secs).toFixed(1)} episodes/s`);
  d.close();
  return results;
}
