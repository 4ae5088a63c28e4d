import { afterAll, describe, expect, it } from 'vitest';
import { resetForTask } from '../../core/episode/runner.js';
import { instantiate } from '../../core/tasks/instance.js';
import type { TaskTemplate } from '../../core/tasks/task.js';
import { TakePhoto, TakeVideo } from '../../core/tasks/families/camera/index.js';
import { OpenApp } from '../../core/tasks/families/settings/open-app.js';
import { ChromeMultiply } from '../../core/tasks/families/chrome/multiply.js';
import { ChromeMaze, drawMaze } from '../../core/tasks/families/chrome/maze.js';
import { ChromeDraw } from '../../core/tasks/families/chrome/draw.js';
import { createRng } from '../../core/util/rng.js';
import { device, find, sh, tap, typeInto } from '../helpers/simdroid.js';

/** The Camera, SystemOpenApp and Chrome checkers accept the goal state and reject near misses. */
const d = device();
afterAll(() => d.close());

async function start<P>(t: TaskTemplate<P>, seed = 3): Promise<P> {
  const inst = instantiate(t, seed);
  await resetForTask(d, inst);
  return inst.params;
}

const check = <P>(t: TaskTemplate<P>, p: P) => t.check(d, p, { actions: [] }).then((v) => v.ok);
const camera = () => sh(d, 'am start -n com.android.camera2/com.android.camera.CameraLauncher');

describe('CameraTakePhoto / CameraTakeVideo', () => {
  it('keeps the earlier captures it seeds, and no new file is not done', async () => {
    const p = await start(TakePhoto, 4);
    expect(sh(d, 'ls /sdcard/Pictures').trim().split('\n').filter(Boolean).sort()).toEqual([...p.photos].sort());
    expect(await check(TakePhoto, p)).toBe(false);
  });

  it('one photo is done; a second photo, or a video instead, is not', async () => {
    const p = await start(TakePhoto);
    camera();
    tap(d, { contentDesc: 'Shutter' });
    expect(await check(TakePhoto, p)).toBe(true);
    tap(d, { contentDesc: 'Shutter' });
    expect(await check(TakePhoto, p)).toBe(false);

    const v = await start(TakePhoto);
    camera();
    tap(d, { text: 'Video' });
    tap(d, { contentDesc: 'Start recording' });
    tap(d, { contentDesc: 'Stop recording' });
    expect(await check(TakePhoto, v)).toBe(false);
    expect(await check(TakeVideo, v)).toBe(true);
  });

  it('a new video with an earlier one deleted is not done', async () => {
    const p = await start(TakeVideo, 7);
    expect(p.videos.length).toBeGreaterThan(0);
    camera();
    tap(d, { text: 'Video' });
    tap(d, { contentDesc: 'Start recording' });
    tap(d, { contentDesc: 'Stop recording' });
    expect(await check(TakeVideo, p)).toBe(true);
    sh(d, `rm /sdcard/Movies/${p.videos[0]}`);
    expect(await check(TakeVideo, p)).toBe(false);
  });
});

describe('SystemOpenApp', () => {
  it('wants the named app in front, not another', async () => {
    const p = { app: 'Phone' };
    await start(OpenApp);
    sh(d, 'am start -n com.android.camera2/com.android.camera.CameraLauncher');
    expect(await check(OpenApp, p)).toBe(false);
    sh(d, 'am start -n com.google.android.dialer/com.google.android.dialer.extensions.GoogleDialtactsActivity');
    expect(await check(OpenApp, p)).toBe(true);
  });

  it('refuses an app the catalog does not have', () => {
    expect(OpenApp.params.safeParse({ app: 'Netscape' }).success).toBe(false);
  });
});

describe('Chrome templates', () => {
  const openPage = () => sh(d, 'am start -a android.intent.action.VIEW -d file:///sdcard/Download/task.html');

  it('ChromeMultiply: the right product shows Success!, a wrong one does not, nor Success! outside Chrome', async () => {
    const p = await start(ChromeMultiply);
    openPage();
    for (let i = 0; i < 5; i++) tap(d, { text: 'Next number' });
    const product = p.numbers.reduce((a, n) => a * n, 1);
    typeInto(d, { text: 'Product of the numbers' }, String(product + 1));
    tap(d, { text: 'Submit' });
    expect(await check(ChromeMultiply, p)).toBe(false);
    for (let i = 0; i < 8; i++) d.inputSync({ kind: 'key', key: 'DEL' });
    typeInto(d, { text: 'Product of the numbers' }, String(product));
    tap(d, { text: 'Submit' });
    expect(find(d, { text: 'Success!' })).toBeDefined();
    expect(await check(ChromeMultiply, p)).toBe(true);
    d.inputSync({ kind: 'key', key: 'HOME' });
    expect(await check(ChromeMultiply, p)).toBe(false);
  });

  it('ChromeMaze: every drawn maze has a way from the top-left to the bottom-right', () => {
    const rng = createRng(11);
    for (let i = 0; i < 50; i++) {
      const rows = drawMaze(rng, 5);
      expect(rows[0]![0]).toBe('.');
      expect(rows[4]![4]).toBe('.');
    }
    expect(ChromeMaze.params.safeParse({ rows: ['.x', '..'] }).success).toBe(false);
  });

  it('ChromeDraw: Submit on an empty canvas is not done', async () => {
    const p = await start(ChromeDraw);
    openPage();
    tap(d, { text: 'Submit' });
    expect(find(d, { text: 'Some colours are missing.' })).toBeDefined();
    expect(await check(ChromeDraw, p)).toBe(false);
  });
});
