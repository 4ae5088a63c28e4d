import { afterAll, describe, expect, it } from 'vitest';
import { device } from '../helpers/simdroid.js';
import { isPngScreencap, mayChangeState } from '../../emulators/simdroid/shell/effects.js';
import { CONTACTS_DB } from '../../emulators/simdroid/system/providers.js';
import { idatInflated } from '../helpers/png.js';
import type { SimDroid } from '../../emulators/simdroid/simdroid.js';

/** Lines adb clients send to look at the device, and other commands that only read. */
const READ_ONLY = [
  'uiautomator dump /dev/tty', 'dumpsys window', 'dumpsys activity activities', 'screencap -p', 'screencap',
  '/system/bin/screencap -p', 'getprop', 'getprop ro.build.version.sdk', 'wm size', 'wm density', 'pm list packages',
  'pm path com.android.settings', 'settings get global wifi_on', 'settings --user 0 list secure', 'cat /sdcard/x.txt',
  'ls -l /sdcard', 'echo hi', 'echo hi > /dev/null', 'echo hi 2>&1', 'date +%s', 'id', 'whoami', 'true', 'false',
  'find /sdcard -name "*.txt"', 'stat /sdcard', 'grep -c a /sdcard/x.txt', 'head -n 1 /sdcard/x.txt', 'wc -l < /sdcard/x.txt',
  `content query --uri content://contacts/people`, 'cmd uimode night', 'uiautomator frob', 'dumpsys window | grep mCurrentFocus',
  'getprop sys.boot_completed && wm size', "echo 'unterminated", 'echo $(ls /sdcard); echo $?', 'for f in $(ls /sdcard); do cat /sdcard/$f; done',
  'x=1; while false; do echo $x; done',
];

/** Commands that change the device (or may), each from a state in which it has something to change. */
const MUTATING = [
  'input tap 540 1200', 'input keyevent 4', 'am start -n com.android.settings/.Settings', 'am force-stop com.android.settings',
  'settings put global wifi_on 0', 'settings delete global wifi_on', 'svc wifi enable', 'cmd uimode night yes', 'pm clear com.android.settings',
  'pm grant com.android.settings android.permission.POST_NOTIFICATIONS', 'rm /sdcard/x.txt', 'touch /sdcard/y.txt', 'mkdir /sdcard/d',
  'echo hi > /sdcard/z.txt', 'echo hi >> /sdcard/x.txt', 'uiautomator dump', 'uiautomator dump /sdcard/ui.xml', 'screencap -p /sdcard/s.png',
  `sqlite3 ${CONTACTS_DB} "INSERT INTO contacts(display_name) VALUES ('Zed')"`, `content insert --uri content://contacts/people --bind display_name:s:Ann`,
  'sleep 1', 'monkey -p com.android.settings 1', 'frobnicate', 'ls; rm /sdcard/x.txt', 'dumpsys window | tee /sdcard/w.txt',
  'echo $(rm /sdcard/x.txt)', 'for f in a; do rm /sdcard/x.txt; done', 'f=/sdcard/x.txt; echo hi > $f', 'while [ ! -f /sdcard/w2.txt ]; do touch /sdcard/w2.txt; done',
];

/** Everything a command could change, in comparable form. */
function state(d: SimDroid): string {
  const fs = [...d.fs.entries].map(([p, e]) => [p, e.type, e.mtime, e.type === 'file' ? e.data.toString('base64') : '']);
  const dbs = [...d.dbs.snapshot()].map(([p, s]) => [p, s.bytes.toString('base64')]);
  return JSON.stringify({ settings: d.settings.data, fs, dbs, ui: d.wm.state, clock: [d.clock.nowMs, d.clock.bootMs] });
}

describe('which shell commands change the device', () => {
  it('classifies command lines', () => {
    for (const line of READ_ONLY) expect(mayChangeState(line), line).toBe(false);
    for (const line of MUTATING) expect(mayChangeState(line), line).toBe(true);
  });

  it('recognises screencap -p to stdout', () => {
    expect(isPngScreencap('screencap -p')).toBe(true);
    expect(isPngScreencap('/system/bin/screencap -p')).toBe(true);
    for (const line of ['screencap', 'screencap -p /sdcard/a.png', 'screencap -p > /sdcard/a.png', 'screencap -p | wc -c', 'screencap -p; echo', "'"]) {
      expect(isPngScreencap(line), line).toBe(false);
    }
  });
});

describe('SimDroid shell commands and change listeners', () => {
  const d = device();
  afterAll(() => d.close());
  d.shellBytes('echo "a\nb" > /sdcard/x.txt');
  d.shellBytes('am start -n com.android.settings/.Settings');

  it('a read-only command fires no listener, keeps the caches, and changes nothing', async () => {
    d.inputSync({ kind: 'tap', x: 540, y: 1200 });
    const shot = d.screenshotSync(1);
    const tree = d.uiTreeSync();
    const before = state(d);
    let fired = 0;
    const off = d.onChanged(() => fired++);
    try {
      for (const line of READ_ONLY) {
        d.shellBytes(line);
        await d.shellBytesAsync(line);
        expect(fired, line).toBe(0);
      }
    } finally {
      off();
    }
    expect(state(d)).toBe(before);
    expect(d.screenshotSync(1)).toBe(shot);
    expect(d.uiTreeSync()).toBe(tree);
  });

  it('a mutating command fires the listeners and a new frame follows', () => {
    for (const line of MUTATING) {
      // Each from a state where it has something to do.
      d.shellBytes('echo "a\nb" > /sdcard/x.txt');
      d.shellBytes('am start -n com.android.settings/.Settings');
      const tree = d.uiTreeSync();
      let fired = 0;
      const off = d.onChanged(() => fired++);
      d.shellBytes(line);
      off();
      // `input` notifies once for the event and once for the command; at least once is what matters.
      expect(fired, line).toBeGreaterThanOrEqual(1);
      expect(d.uiTreeSync(), line).not.toBe(tree);
    }
  });

  it('screencap -p through the async path gives the same pixels as the synchronous one, cached per state', async () => {
    d.shellBytes('am start -n com.android.settings/.Settings');
    const [a, b] = await Promise.all([d.shellBytesAsync('screencap -p'), d.shellBytesAsync('screencap -p')]);
    expect(a.exitCode).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    expect(await d.screenshot()).toBe(a.stdout);
    const syncPng = d.shellBytes('screencap -p').stdout;
    expect(idatInflated(a.stdout).equals(idatInflated(syncPng))).toBe(true);
    d.inputSync({ kind: 'key', key: 'BACK' });
    expect(await d.screenshot()).not.toBe(a.stdout);
  });
});
