import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCanvas } from '@napi-rs/canvas';
import { findFirst, type UiSelector } from '../../../core/a11y/ui-tree.js';
import type { EmulatorHost } from '../../../emulators/simdroid/host.js';
import { adbScreen, connectedAdb, pngSize, type AdbCli, type RunResult } from './helpers.js';

/**
 * Simple Gallery Pro and Simple Draw Pro over Debian's real adb, as AndroidWorld uses them: a receipt
 * JPEG pushed into /sdcard/DCIM (file_utils.copy_data_to_device), the apps started by their activities
 * (adb_utils' _PATTERN_TO_ACTIVITY), the screen read with `uiautomator dump`, taps and swipes with
 * `input`, and the outcome read with AndroidWorld's check: `find <dir> -type f -o -type d`; the screen
 * itself pulled with `screencap -p` shows the picture's pixels.
 */
let host: EmulatorHost;
let adb: AdbCli;
let sh: (...args: string[]) => Promise<RunResult>;
let scratch: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ host, adb, sh, scratch, close } = await connectedAdb('awb-aw-gallery-'));
});
afterAll(() => close());

// sh is set in beforeAll: the helpers are looked up when called.
const screen = () => adbScreen(sh).screen();
const center = (sel: UiSelector) => adbScreen(sh).center(sel);
const tap = (sel: UiSelector) => adbScreen(sh).tap(sel);

/** AndroidWorld's check_file_or_folder_exists: the path among `find`'s lines. */
async function found(dir: string, name: string): Promise<boolean> {
  const r = await sh('find', dir, '-type', 'f', '-o', '-type', 'd');
  expect(r.code).toBe(0);
  return r.out.replace(/\r/g, '').split('\n').includes(`${dir}/${name}`);
}

describe('AndroidWorld through the screen on the new apps, over adb', () => {
  it('SaveCopyOfReceipt: a pushed receipt is shown full screen and copied to Download through Copy to › Other folder', async () => {
    const c = createCanvas(400, 600);
    const g = c.getContext('2d');
    g.fillStyle = '#FF0000';
    g.fillRect(0, 0, 400, 600);
    const local = join(scratch, 'receipt_quiet_fox.jpg');
    writeFileSync(local, c.encodeSync('jpeg', 90));
    await adb.ok(['-s', host.address, 'push', local, '/sdcard/DCIM/receipt_quiet_fox.jpg']);
    expect((await sh('am start -n com.simplemobiletools.gallery.pro/com.simplemobiletools.gallery.pro.activities.MainActivity')).code).toBe(0);
    await tap({ text: 'DCIM', resourceId: 'com.simplemobiletools.gallery.pro:id/dir_name' });
    await tap({ text: 'receipt_quiet_fox.jpg' });
    // The picture's own pixels, as screencap sends them.
    const shot = join(scratch, 'shot.png');
    writeFileSync(shot, (await adb.run(['-s', host.address, 'exec-out', 'screencap', '-p'])).stdout);
    expect(pngSize(readFileSync(shot)).width).toBe(1080);
    const { loadImage } = await import('@napi-rs/canvas');
    const img = await loadImage(readFileSync(shot));
    const probe = createCanvas(img.width, img.height).getContext('2d');
    probe.drawImage(img, 0, 0);
    const mid = await center({ resourceId: 'com.simplemobiletools.gallery.pro:id/gestures_view' });
    const [r, gr, b] = probe.getImageData(mid.x, mid.y, 1, 1).data;
    expect([r! > 200, gr! < 60, b! < 60]).toEqual([true, true, true]);

    expect(await found('/storage/emulated/0/Download', 'receipt_quiet_fox.jpg')).toBe(false);
    await tap({ contentDesc: 'More options' });
    await tap({ text: 'Copy to' });
    await tap({ text: 'Other folder' });
    await tap({ text: 'Download', resourceId: 'com.simplemobiletools.gallery.pro:id/list_item_name' });
    await tap({ text: 'OK' });
    expect(await found('/storage/emulated/0/Download', 'receipt_quiet_fox.jpg')).toBe(true);
    expect(await found('/storage/emulated/0/DCIM', 'receipt_quiet_fox.jpg')).toBe(true);
  });

  it('SimpleDrawProCreateDrawing: a swipe draws, and the drawing is saved as a PNG in Pictures under the name typed', async () => {
    expect((await sh('am start -n com.simplemobiletools.draw.pro/com.simplemobiletools.draw.pro.activities.MainActivity')).code).toBe(0);
    const canvas = findFirst(await screen(), { resourceId: 'com.simplemobiletools.draw.pro:id/my_canvas' })!.node.bounds;
    const y = (canvas.top + canvas.bottom) >> 1;
    expect((await sh(`input swipe ${canvas.left + 100} ${y} ${canvas.right - 100} ${y} 400`)).code).toBe(0);
    await tap({ contentDesc: 'Save' });
    await tap({ resourceId: 'com.simplemobiletools.draw.pro:id/save_image_path' });
    const list = findFirst(await screen(), { resourceId: 'com.simplemobiletools.draw.pro:id/filepicker_list' })!.node.bounds;
    const x = (list.left + list.right) >> 1;
    await sh(`input swipe ${x} ${list.bottom - 20} ${x} ${list.top + 20} 300`);
    await tap({ text: 'Pictures' });
    await tap({ text: 'OK' });
    await tap({ resourceId: 'com.simplemobiletools.draw.pro:id/save_image_filename' });
    await sh('input keyevent KEYCODE_MOVE_END');
    const proposed = findFirst(await screen(), { resourceId: 'com.simplemobiletools.draw.pro:id/save_image_filename' })!.node.text;
    for (let i = 0; i < proposed.length; i++) await sh('input keyevent KEYCODE_DEL');
    await sh('input text lorem_quiet_fox');
    await sh('input keyevent KEYCODE_BACK');
    await tap({ text: 'PNG' });
    await tap({ text: 'OK' });
    expect(await found('/storage/emulated/0/Pictures', 'lorem_quiet_fox.png')).toBe(true);
    const local = join(scratch, 'drawing.png');
    await adb.ok(['-s', host.address, 'pull', '/sdcard/Pictures/lorem_quiet_fox.png', local]);
    expect(pngSize(readFileSync(local))).toEqual({ width: 1080, height: 1500 });
  });
});
