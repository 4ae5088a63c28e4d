import { createCanvas, loadImage } from '@napi-rs/canvas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOOT_SNAPSHOT, isFileWritable, isSnapshotCapable, isTouchStreamCapable, type Device, type FileWritable, type SnapshotCapable } from '../../core/device/device.js';
import { observe } from '../../core/device/observation.js';
import { executeAction } from '../../core/actions/execute.js';
import { findFirst } from '../../core/a11y/ui-tree.js';
import { runEpisode } from '../../core/episode/runner.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { adbRig, type AdbRig } from './adb-env.js';

/**
 * One conformance suite for every Device: SimDroid in-process, and SimDroid through its adbd, the
 * real adb server and adbkit. Whatever the runner and the checkers rely on must hold on both.
 */
type Rig = { device: Device & SnapshotCapable; close(): Promise<void> | void };

const rigs: Array<[string, () => Promise<Rig>]> = [
  ['SimDroid in-process', async () => {
    const d = new SimDroid();
    return { device: d, close: () => d.close() };
  }],
  ['SimDroid through adb + adbkit', async () => {
    const r: AdbRig = await adbRig();
    return { device: r.device, close: () => r.close() };
  }],
];

async function size(png: Buffer) {
  const img = await loadImage(png);
  const c = createCanvas(img.width, img.height);
  c.getContext('2d').drawImage(img, 0, 0);
  return [img.width, img.height];
}

describe.each(rigs)('Device conformance: %s', (_name, make) => {
  let rig: Rig;
  let d: Device & SnapshotCapable;
  beforeAll(async () => {
    rig = await make();
    d = rig.device;
  });
  afterAll(async () => rig.close());

  it('reports the screen, the tree and the app in front', async () => {
    await d.loadSnapshot(BOOT_SNAPSHOT);
    expect(await d.screenInfo()).toEqual({ width: 1080, height: 2400, density: 420 });
    expect(await d.foreground()).toEqual({ package: 'com.google.android.apps.nexuslauncher', activity: 'com.google.android.apps.nexuslauncher.NexusLauncherActivity' });
    const tree = await d.uiTree();
    expect(tree.roots.length).toBeGreaterThan(1);
    expect(tree.roots[0]!.packageName).toBe('com.google.android.apps.nexuslauncher');
  });

  it('runs shell commands with their output, errors and exit codes', async () => {
    expect(await d.shell('echo hello')).toEqual({ stdout: 'hello\n', stderr: '', exitCode: 0 });
    const bad = await d.shell('ls /nope');
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain('No such file or directory');
    expect((await d.shell('frobnicate')).exitCode).toBe(127);
    expect((await d.shell("settings put global wifi_on 0 && settings get global wifi_on")).stdout).toBe('0\n');
  });

  it('takes screenshots at full and half resolution', async () => {
    expect(await size(await d.screenshot())).toEqual([1080, 2400]);
    expect(await size(await d.screenshot({ scale: 0.5 }))).toEqual([540, 1200]);
  });

  it('acts: taps, types, keys', async () => {
    await d.loadSnapshot(BOOT_SNAPSHOT);
    await d.shell('am start -n com.android.settings/.SubSettings --es page about');
    let obs = await observe(d);
    await executeAction(d, { action_type: 'click', index: findFirst(obs.elements, { text: 'Device name' })!.ordinal }, obs);
    obs = await observe(d);
    expect(findFirst(obs.elements, { text: 'Rename' })).toBeDefined();
    await executeAction(d, { action_type: 'input_text', index: findFirst(obs.elements, { className: 'android.widget.EditText' })!.ordinal, text: ' plus two' }, obs);
    obs = await observe(d);
    expect(findFirst(obs.elements, { className: 'android.widget.EditText' })!.node.text).toBe('SimDroid plus two');
    await d.input({ kind: 'key', key: 'BACK' });
    await d.input({ kind: 'key', key: 'BACK' });
    obs = await observe(d);
    expect(findFirst(obs.elements, { text: 'Rename' })).toBeUndefined();
    await d.input({ kind: 'swipe', x1: 540, y1: 1800, x2: 540, y2: 600, durationMs: 300 });
    await d.idle(10);
  });

  it('streams a touch: the app drawer follows the finger while it is down; a press lifted in place taps (issue 33)', async () => {
    if (!isTouchStreamCapable(d)) throw new Error('a Device of the workbench streams touches');
    await d.loadSnapshot(BOOT_SNAPSHOT);
    await d.input({ kind: 'swipe', x1: 540, y1: 1900, x2: 540, y2: 700, durationMs: 300 }); // the app drawer
    const topOf = async (text: string) => findFirst((await observe(d)).elements, { text })?.node.bounds.top;
    // An app label low on the screen, so it is still on it after the list moves 400 px up.
    const label = (await observe(d)).elements.find((e) => e.node.text && e.node.bounds.top > 1000 && e.node.bounds.top < 1500)!.node.text;
    const before = await topOf(label);
    expect(before).toBeDefined();
    await d.touch('down', 540, 1600);
    for (const y of [1500, 1400, 1300, 1200]) await d.touch('move', 540, y);
    // Still down: the list has moved with the finger (400 px up), not waited for it to lift.
    expect(await topOf(label)).toBe(before! - 400);
    await d.touch('up', 540, 1200);
    expect(await topOf(label)).toBe(before! - 400);
    // A press and lift in place is a tap: it opens the app under it.
    const b = findFirst((await observe(d)).elements, { text: label })!.node.bounds;
    await d.touch('down', (b.left + b.right) / 2, (b.top + b.bottom) / 2);
    await d.touch('up', (b.left + b.right) / 2, (b.top + b.bottom) / 2);
    expect((await d.foreground()).package).not.toBe('com.google.android.apps.nexuslauncher');
  });

  it('saves, lists, loads and deletes snapshots', async () => {
    expect(isSnapshotCapable(d)).toBe(true);
    await d.loadSnapshot(BOOT_SNAPSHOT);
    await d.shell('settings put global device_name Conformance');
    await d.saveSnapshot('conformance');
    expect(await d.listSnapshots()).toContain('conformance');
    await d.shell('settings put global device_name Changed');
    await d.loadSnapshot('conformance');
    expect((await d.shell('settings get global device_name')).stdout).toBe('Conformance\n');
    await d.deleteSnapshot('conformance');
    expect(await d.listSnapshots()).not.toContain('conformance');
  });

  it('writes files as adb push does: past the 64 KiB shell line, with parents, refusals in adbd words', async () => {
    if (!isFileWritable(d)) throw new Error('the device cannot write files');
    const w: Device & FileWritable = d;
    const big = Buffer.alloc(200_000, 'abcdefghij');
    await w.writeFile('/sdcard/conformance/deep/big.txt', big);
    expect((await d.shell('wc -c < /sdcard/conformance/deep/big.txt')).stdout).toBe('200000\n');
    expect((await d.shell('cat /sdcard/conformance/deep/big.txt')).stdout === big.toString()).toBe(true);
    await expect(w.writeFile('/sdcard/conformance/deep', Buffer.from('x'))).rejects.toMatchObject({
      name: 'FileWriteError', path: '/sdcard/conformance/deep', reason: "couldn't create file: Is a directory",
    });
  });

  it('runs a task end to end: reset, oracle, checker', async () => {
    // The Files templates seed files larger than one shell line (written through the sync service).
    for (const id of ['ContactsAddContact', 'MarkorCreateNote', 'FilesDeleteFile', 'FilesMoveFile', 'FilesRenameFile', 'FilesCreateFolder']) {
      const r = await runEpisode({ device: d, instance: instantiate(getTemplate(id), 3), policy: new OraclePolicy(), screenshots: 'half' });
      expect(r, id).toMatchObject({ success: true, status: 'success' });
    }
  });
});

