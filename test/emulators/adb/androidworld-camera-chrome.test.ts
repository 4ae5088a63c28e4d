import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHost } from '../../../emulators/simdroid/host.js';
import { connectedAdb, type AdbCli, type RunResult } from './helpers.js';

/**
 * The Camera, Phone and Chrome apps as AndroidWorld's task code reaches them, through Debian's real
 * adb: launched by the components adb_utils starts, photos and videos listed where CameraTakePhoto and
 * CameraTakeVideo `ls` (and pulled), the foreground activity OpenAppTaskEval reads, and a page pushed to
 * Download opened in Chrome and answered on screen as BrowserTask checks ("Success!" in the dump).
 */
let host: EmulatorHost;
let adb: AdbCli;
let sh: (...args: string[]) => Promise<RunResult>;
let scratch: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ host, adb, sh, scratch, close } = await connectedAdb('awb-aw-camera-'));
});
afterAll(() => close());

async function dump(): Promise<string> {
  return (await sh('uiautomator dump /dev/tty')).out;
}

/** Taps the centre of the first node whose attributes include `attr`, as AndroidWorld's click does. */
async function tapOn(attr: string): Promise<void> {
  const node = (await dump()).split('<node ').find((n) => n.includes(attr));
  const m = node && /bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"/.exec(node);
  if (!m) throw new Error(`no node with ${attr} on screen`);
  expect((await sh(`input tap ${(Number(m[1]) + Number(m[3])) >> 1} ${(Number(m[2]) + Number(m[4])) >> 1}`)).code).toBe(0);
}

const resumed = async () => /mResumedActivity: ActivityRecord\{\S+ u0 (\S+)/.exec((await sh('dumpsys activity activities')).out)?.[1];

describe('Camera and Phone through adb', () => {
  it('a shutter tap leaves one IMG_….jpg in Pictures, a JPEG that pulls; recording leaves one VID_….mp4 in Movies', async () => {
    expect((await sh('am start -n com.android.camera2/com.android.camera.CameraLauncher')).code).toBe(0);
    expect(await resumed()).toBe('com.android.camera2/com.android.camera.CameraActivity');
    const before = (await sh('ls /sdcard/Pictures')).out.trim();
    await tapOn('content-desc="Shutter"');
    const photos = (await sh('ls /sdcard/Pictures')).out.trim().split('\n').filter((n) => n && !before.includes(n));
    expect(photos).toHaveLength(1);
    expect(photos[0]).toMatch(/^IMG_\d{8}_\d{6}\.jpg$/);
    const local = join(scratch, photos[0]!);
    expect((await adb.run(['-s', host.address, 'pull', `/sdcard/Pictures/${photos[0]}`, local])).code).toBe(0);
    expect(readFileSync(local).subarray(0, 3).toString('hex')).toBe('ffd8ff');
    expect((await sh('content query --uri content://media/external/images/media --projection _display_name')).out).toContain(photos[0]!);

    await tapOn('text="Video"');
    await tapOn('content-desc="Start recording"');
    await tapOn('content-desc="Stop recording"');
    expect((await sh('ls /sdcard/Movies')).out.trim()).toMatch(/^VID_\d{8}_\d{6}\.mp4$/);
  });

  it('the dialer AndroidWorld opens is the resumed activity, in its own package', async () => {
    await sh('am start -n com.google.android.dialer/com.google.android.dialer.extensions.GoogleDialtactsActivity');
    expect(await resumed()).toBe('com.google.android.dialer/.extensions.GoogleDialtactsActivity');
  });
});

describe('Chrome through adb', () => {
  it('opens a page pushed to Download, runs its script on a tap, and shows "Success!" in the dump', async () => {
    const page = join(scratch, 'task.html');
    writeFileSync(page, `<html><body><button onclick="done()">Finish</button><div id="out"></div>
<script>let presses = 0; function done() { presses += 1; document.getElementById('out').innerHTML = '<h2>Success!</h2>'; }</script></body></html>`);
    expect((await adb.run(['-s', host.address, 'push', page, '/sdcard/Download/task.html'])).code).toBe(0);
    expect((await sh('pm clear com.android.chrome')).out).toContain('Success');
    await sh('am start -a android.intent.action.VIEW -d file:///sdcard/Download/task.html');
    expect((await resumed())?.startsWith('com.android.chrome/')).toBe(true);
    expect(await dump()).not.toContain('text="Success!"');
    await tapOn('text="Finish"');
    expect(await dump()).toContain('text="Success!"');
  });
});
