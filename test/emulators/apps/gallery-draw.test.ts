import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createCanvas } from '@napi-rs/canvas';
import { BOOT_SNAPSHOT } from '../../../core/device/device.js';
import { boundsCenter } from '../../../core/a11y/ui-tree.js';
import { createRng } from '../../../core/util/rng.js';
import { device, elements, find, get, longPress, sh, tap } from '../../helpers/simdroid.js';

/** Simple Gallery Pro and Simple Draw Pro driven through their screens, the outcome read through the shell and the pixels. */
const d = device();
afterAll(() => d.close());

const GALLERY = 'com.simplemobiletools.gallery.pro';
const DRAW = 'com.simplemobiletools.draw.pro';

/** A JPEG of one colour, as AndroidWorld's PIL-made receipts are JPEG files. */
function jpeg(color: string, w = 300, h = 400): Buffer {
  const c = createCanvas(w, h);
  const g = c.getContext('2d');
  g.fillStyle = color;
  g.fillRect(0, 0, w, h);
  return c.encodeSync('jpeg', 92);
}

/** The screen pixel at the centre of an element (RGB). */
function pixelAt(x: number, y: number): [number, number, number] {
  const { width, rgba } = d.screenshotRaw();
  const i = (Math.round(y) * width + Math.round(x)) * 4;
  return [rgba[i]!, rgba[i + 1]!, rgba[i + 2]!];
}

/** Replaces the save dialog's file name: the caret to the end, every character deleted, the new name typed. */
function retype(name: string): void {
  tap(d, { resourceId: 'save_image_filename' });
  d.inputSync({ kind: 'key', key: 'MOVE_END' });
  const old = get(d, { resourceId: 'save_image_filename' }).node.text;
  for (let i = 0; i < old.length; i++) d.inputSync({ kind: 'key', key: 'DEL' });
  d.inputSync({ kind: 'text', text: name });
}

const open = (pkg: string) => sh(d, `monkey -p ${pkg} -c android.intent.category.LAUNCHER 1`);
const ids = (id: string) => elements(d).filter((e) => e.node.resourceId.endsWith(`:id/${id}`)).map((e) => e.node.text);

beforeEach(async () => {
  d.loadSnapshotSync(BOOT_SNAPSHOT);
  await d.writeFile('/sdcard/DCIM/receipt_red.jpg', jpeg('#FF0000'));
  d.clock.advance(60_000);
  await d.writeFile('/sdcard/DCIM/receipt_blue.jpg', jpeg('#0000FF'));
  await d.writeFile('/sdcard/Pictures/cat.png', jpeg('#00FF00'));
});

