import { afterAll, describe, expect, it } from 'vitest';
import { resetForTask } from '../../core/episode/runner.js';
import { instantiate } from '../../core/tasks/instance.js';
import type { TaskTemplate } from '../../core/tasks/task.js';
import type { Device } from '../../core/device/device.js';
import { SaveCopyOfPicture } from '../../core/tasks/families/gallery/copy.js';
import { DeletePicture, MovePicture } from '../../core/tasks/families/gallery/move-delete.js';
import { CreateDrawing } from '../../core/tasks/families/draw/create.js';
import { PicturePushError, pushPicture } from '../../core/tasks/families/gallery/images.js';
import { device, sh } from '../helpers/simdroid.js';

/** The Simple Gallery and Simple Draw checkers accept the right end state and reject near misses (reached by shell). */
const d = device();
afterAll(() => d.close());

async function start<P>(t: TaskTemplate<P>, seed: number): Promise<P> {
  const inst = instantiate(t, seed);
  await resetForTask(d, inst);
  return inst.params;
}

const check = <P>(t: TaskTemplate<P>, p: P) => t.check(d, p, { actions: [] }).then((v) => v.ok);
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

describe('GallerySaveCopyOfPicture', () => {
  it('seeds JPEG receipts, rejects a move, another picture copied or a renamed copy, accepts the copy', async () => {
    for (const seed of [0, 1, 2]) {
      const p = await start(SaveCopyOfPicture, seed);
      const src = `/sdcard/${p.source}`;
      const dst = `/sdcard/${p.destination}`;
      const bytes = d.shellBytes(`cat ${q(`${src}/${p.target.name}`)}`).stdout;
      expect([bytes[0], bytes[1], bytes[2]]).toEqual([0xff, 0xd8, 0xff]);
      expect(await check(SaveCopyOfPicture, p)).toBe(false);
      sh(d, `mv ${q(`${src}/${p.target.name}`)} ${q(dst)}/`);
      expect(await check(SaveCopyOfPicture, p)).toBe(false);
      await resetForTask(d, instantiate(SaveCopyOfPicture, seed));
      sh(d, `cp ${q(`${src}/${p.target.name}`)} ${q(`${dst}/copy_${p.target.name}`)}`);
      expect(await check(SaveCopyOfPicture, p)).toBe(false);
      await resetForTask(d, instantiate(SaveCopyOfPicture, seed));
      if (p.others.length > 0) {
        sh(d, `cp ${q(`${src}/${p.others[0]!.name}`)} ${q(dst)}/`);
        expect(await check(SaveCopyOfPicture, p)).toBe(false);
        await resetForTask(d, instantiate(SaveCopyOfPicture, seed));
      }
      sh(d, `cp ${q(`${src}/${p.target.name}`)} ${q(dst)}/`);
      expect(await check(SaveCopyOfPicture, p)).toBe(true);
    }
  });

  it('refuses a device that takes no file pushes, naming it and the path', async () => {
    const shellOnly = { serial: 'emulator-9999', shell: d.shell.bind(d) } as unknown as Device;
    await expect(pushPicture(shellOnly, '/sdcard/DCIM/x.jpg', Buffer.from('x'))).rejects.toThrow(PicturePushError);
    await expect(pushPicture(shellOnly, '/sdcard/DCIM/x.jpg', Buffer.from('x'))).rejects.toThrow(/emulator-9999.*\/sdcard\/DCIM\/x\.jpg/);
  });
});

describe('GalleryMovePicture and GalleryDeletePicture', () => {
  it('reject a copy left behind, another picture moved or deleted; accept the move and the deletion', async () => {
    for (const seed of [0, 1]) {
      const p = await start(MovePicture, seed);
      const [src, dst] = [`/sdcard/${p.source}`, `/sdcard/${p.destination}`];
      expect(await check(MovePicture, p)).toBe(false);
      sh(d, `cp ${q(`${src}/${p.target.name}`)} ${q(dst)}/`);
      expect(await check(MovePicture, p)).toBe(false);
      await resetForTask(d, instantiate(MovePicture, seed));
      sh(d, `mv ${q(`${src}/${p.others[0]!.name}`)} ${q(dst)}/`);
      expect(await check(MovePicture, p)).toBe(false);
      await resetForTask(d, instantiate(MovePicture, seed));
      sh(d, `mv ${q(`${src}/${p.target.name}`)} ${q(dst)}/`);
      expect(await check(MovePicture, p)).toBe(true);

      const del = await start(DeletePicture, seed);
      const dir = `/sdcard/${del.folder}`;
      expect(await check(DeletePicture, del)).toBe(false);
      sh(d, `rm ${q(`${dir}/${del.others[0]!.name}`)}`);
      expect(await check(DeletePicture, del)).toBe(false);
      await resetForTask(d, instantiate(DeletePicture, seed));
      sh(d, `rm ${q(`${dir}/${del.target.name}`)}`);
      expect(await check(DeletePicture, del)).toBe(true);
    }
  });
});

describe('DrawCreateDrawing', () => {
  it('rejects the name with another extension, a file elsewhere or a removed file of the folder; accepts the drawing', async () => {
    for (const seed of [0, 1, 2, 3]) {
      const p = await start(CreateDrawing, seed);
      const dir = `/sdcard/${p.folder}`;
      const file = `${p.name}.${p.ext}`;
      const body = p.ext === 'svg' ? '<svg xmlns="http://www.w3.org/2000/svg"><path d="M0,0 L9,9"/></svg>' : 'pixels';
      expect(await check(CreateDrawing, p)).toBe(false);
      sh(d, `echo -n ${q(body)} > ${q(`${dir}/${p.name}.${p.ext === 'png' ? 'jpg' : 'png'}`)}`);
      expect(await check(CreateDrawing, p)).toBe(false);
      await resetForTask(d, instantiate(CreateDrawing, seed));
      sh(d, `echo -n ${q(body)} > ${q(`/sdcard/${file}`)}`);
      expect(await check(CreateDrawing, p)).toBe(false);
      await resetForTask(d, instantiate(CreateDrawing, seed));
      sh(d, `echo -n ${q(body)} > ${q(`${dir}/${file}`)}`);
      if (p.existing.length > 0) {
        sh(d, `rm ${q(`${dir}/${p.existing[0]!}`)}`);
        expect(await check(CreateDrawing, p)).toBe(false);
        await resetForTask(d, instantiate(CreateDrawing, seed));
        sh(d, `echo -n ${q(body)} > ${q(`${dir}/${file}`)}`);
      }
      expect(await check(CreateDrawing, p)).toBe(true);
    }
  });

  it('rejects an SVG with no stroke in it', async () => {
    let seed = 0;
    while (instantiate(CreateDrawing, seed).params.ext !== 'svg') seed++;
    const p = await start(CreateDrawing, seed);
    sh(d, `echo -n ${q('<svg xmlns="http://www.w3.org/2000/svg"></svg>')} > ${q(`/sdcard/${p.folder}/${p.name}.svg`)}`);
    const v = await CreateDrawing.check(d, p, { actions: [] });
    expect(v.ok).toBe(false);
    expect(JSON.stringify(v)).toContain('no <path>');
  });
});