async function pixels(png: Buffer): Promise<Buffer> {
  const img = await loadImage(png);
  const c = createCanvas(img.width, img.height);
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  return Buffer.from(g.getImageData(0, 0, img.width, img.height).data);
}

describe('screencap formats through adb', () => {
  let rig: AdbRig;
  beforeAll(async () => {
    rig = await adbRig();
  });
  afterAll(async () => rig.close());

  it('raw, PNG and auto captures give the same picture at both sizes', async () => {
    await rig.device.shell('am start -n com.android.settings/.Settings');
    const raw = rig.server.device(rig.serial, { screencap: 'raw' });
    const png = rig.server.device(rig.serial, { screencap: 'png' });
    const auto = rig.server.device(rig.serial);
    for (const scale of [1, 0.5] as const) {
      const want = await pixels(await raw.screenshot({ scale }));
      expect(want.length).toBe(scale === 1 ? 1080 * 2400 * 4 : 540 * 1200 * 4);
      expect((await pixels(await png.screenshot({ scale }))).equals(want)).toBe(true);
      // auto probes raw, PNG, raw, PNG before it settles: every one of them is the same picture.
      for (let i = 0; i < 5; i++) expect((await pixels(await auto.screenshot({ scale }))).equals(want), `auto capture ${i}`).toBe(true);
      expect(['raw', 'png']).toContain(auto.screencapFormat(scale));
    }
  });

  it('turns the display of an adb device: auto-rotate off, then user_rotation (issue 33)', async () => {
    await rig.device.setRotation(1);
    expect((await rig.device.shell('settings get system accelerometer_rotation')).stdout.trim()).toBe('0');
    expect((await rig.device.shell('settings get system user_rotation')).stdout.trim()).toBe('1');
    await rig.device.setRotation(0);
    expect((await rig.device.shell('settings get system user_rotation')).stdout.trim()).toBe('0');
  });
});