describe('Simple Gallery Pro', () => {
  it('lists the folders holding images, a folder\'s images newest first, and shows an image\'s own pixels full screen', () => {
    open(GALLERY);
    expect(d.wm.foreground().package).toBe(GALLERY);
    expect(ids('dir_name')).toEqual(expect.arrayContaining(['DCIM', 'Pictures']));
    expect(ids('dir_name')).not.toContain('Download');
    tap(d, { text: 'DCIM', resourceId: 'dir_name' });
    expect(ids('medium_name')).toEqual(['receipt_blue.jpg', 'receipt_red.jpg']);
    tap(d, { text: 'receipt_red.jpg' });
    expect(d.wm.foreground().activity).toBe(`${GALLERY}.activities.ViewPagerActivity`);
    const view = get(d, { resourceId: 'gestures_view' });
    const { x, y } = boundsCenter(view.node.bounds);
    const [r, g, b] = pixelAt(x, y);
    expect(r).toBeGreaterThan(200);
    expect(g).toBeLessThan(60);
    expect(b).toBeLessThan(60);
    // A fling to the right goes to the newer image, blue.
    d.inputSync({ kind: 'swipe', x1: x - 300, y1: y, x2: x + 300, y2: y, durationMs: 200 });
    expect(get(d, { resourceId: 'toolbar_title' }).node.text).toBe('receipt_blue.jpg');
    const [r2, , b2] = pixelAt(x, y);
    expect(b2).toBeGreaterThan(200);
    expect(r2).toBeLessThan(60);
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('shows a picture rewritten in place with its new pixels, and a file that is no picture as an empty frame', async () => {
    open(GALLERY);
    tap(d, { text: 'Pictures', resourceId: 'dir_name' });
    tap(d, { text: 'cat.png' });
    const { x, y } = boundsCenter(get(d, { resourceId: 'gestures_view' }).node.bounds);
    expect(pixelAt(x, y)[1]).toBeGreaterThan(200);
    // Same path and device time after the snapshot: only the bytes differ.
    d.loadSnapshotSync(BOOT_SNAPSHOT);
    await d.writeFile('/sdcard/Pictures/cat.png', jpeg('#0000FF'));
    open(GALLERY);
    tap(d, { text: 'Pictures', resourceId: 'dir_name' });
    tap(d, { text: 'cat.png' });
    expect(pixelAt(x, y)[2]).toBeGreaterThan(200);
    await d.writeFile('/sdcard/Pictures/cat.png', Buffer.from('not a picture'));
    d.inputSync({ kind: 'tap', x: 5, y: y });
    expect(pixelAt(x, y)).toEqual([0, 0, 0]);
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('copies an image into an empty Download folder through Copy to › Other folder, keeping the original', () => {
    open(GALLERY);
    tap(d, { text: 'DCIM', resourceId: 'dir_name' });
    tap(d, { text: 'receipt_red.jpg' });
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Copy to' });
    expect(find(d, { text: 'Select a folder' })).toBeDefined();
    tap(d, { text: 'Other folder' });
    tap(d, { text: 'Download', resourceId: 'list_item_name' });
    expect(find(d, { text: 'Download', resourceId: 'breadcrumb_item' })).toBeDefined();
    tap(d, { text: 'OK' });
    expect(sh(d, 'find /storage/emulated/0/Download -type f -o -type d').split('\n')).toContain('/storage/emulated/0/Download/receipt_red.jpg');
    expect(sh(d, 'ls /sdcard/DCIM').split('\n')).toContain('receipt_red.jpg');
    expect(d.shellBytes('cat /sdcard/Download/receipt_red.jpg').stdout.equals(d.shellBytes('cat /sdcard/DCIM/receipt_red.jpg').stdout)).toBe(true);
  });

  it('selects pictures with a long press and copies both, deletes one from the selection bar, Back ends selecting', () => {
    open(GALLERY);
    tap(d, { text: 'DCIM', resourceId: 'dir_name' });
    longPress(d, { text: 'receipt_red.jpg' });
    expect(get(d, { resourceId: 'action_mode_title' }).node.text).toBe('1 selected');
    tap(d, { text: 'receipt_blue.jpg' });
    expect(get(d, { resourceId: 'action_mode_title' }).node.text).toBe('2 selected');
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Copy to' });
    tap(d, { text: 'Pictures', resourceId: 'dir_name' });
    expect(sh(d, 'ls /sdcard/Pictures').split('\n').filter(Boolean).sort()).toEqual(['cat.png', 'receipt_blue.jpg', 'receipt_red.jpg']);
    expect(find(d, { resourceId: 'action_mode_title' })).toBeUndefined();
    longPress(d, { text: 'receipt_red.jpg' });
    tap(d, { contentDesc: 'Delete' });
    tap(d, { text: 'Delete', resourceId: 'button1' });
    expect(sh(d, 'ls /sdcard/DCIM').trim()).toBe('receipt_blue.jpg');
    longPress(d, { text: 'receipt_blue.jpg' });
    d.inputSync({ kind: 'key', key: 'BACK' });
    expect(find(d, { resourceId: 'action_mode_title' })).toBeUndefined();
    expect(d.wm.foreground().activity).toBe(`${GALLERY}.activities.MediaActivity`);
  });

  it('moves an image to a folder of the picker\'s grid and deletes one', () => {
    open(GALLERY);
    tap(d, { text: 'DCIM', resourceId: 'dir_name' });
    tap(d, { text: 'receipt_red.jpg' });
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Move to' });
    tap(d, { text: 'Pictures', resourceId: 'dir_name' });
    expect(sh(d, 'ls /sdcard/Pictures').split('\n').filter(Boolean).sort()).toEqual(['cat.png', 'receipt_red.jpg']);
    expect(get(d, { resourceId: 'toolbar_title' }).node.text).toBe('receipt_blue.jpg');
    tap(d, { contentDesc: 'Delete' });
    tap(d, { text: 'Delete', resourceId: 'button1' });
    expect(sh(d, 'ls /sdcard/DCIM').trim()).toBe('');
    // The folder is empty: back to the folder's grid.
    expect(d.wm.foreground().activity).toBe(`${GALLERY}.activities.MediaActivity`);
  });
});

describe('Simple Draw Pro', () => {
  it('draws a line with a swipe and saves it as a PNG in Pictures under the name typed', () => {
    open(DRAW);
    expect(d.wm.foreground().package).toBe(DRAW);
    const canvas = get(d, { resourceId: 'my_canvas' }).node.bounds;
    const y = (canvas.top + canvas.bottom) / 2;
    d.inputSync({ kind: 'swipe', x1: canvas.left + 100, y1: y, x2: canvas.right - 100, y2: y, durationMs: 400 });
    const [r, g, b] = pixelAt((canvas.left + canvas.right) / 2, y);
    expect(Math.max(r, g, b)).toBeLessThan(60);
    tap(d, { contentDesc: 'Save' });
    expect(get(d, { resourceId: 'save_image_path' }).node.text).toBe('Internal');
    tap(d, { resourceId: 'save_image_path' });
    // The storage's folders are more than the picker shows at once.
    expect(find(d, { text: 'Pictures', resourceId: 'list_item_name' })).toBeUndefined();
    const list = get(d, { resourceId: 'filepicker_list' }).node.bounds;
    const x = (list.left + list.right) / 2;
    d.inputSync({ kind: 'swipe', x1: x, y1: list.bottom - 20, x2: x, y2: list.top + 20, durationMs: 300 });
    tap(d, { text: 'Pictures', resourceId: 'list_item_name' });
    tap(d, { text: 'OK' });
    expect(get(d, { resourceId: 'save_image_path' }).node.text).toBe('Internal/Pictures');
    // Replace the proposed name, as a person does: to the end of the field, delete it, type.
    expect(get(d, { resourceId: 'save_image_filename' }).node.text).toMatch(/^image_\d{4}_\d{2}_\d{2}_/);
    retype('lorem_sketch');
    tap(d, { resourceId: 'save_image_radio_png' });
    tap(d, { text: 'OK' });
    const saved = sh(d, 'find /storage/emulated/0/Pictures -type f -o -type d').split('\n');
    expect(saved).toContain('/storage/emulated/0/Pictures/lorem_sketch.png');
    const png = d.shellBytes('cat /sdcard/Pictures/lorem_sketch.png').stdout;
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1080, 1500]);
  });

  it('draws a streamed finger\'s whole way (an L), not only its two ends', () => {
    open(DRAW);
    const c = get(d, { resourceId: 'my_canvas' }).node.bounds;
    const [left, top, right, bottom] = [c.left + 100, c.top + 100, c.right - 100, c.bottom - 100];
    d.touchSync('down', left, top, 0);
    for (let i = 1; i <= 10; i++) d.touchSync('move', left, top + ((bottom - top) * i) / 10);
    for (let i = 1; i <= 10; i++) d.touchSync('move', left + ((right - left) * i) / 10, bottom);
    d.touchSync('up', right, bottom, 500);
    // The corner is drawn; the diagonal from the start to the end is not.
    expect(Math.max(...pixelAt(left, bottom))).toBeLessThan(60);
    expect(Math.min(...pixelAt((left + right) / 2, (top + bottom) / 2))).toBeGreaterThan(200);
  });

  it('saves an SVG with the strokes as paths, and undo empties the canvas', () => {
    open(DRAW);
    const c = get(d, { resourceId: 'my_canvas' }).node.bounds;
    d.inputSync({ kind: 'swipe', x1: c.left + 50, y1: c.top + 50, x2: c.right - 50, y2: c.bottom - 50, durationMs: 400 });
    tap(d, { contentDesc: 'Save' });
    retype('dolor_x');
    tap(d, { resourceId: 'save_image_radio_svg' });
    tap(d, { text: 'OK' });
    const svg = sh(d, 'cat /sdcard/dolor_x.svg');
    expect(svg).toContain('<svg');
    expect(svg.match(/<path /g)?.length).toBe(1);
    tap(d, { contentDesc: 'Undo' });
    expect(get(d, { contentDesc: 'Undo' }).node.enabled).toBe(false);
  });
});

describe('both apps under random input', () => {
  it('take 300 seeded taps, swipes, long presses and Backs each without crashing, and keep rendering', () => {
    for (const pkg of [GALLERY, DRAW]) {
      const rng = createRng(`monkey-${pkg}`);
      const { width, height } = d.screen;
      for (let i = 0; i < 300; i++) {
        if (d.wm.foreground().package !== pkg) open(pkg);
        const [x, y] = [rng.int(0, width - 1), rng.int(0, height - 1)];
        const r = rng.next();
        if (r < 0.55) d.inputSync({ kind: 'tap', x, y });
        else if (r < 0.8) d.inputSync({ kind: 'swipe', x1: x, y1: y, x2: rng.int(0, width - 1), y2: rng.int(0, height - 1), durationMs: 300 });
        else if (r < 0.9) d.inputSync({ kind: 'long_press', x, y, durationMs: 1000 });
        else d.inputSync({ kind: 'key', key: 'BACK' });
        if (i % 50 === 0) expect(d.screenshotSync().length).toBeGreaterThan(0);
      }
      expect(d.wm.state.crashes).toEqual([]);
    }
  });
});
