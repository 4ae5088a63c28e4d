import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { BOOT_SNAPSHOT } from '../../../core/device/device.js';
import { device, find, sh, tap } from '../../helpers/simdroid.js';

/** Camera driven through its UI, read back with the shell commands AndroidWorld's checks use. */
const d = device();
afterAll(() => d.close());

const PKG = 'com.android.camera2';
const MEDIA = '/data/data/com.android.providers.media.module/databases/external.db';
const ls = (dir: string) => sh(d, `ls ${dir}`).split('\n').map((l) => l.trim()).filter(Boolean);

beforeEach(() => {
  d.loadSnapshotSync(BOOT_SNAPSHOT);
  sh(d, `am start -n ${PKG}/com.android.camera.CameraLauncher`);
});

describe('Camera', () => {
  it('opens CameraActivity from the CameraLauncher alias AndroidWorld starts', () => {
    expect(d.wm.foreground()).toMatchObject({ package: PKG, activity: 'com.android.camera.CameraActivity' });
    expect(find(d, { contentDesc: 'Shutter' })).toBeDefined();
  });

  it('writes one JPEG under Pictures per shutter press, named by the local time, and indexes it', () => {
    expect(ls('/sdcard/Pictures')).toEqual([]);
    tap(d, { contentDesc: 'Shutter' });
    tap(d, { contentDesc: 'Shutter' });
    const files = ls('/sdcard/Pictures');
    expect(files).toHaveLength(2);
    for (const f of files) expect(f).toMatch(/^IMG_\d{8}_\d{6}(_\d+)?\.jpg$/);
    // A JPEG the device's image decoders take: SOI marker first.
    expect(d.fs.readFile(`/sdcard/Pictures/${files[0]}`).subarray(0, 3).toString('hex')).toBe('ffd8ff');
    expect(sh(d, `sqlite3 ${MEDIA} "SELECT COUNT(*) FROM files WHERE media_type = 1 AND mime_type = 'image/jpeg'"`).trim()).toBe('2');
    expect(ls('/sdcard/Movies')).toEqual([]);
  });

  it('records a video in Video mode between Start and Stop, saved under Movies on Stop', async () => {
    tap(d, { text: 'Video' });
    tap(d, { contentDesc: 'Start recording' });
    await d.idle(3000);
    expect(find(d, { resourceId: `${PKG}:id/recording_time` })?.node.text).toMatch(/00:0[3-5]/);
    expect(ls('/sdcard/Movies')).toEqual([]);
    tap(d, { contentDesc: 'Stop recording' });
    const files = ls('/sdcard/Movies');
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^VID_\d{8}_\d{6}\.mp4$/);
    expect(sh(d, `sqlite3 ${MEDIA} "SELECT mime_type, media_type FROM files"`).trim()).toBe('video/mp4|3');
    expect(ls('/sdcard/Pictures')).toEqual([]);
  });

  it('keeps a clip being recorded when the app is left', () => {
    tap(d, { text: 'Video' });
    tap(d, { contentDesc: 'Start recording' });
    d.inputSync({ kind: 'key', key: 'HOME' });
    expect(ls('/sdcard/Movies')).toHaveLength(1);
  });
});
