import { afterAll, describe, expect, it } from 'vitest';
import { resetForTask } from '../../core/episode/runner.js';
import { instantiate } from '../../core/tasks/instance.js';
import type { TaskTemplate } from '../../core/tasks/task.js';
import { DeleteFile, DeleteFilesByType } from '../../core/tasks/families/files/delete.js';
import { RenameFile } from '../../core/tasks/families/files/rename.js';
import { CopyFile, MoveFile } from '../../core/tasks/families/files/transfer.js';
import { CreateFolder } from '../../core/tasks/families/files/create-folder.js';
import { CountQuestion, FileSizeQuestion, LargestFileQuestion, shownSize } from '../../core/tasks/families/files/questions.js';
import { device, longPress, sh, tap } from '../helpers/simdroid.js';

/** Each Files checker accepts the right end state and rejects near misses (reached by shell or UI). */
const d = device();
afterAll(() => d.close());

async function start<P>(t: TaskTemplate<P>, seed = 3): Promise<P> {
  const inst = instantiate(t, seed);
  await resetForTask(d, inst);
  return inst.params;
}

const check = <P>(t: TaskTemplate<P>, p: P, answer?: string) => t.check(d, p, { actions: [], ...(answer !== undefined ? { answer } : {}) }).then((v) => v.ok);
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const SD = '/sdcard';

describe('FilesDeleteFile', () => {
  it('rejects deleting the wrong file or one too many, accepts the target alone', async () => {
    const p = await start(DeleteFile);
    const dir = `${SD}/${p.folder}`;
    expect(await check(DeleteFile, p)).toBe(false);
    sh(d, `rm ${q(`${dir}/${p.others[0]!.name}`)}`);
    expect(await check(DeleteFile, p)).toBe(false);
    await resetForTask(d, instantiate(DeleteFile, 3));
    sh(d, `rm ${q(`${dir}/${p.target.name}`)} ${q(`${dir}/${p.others[1]!.name}`)}`);
    expect(await check(DeleteFile, p)).toBe(false);
    await resetForTask(d, instantiate(DeleteFile, 3));
    sh(d, `rm ${q(`${dir}/${p.target.name}`)}`);
    expect(await check(DeleteFile, p)).toBe(true);
  });

  it('rejects a file added meanwhile', async () => {
    const p = await start(DeleteFile);
    sh(d, `rm ${q(`${SD}/${p.folder}/${p.target.name}`)} && echo hi > ${q(`${SD}/${p.folder}/extra.txt`)}`);
    expect(await check(DeleteFile, p)).toBe(false);
  });
});

describe('FilesDeleteFilesByType', () => {
  it('needs every file of the type gone and nothing else', async () => {
    const p = await start(DeleteFilesByType);
    const dir = `${SD}/${p.folder}`;
    sh(d, `rm ${q(`${dir}/${p.targets[0]!.name}`)}`);
    expect(await check(DeleteFilesByType, p)).toBe(false);
    sh(d, `rm ${p.targets.slice(1).map((t) => q(`${dir}/${t.name}`)).join(' ')}`);
    expect(await check(DeleteFilesByType, p)).toBe(true);
    sh(d, `rm ${q(`${dir}/${p.others[0]!.name}`)}`);
    expect(await check(DeleteFilesByType, p)).toBe(false);
  });
});

describe('FilesRenameFile', () => {
  it('rejects a copy or a wrong name, accepts the rename', async () => {
    const p = await start(RenameFile);
    const dir = `${SD}/${p.folder}`;
    sh(d, `cp ${q(`${dir}/${p.target.name}`)} ${q(`${dir}/${p.newName}`)}`);
    expect(await check(RenameFile, p)).toBe(false);
    sh(d, `rm ${q(`${dir}/${p.newName}`)} && mv ${q(`${dir}/${p.target.name}`)} ${q(`${dir}/${p.newName.toUpperCase()}`)}`);
    expect(await check(RenameFile, p)).toBe(false);
    sh(d, `mv ${q(`${dir}/${p.newName.toUpperCase()}`)} ${q(`${dir}/${p.newName}`)}`);
    expect(await check(RenameFile, p)).toBe(true);
  });

  it('is not fooled by a failed rename to a taken name in the UI', async () => {
    const p = await start(RenameFile);
    sh(d, 'am start -n com.google.android.documentsui/com.android.documentsui.files.FilesActivity');
    tap(d, { text: p.folder, resourceId: 'android:id/title' });
    longPress(d, { text: p.target.name, resourceId: 'android:id/title' });
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Rename' });
    for (let i = 0; i < p.target.name.length; i++) d.inputSync({ kind: 'key', key: 'DEL' });
    d.inputSync({ kind: 'text', text: p.others[0]!.name });
    tap(d, { text: 'OK' });
    expect(await check(RenameFile, p)).toBe(false);
    expect(sh(d, `ls ${q(`${SD}/${p.folder}`)}`)).toContain(p.target.name);
  });
});

