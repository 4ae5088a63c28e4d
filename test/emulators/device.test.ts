import { createHash } from 'node:crypto';
import { loadImage, createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { SimDroid, SnapshotNotFoundError } from '../../emulators/simdroid/simdroid.js';
import { launcherApp } from '../../emulators/simdroid/apps/launcher/index.js';
import { settingsApp } from '../../emulators/simdroid/apps/settings/index.js';
import type { AppDef } from '../../emulators/simdroid/runtime/app.js';
import { button, screen } from '../../emulators/simdroid/view/widgets.js';
import { SeedError } from '../../core/util/rng.js';
import { BOOT_SNAPSHOT } from '../../core/device/device.js';
import { device, find, get, scroll, sh, tap, texts, typeInto } from '../helpers/simdroid.js';

/** Everything a snapshot must restore, as one comparable value. */
function digest(d: SimDroid): string {
  const h = (b: Buffer) => createHash('sha1').update(b).digest('hex');
  return JSON.stringify({
    settings: d.settings.data,
    fs: [...d.fs.entries].map(([p, e]) => [p, e.type, e.mtime, e.type === 'file' ? h(e.data) : '']).sort(),
    dbs: d.dbs.paths().map((p) => [p, h(d.dbs.serialize(p))]),
    ui: d.wm.state,
    clock: d.clock.now(),
    xml: h(Buffer.from(d.uiXml())),
  });
}

async function pixels(png: Buffer) {
  const img = await loadImage(png);
  const c = createCanvas(img.width, img.height);
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  return { width: img.width, height: img.height, data: g.getImageData(0, 0, img.width, img.height).data };
}

describe('snapshots', () => {
  it('restore returns an identical state, however much changed', () => {
    const d = device();
    sh(d, 'am start -n com.android.settings/.Settings');
    d.saveSnapshotSync('before');
    const before = digest(d);
    sh(d, 'settings put global wifi_on 0 && mkdir -p /sdcard/Notes && echo hello > /sdcard/Notes/a.txt');
    sh(d, `content insert --uri content://sms/inbox --bind address:s:5551234 --bind body:s:hi`);
    tap(d, { text: 'Display' });
    scroll(d, 'down');
    d.inputSync({ kind: 'key', key: 'HOME' });
    expect(digest(d)).not.toBe(before);
    d.loadSnapshotSync('before');
    expect(digest(d)).toBe(before);
    // Restoring is repeatable: the snapshot was not changed by the restored state's later edits.
    sh(d, 'settings put global bluetooth_on 1');
    d.loadSnapshotSync('before');
    expect(digest(d)).toBe(before);
    d.close();
  });

  it('lists, deletes and refuses unknown snapshots with a named error', async () => {
    const d = device();
    expect(await d.listSnapshots()).toEqual([BOOT_SNAPSHOT]);
    await d.saveSnapshot('x');
    expect(await d.listSnapshots()).toEqual([BOOT_SNAPSHOT, 'x']);
    await d.deleteSnapshot('x');
    await expect(d.loadSnapshot('x')).rejects.toBeInstanceOf(SnapshotNotFoundError);
    await expect(d.deleteSnapshot('x')).rejects.toThrow('no snapshot named "x"');
    d.close();
  });
});

describe('screenshots', () => {
  it('render a non-blank picture that differs between screens', async () => {
    const d = device();
    const home = await pixels(d.screenshotSync(1));
    expect([home.width, home.height]).toEqual([1080, 2400]);
    sh(d, 'am start -n com.android.settings/.Settings');
    const settings = await pixels(d.screenshotSync(1));
    const colours = new Set<number>();
    for (let i = 0; i < settings.data.length; i += 4 * 97) colours.add((settings.data[i]! << 16) | (settings.data[i + 1]! << 8) | settings.data[i + 2]!);
    expect(colours.size).toBeGreaterThan(8);
    let differing = 0;
    for (let i = 0; i < home.data.length; i += 4) if (home.data[i] !== settings.data[i]) differing++;
    expect(differing / (home.data.length / 4)).toBeGreaterThan(0.2);
    d.close();
  });

  it('draws text where the accessibility tree says it is', async () => {
    const d = device();
    sh(d, 'am start -n com.android.settings/.Settings');
    const b = get(d, { text: 'Network & internet' }).node.bounds;
    const img = await pixels(d.screenshotSync(1));
    let dark = 0;
    for (let y = b.top; y < b.bottom; y++) {
      for (let x = b.left; x < b.right; x++) {
        const i = (y * img.width + x) * 4;
        if (img.data[i]! < 100 && img.data[i + 1]! < 100 && img.data[i + 2]! < 100) dark++;
      }
    }
    // Glyph strokes: a few hundred dark pixels inside the label's box on a light background.
    expect(dark).toBeGreaterThan(300);
    d.close();
  });

  it('keeps raw RGBA pixels per screen state, drawn again after a change', () => {
    const d = device();
    const a = d.screenshotRgba(1080, 2400, 1).rgba;
    expect(d.screenshotRgba(1080, 2400, 1).rgba).toBe(a);
    expect(d.screenshotRgba(540, 1200, 0.5).rgba.length).toBe(540 * 1200 * 4);
    d.inputSync({ kind: 'key', key: 'APP_SWITCH' });
    const b = d.screenshotRgba(1080, 2400, 1).rgba;
    expect(b).not.toBe(a);
    expect(b.equals(a)).toBe(false);
    d.close();
  });

  it('renders at half resolution', async () => {
    const d = device();
    const half = await pixels(d.screenshotSync(0.5));
    expect([half.width, half.height]).toEqual([540, 1200]);
    d.close();
  });

  it('leaves no mark of a finished touch: a tap and a long press on nothing clickable change no pixel (issue 21)', () => {
    const d = device();
    sh(d, 'am start -n com.android.settings/.Settings');
    const title = get(d, { text: 'Settings' }).node.bounds;
    const tree = d.uiTreeSync();
    const before = d.screenshotSync(1);
    const [x, y] = [Math.round((title.left + title.right) / 2), Math.round((title.top + title.bottom) / 2)];
    d.inputSync({ kind: 'tap', x, y });
    d.inputSync({ kind: 'long_press', x, y, durationMs: 600 });
    expect(d.uiTreeSync()).toEqual(tree);
    expect(d.screenshotSync(1).equals(before)).toBe(true);
    d.close();
  });

  it('follows the dark theme setting', async () => {
    const d = device();
    sh(d, 'am start -n com.android.settings/.Settings');
    const light = await pixels(d.screenshotSync(0.5));
    sh(d, 'settings put secure ui_night_mode 2');
    const dark = await pixels(d.screenshotSync(0.5));
    const lum = (p: typeof light) => p.data[(600 * p.width + 270) * 4]!;
    expect(lum(light)).toBeGreaterThan(200);
    expect(lum(dark)).toBeLessThan(60);
    d.close();
  });
});

describe('input and navigation', () => {
  it('opens the app drawer with a swipe up, and it needs scrolling', () => {
    const d = device();
    expect(find(d, { text: 'YouTube' })).toBeUndefined();
    d.inputSync({ kind: 'swipe', x1: 540, y1: 1900, x2: 540, y2: 700, durationMs: 300 });
    expect(find(d, { text: 'Calculator' })).toBeDefined();
    // The last app alphabetically is below the fold until the drawer is scrolled.
    expect(find(d, { text: 'YouTube' })).toBeUndefined();
    expect(find(d, { resourceId: 'com.google.android.apps.nexuslauncher:id/apps_list_view' })!.node.scrollable).toBe(true);
    scroll(d, 'down');
    expect(find(d, { text: 'YouTube' })).toBeDefined();
    tap(d, { text: 'YouTube' });
    expect(d.wm.foreground().package).toBe('com.google.android.youtube');
    d.close();
  });

  it('shows the keyboard for a focused field, types into it, and Back hides the keyboard first', () => {
    const d = device();
    sh(d, 'am start -n com.android.settings/.SubSettings --es page about');
    tap(d, { text: 'Device name' });
    const field = get(d, { className: 'android.widget.EditText' });
    expect(field.node.text).toBe('SimDroid');
    typeInto(d, { className: 'android.widget.EditText' }, 'X');
    expect(get(d, { className: 'android.widget.EditText' }).node).toMatchObject({ text: 'SimDroidX', focused: true });
    expect(find(d, { resourceId: 'com.google.android.inputmethod.latin:id/keyboard_holder' })).toBeDefined();
    d.inputSync({ kind: 'key', key: 'BACK' });
    expect(find(d, { resourceId: 'com.google.android.inputmethod.latin:id/keyboard_holder' })).toBeUndefined();
    expect(find(d, { text: 'Rename' })).toBeDefined();
    d.inputSync({ kind: 'key', key: 'BACK' });
    expect(find(d, { text: 'Rename' })).toBeUndefined();
    expect(d.settings.get('global', 'device_name')).toBe('SimDroid');
    d.close();
  });

  it('types with the soft keyboard keys too', () => {
    const d = device();
    sh(d, 'am start -n com.android.settings/.SubSettings --es page about');
    tap(d, { text: 'Device name' });
    tap(d, { className: 'android.widget.EditText' });
    // The keys are not in the accessibility tree (as on a device); tap where "q" is drawn.
    const kb = get(d, { resourceId: 'com.google.android.inputmethod.latin:id/keyboard_holder' }).node.bounds;
    d.inputSync({ kind: 'tap', x: kb.left + 60, y: kb.top + 60 });
    expect(get(d, { className: 'android.widget.EditText' }).node.text).toBe('SimDroidq');
    d.close();
  });

  it('ignores typing with no focused field and taps outside the screen', () => {
    const d = device();
    sh(d, 'am start -n com.android.settings/.Settings');
    const before = d.uiXml();
    d.inputSync({ kind: 'text', text: 'nothing happens' });
    d.inputSync({ kind: 'tap', x: 5000, y: -20 });
    expect(d.uiXml()).toBe(before);
    d.close();
  });

  it('keeps an app task when going home, and resumes it as it was', () => {
    const d = device();
    sh(d, 'am start -n com.android.settings/.Settings');
    tap(d, { text: 'Display' });
    d.inputSync({ kind: 'key', key: 'HOME' });
    expect(d.wm.foreground().package).toBe('com.google.android.apps.nexuslauncher');
    sh(d, 'am start -n com.android.settings/.Settings');
    expect(texts(d)).toContain('Dark theme');
    // Back from the root activity moves the task to the background (Android 12+).
    d.inputSync({ kind: 'key', key: 'BACK' });
    d.inputSync({ kind: 'key', key: 'BACK' });
    expect(d.wm.foreground().package).toBe('com.google.android.apps.nexuslauncher');
    d.close();
  });

  it('switches apps through Overview', () => {
    const d = device();
    sh(d, 'am start -n com.android.settings/.Settings');
    sh(d, 'am start -n com.android.chrome/com.google.android.apps.chrome.Main');
    d.inputSync({ kind: 'key', key: 'APP_SWITCH' });
    tap(d, { contentDesc: 'Settings' });
    expect(d.wm.foreground().package).toBe('com.android.settings');
    d.close();
  });

  it('modal dialogs swallow touches outside and cancel', () => {
    const d = device();
    sh(d, 'am start -n com.android.settings/.SubSettings --es page display');
    tap(d, { text: 'Screen timeout' });
    expect(find(d, { text: '5 minutes' })).toBeDefined();
    d.inputSync({ kind: 'tap', x: 540, y: 150 });
    expect(find(d, { text: '5 minutes' })).toBeUndefined();
    expect(d.settings.get('system', 'screen_off_timeout')).toBe('60000');
    d.close();
  });

  it('is deterministic: the same inputs give the same screens', () => {
    const run = () => {
      const d = new SimDroid({ seed: 3 });
      sh(d, 'am start -n com.android.settings/.Settings');
      tap(d, { text: 'Display' });
      tap(d, { text: 'Dark theme' });
      const out = [d.uiXml(), d.screenshotSync(0.5).toString('base64')];
      d.close();
      return out;
    };
    expect(run()).toEqual(run());
  });

  it('draws first-boot content from its seed', () => {
    const contacts = (seed: number) => {
      const d = new SimDroid({ seed });
      const out = sh(d, 'content query --uri content://contacts/phones --projection display_name:number');
      d.close();
      return out;
    };
    expect(contacts(1)).toBe(contacts(1));
    expect(contacts(1)).not.toBe(contacts(2));
  });

  it('asks for the notification permission on some apps\' first launch only', () => {
    const d = device();
    sh(d, 'am start -n com.simplemobiletools.smsmessenger/.activities.MainActivity');
    expect(find(d, { resourceId: 'com.android.permissioncontroller:id/permission_allow_button' })).toBeDefined();
    tap(d, { text: "Don't allow" });
    expect(find(d, { resourceId: 'com.android.permissioncontroller:id/permission_allow_button' })).toBeUndefined();
    d.inputSync({ kind: 'key', key: 'HOME' });
    sh(d, 'am start -n com.simplemobiletools.smsmessenger/.activities.MainActivity');
    expect(find(d, { resourceId: 'com.android.permissioncontroller:id/permission_allow_button' })).toBeUndefined();
    d.close();
  });

  it('rejects bad construction options with clear errors', () => {
    expect(() => new SimDroid({ seed: -1 })).toThrow(SeedError);
    expect(() => new SimDroid({ seed: 1.5 })).toThrow(SeedError);
    expect(() => new SimDroid({ width: 0 })).toThrow('width must be a positive integer');
  });
});

describe('app crashes stay inside the app', () => {
  const crashy: AppDef = {
    package: 'com.example.crashy',
    label: 'Crashy',
    icon: { glyph: 'info', color: '#000000' },
    launchActivity: 'com.example.crashy.Main',
    activities: [{
      name: 'com.example.crashy.Main',
      create: () => ({}),
      render: () => ({ body: screen({ body: [button('Boom', () => { throw new Error('kaboom'); })] }) }),
    }],
  };

  it('closes the app, records the crash and keeps the device working', () => {
    const d = new SimDroid({ apps: [launcherApp, settingsApp, crashy] });
    sh(d, 'am start -n com.example.crashy/.Main');
    tap(d, { text: 'Boom' });
    expect(d.wm.state.crashes).toEqual([expect.objectContaining({ package: 'com.example.crashy', message: 'Error: kaboom' })]);
    expect(d.wm.foreground().package).toBe('com.google.android.apps.nexuslauncher');
    sh(d, 'am start -n com.android.settings/.Settings');
    expect(texts(d)).toContain('Display');
    d.close();
  });
});

describe('activity lifecycle', () => {
  it('pauses the activity in front when the user leaves it any way but Back', () => {
    const d = device();
    const notes = '/storage/emulated/0/Documents/Markor';
    sh(d, `mkdir -p ${notes} && echo -n hello > ${notes}/pause.md`);
    sh(d, 'am start -n net.gsantner.markor/.activity.DocumentActivity --es path /storage/emulated/0/Documents/Markor/pause.md');
    typeInto(d, { className: 'android.widget.EditText' }, ' world');
    d.inputSync({ kind: 'key', key: 'HOME' });
    expect(sh(d, `cat ${notes}/pause.md`)).toBe('hello world');
    expect(d.wm.state.crashes).toEqual([]);
    d.close();
  });
});