describe('FilesMoveFile', () => {
  /** The first seed whose instance moves into a sub-folder of Documents, and the first that moves between top-level folders. */
  const seedWhere = (nested: boolean) => [...Array(40).keys()].find((s) => instantiate(MoveFile, s).params.destination.includes('/') === nested)!;

  it('into a sub-folder: rejects a copy and a move to the wrong sub-folder, accepts the move', async () => {
    const p = await start(MoveFile, seedWhere(true));
    const src = q(`${SD}/Download/${p.target.name}`);
    const wrong = p.siblings[0]!.name;
    sh(d, `cp ${src} ${q(`${SD}/${p.destination}/`)}`);
    expect(await check(MoveFile, p)).toBe(false);
    sh(d, `rm ${q(`${SD}/${p.destination}/${p.target.name}`)} && mv ${src} ${q(`${SD}/Documents/${wrong}/`)}`);
    expect(await check(MoveFile, p)).toBe(false);
    sh(d, `mv ${q(`${SD}/Documents/${wrong}/${p.target.name}`)} ${q(`${SD}/Documents/`)}`);
    expect(await check(MoveFile, p)).toBe(false);
    sh(d, `mv ${q(`${SD}/Documents/${p.target.name}`)} ${q(`${SD}/${p.destination}/`)}`);
    expect(await check(MoveFile, p)).toBe(true);
  });

  it('between top-level folders (AndroidWorld\'s instances): rejects a copy, accepts the move', async () => {
    const p = await start(MoveFile, seedWhere(false));
    const src = q(`${SD}/${p.source}/${p.target.name}`);
    sh(d, `cp ${src} ${q(`${SD}/${p.destination}/`)}`);
    expect(await check(MoveFile, p)).toBe(false);
    sh(d, `rm ${src}`);
    expect(await check(MoveFile, p)).toBe(true);
  });
});

describe('FilesCopyFile', () => {
  it('rejects a move, accepts a copy', async () => {
    const p = await start(CopyFile);
    sh(d, `mv ${q(`${SD}/${p.from}/${p.target.name}`)} ${q(`${SD}/${p.to}/`)}`);
    expect(await check(CopyFile, p)).toBe(false);
    sh(d, `cp ${q(`${SD}/${p.to}/${p.target.name}`)} ${q(`${SD}/${p.from}/`)}`);
    expect(await check(CopyFile, p)).toBe(true);
  });
});

describe('FilesCreateFolder', () => {
  it('rejects a file of that name or a folder elsewhere, accepts the folder', async () => {
    const p = await start(CreateFolder);
    sh(d, `echo x > ${q(`${SD}/Documents/${p.name}`)}`);
    expect(await check(CreateFolder, p)).toBe(false);
    sh(d, `rm ${q(`${SD}/Documents/${p.name}`)} && mkdir ${q(`${SD}/Download/${p.name}`)}`);
    expect(await check(CreateFolder, p)).toBe(false);
    sh(d, `mkdir ${q(`${SD}/Documents/${p.name}`)}`);
    expect(await check(CreateFolder, p)).toBe(true);
    sh(d, `mkdir ${q(`${SD}/Documents/${p.name} (1)`)}`);
    expect(await check(CreateFolder, p)).toBe(false);
  });
});

describe('Files questions', () => {
  it('counts files, not folders', async () => {
    const p = await start(CountQuestion);
    expect(await check(CountQuestion, p)).toBe(false);
    expect(await check(CountQuestion, p, String(p.files.length + p.subfolders.length))).toBe(false);
    expect(await check(CountQuestion, p, String(p.files.length))).toBe(true);
    expect(await check(CountQuestion, p, `${p.files.length}.`)).toBe(true);
  });

  it('names the largest file, with or without its extension', async () => {
    const p = await start(LargestFileQuestion);
    const bySize = [...p.files].sort((a, b) => b.size - a.size);
    expect(await check(LargestFileQuestion, p, bySize[1]!.name)).toBe(false);
    expect(await check(LargestFileQuestion, p, bySize[0]!.name)).toBe(true);
    expect(await check(LargestFileQuestion, p, bySize[0]!.name.replace(/\.[^.]+$/, ''))).toBe(true);
  });

  it('reads a size as shown or in bytes', async () => {
    const p = await start(FileSizeQuestion);
    const shown = shownSize(p.target.size);
    expect(await check(FileSizeQuestion, p, shown)).toBe(true);
    expect(await check(FileSizeQuestion, p, shown.replace(' ', '').toUpperCase())).toBe(true);
    expect(await check(FileSizeQuestion, p, `${p.target.size} bytes`)).toBe(true);
    expect(await check(FileSizeQuestion, p, shownSize(p.others[0]!.size))).toBe(false);
    expect(await check(FileSizeQuestion, p, String(p.target.size + 1))).toBe(false);
  });

  it('formats sizes as Android does', () => {
    expect(shownSize(999)).toBe('999 B');
    expect(shownSize(1500)).toBe('1.50 kB');
    expect(shownSize(120_000)).toBe('120 kB');
    expect(shownSize(2_340_000)).toBe('2.34 MB');
  });
});
