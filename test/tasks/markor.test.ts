import { afterAll, describe, expect, it } from 'vitest';
import { instantiate } from '../../core/tasks/instance.js';
import { resetForTask } from '../../core/episode/runner.js';
import type { TaskTemplate } from '../../core/tasks/task.js';
import { MarkorCreateFolder, MarkorCreateNote } from '../../core/tasks/families/markor/create.js';
import { MarkorDeleteAllNotes, MarkorDeleteNewestNote, MarkorDeleteNote } from '../../core/tasks/families/markor/delete.js';
import { MarkorAddTodoItem, MarkorEditNote } from '../../core/tasks/families/markor/edit.js';
import { MarkorMoveNote, MarkorRenameNote } from '../../core/tasks/families/markor/organize.js';
import { MarkorCountNotesQuestion, MarkorNoteLineQuestion } from '../../core/tasks/families/markor/questions.js';
import { MARKOR_DIR, listNotes, readNote, writeNote } from '../../core/tasks/families/markor/markor-files.js';
import { device, sh, tap, typeInto } from '../helpers/simdroid.js';

/**
 * Markor checkers: each accepts the right end state and rejects wrong ones (wrong name or text,
 * a stray extra file, a note left behind, the wrong note touched, a wrong answer). End states are
 * reached through the shell, and a few through the UI.
 */
const d = device();
afterAll(() => d.close());

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const path = (name: string) => q(`${MARKOR_DIR}/${name}`);
const done = { actions: [] };
const answered = (answer: string) => ({ actions: [], answer });

/** Resets the device to the task's start and returns its parameters. */
async function start<P>(t: TaskTemplate<P>, seed: number): Promise<P> {
  const inst = instantiate(t, seed);
  await resetForTask(d, inst);
  return inst.params;
}

/** The first seed whose parameters satisfy a condition. */
function seedWhere<P>(t: TaskTemplate<P>, pred: (p: P) => boolean): number {
  for (let s = 0; s < 200; s++) if (pred(instantiate(t, s).params)) return s;
  throw new Error(`${t.id}: no seed found`);
}

describe('MarkorCreateNote', () => {
  const t = MarkorCreateNote;
  it('accepts the note with its text, a trailing newline tolerated', async () => {
    const p = await start(t, 3);
    await writeNote(d, p.file_name, `${p.text}\n`);
    expect((await t.check(d, p, done)).ok).toBe(true);
  });
  it('rejects wrong text, a wrong name, an extra file, a deleted distractor', async () => {
    let p = await start(t, 3);
    await writeNote(d, p.file_name, `${p.text} Extra`);
    expect((await t.check(d, p, done)).ok).toBe(false);
    p = await start(t, 3);
    await writeNote(d, `${p.file_name}.md`, p.text);
    expect((await t.check(d, p, done)).ok).toBe(false);
    p = await start(t, 3);
    await writeNote(d, p.file_name, p.text);
    await writeNote(d, 'untitled.md', '');
    expect((await t.check(d, p, done)).ok).toBe(false);
    p = await start(t, 3);
    await writeNote(d, p.file_name, p.text);
    sh(d, `rm ${path(p.others[0]!.name)}`);
    expect((await t.check(d, p, done)).ok).toBe(false);
  });
  it('rejects a note typed without extension as the other type, through the UI', async () => {
    const p = await start(t, seedWhere(t, (x) => x.file_name.endsWith('.md')));
    sh(d, 'am start -n net.gsantner.markor/net.gsantner.markor.activity.MainActivity');
    tap(d, { contentDesc: 'Create a new file or folder' });
    typeInto(d, { resourceId: 'new_file_dialog__name' }, p.file_name.replace(/\.md$/, ''));
    tap(d, { text: 'Plain text (.txt)' });
    tap(d, { text: 'OK' });
    typeInto(d, { resourceId: 'document__fragment__edit__highlighting_editor' }, p.text);
    tap(d, { contentDesc: 'Save' });
    expect(await readNote(d, p.file_name.replace(/\.md$/, '.txt'))).toBe(p.text);
    expect((await t.check(d, p, done)).ok).toBe(false);
  });
});

describe('MarkorCreateFolder', () => {
  const t = MarkorCreateFolder;
  it('accepts the folder and rejects a file of that name or a differently cased folder', async () => {
    let p = await start(t, 1);
    sh(d, `mkdir ${path(p.folder_name)}`);
    expect((await t.check(d, p, done)).ok).toBe(true);
    p = await start(t, 1);
    sh(d, `touch ${path(p.folder_name)}`);
    expect((await t.check(d, p, done)).ok).toBe(false);
    p = await start(t, 1);
    sh(d, `mkdir ${path(p.folder_name.toLowerCase())}`);
    expect((await t.check(d, p, done)).ok).toBe(false);
  });
});

describe('MarkorDeleteNote', () => {
  const t = MarkorDeleteNote;
  it('accepts only the target gone and every other note kept', async () => {
    let p = await start(t, 2);
    sh(d, `rm ${path(p.file_name)}`);
    expect((await t.check(d, p, done)).ok).toBe(true);
    p = await start(t, 2);
    sh(d, `rm ${path(p.others[0]!.name)}`);
    expect((await t.check(d, p, done)).ok).toBe(false);
    p = await start(t, 2);
    sh(d, `rm ${path(p.file_name)} ${path(p.others[1]!.name)}`);
    expect((await t.check(d, p, done)).ok).toBe(false);
  });
});

describe('MarkorDeleteNewestNote', () => {
  const t = MarkorDeleteNewestNote;
  it('accepts deleting the newest note only', async () => {
    let p = await start(t, 4);
    const byAge = [...p.notes].sort((a, b) => a.age_minutes - b.age_minutes);
    // `ls -t` on the device agrees on which one is newest.
    expect(sh(d, `ls -t ${MARKOR_DIR}`).split('\n')[0]).toBe(byAge[0]!.name);
    sh(d, `rm ${path(byAge[0]!.name)}`);
    expect((await t.check(d, p, done)).ok).toBe(true);
    p = await start(t, 4);
    sh(d, `rm ${path(byAge[byAge.length - 1]!.name)}`);
    expect((await t.check(d, p, done)).ok).toBe(false);
    p = await start(t, 4);
    sh(d, `rm ${byAge.slice(0, 2).map((n) => path(n.name)).join(' ')}`);
    expect((await t.check(d, p, done)).ok).toBe(false);
  });
});

describe('MarkorDeleteAllNotes', () => {
  const t = MarkorDeleteAllNotes;
  it('accepts an empty notebook and rejects one note left', async () => {
    let p = await start(t, 0);
    sh(d, `rm ${p.notes.map((n) => path(n.name)).join(' ')}`);
    expect((await t.check(d, p, done)).ok).toBe(true);
    p = await start(t, 0);
    sh(d, `rm ${p.notes.slice(1).map((n) => path(n.name)).join(' ')}`);
    expect((await t.check(d, p, done)).ok).toBe(false);
  });
});

describe('MarkorEditNote', () => {
  const t = MarkorEditNote;
  for (const type of ['header', 'footer', 'replace'] as const) {
    it(`checks a ${type} edit exactly`, async () => {
      const seed = seedWhere(t, (x) => x.edit_type === type);
      let p = await start(t, seed);
      const right = type === 'header' ? `${p.new_text}\n${p.original}` : type === 'footer' ? `${p.original}\n\n${p.new_text}\n` : p.new_text;
      await writeNote(d, p.file_name, right);
      expect((await t.check(d, p, done)).ok).toBe(true);
      p = await start(t, seed);
      const wrong = type === 'header' ? `${p.original}\n${p.new_text}` : type === 'footer' ? `${p.new_text}\n${p.original}` : `${p.original}\n${p.new_text}`;
      await writeNote(d, p.file_name, wrong);
      expect((await t.check(d, p, done)).ok).toBe(false);
      // The right edit, but in another note as well.
      p = await start(t, seed);
      await writeNote(d, p.file_name, right);
      await writeNote(d, p.others[0]!.name, `${p.others[0]!.text}\n${p.new_text}`);
      expect((await t.check(d, p, done)).ok).toBe(false);
    });
  }
});

describe('MarkorAddTodoItem', () => {
  const t = MarkorAddTodoItem;
  it('accepts the task added to todo.txt, in any position', async () => {
    let p = await start(t, 5);
    await writeNote(d, 'todo.txt', [...p.items, p.item].join('\n'));
    expect((await t.check(d, p, done)).ok).toBe(true);
    p = await start(t, 5);
    await writeNote(d, 'todo.txt', [p.item, ...p.items].join('\n') + '\n');
    expect((await t.check(d, p, done)).ok).toBe(true);
  });
  it('rejects replaced tasks, a misspelt task, or the task in another note', async () => {
    let p = await start(t, 5);
    await writeNote(d, 'todo.txt', p.item);
    expect((await t.check(d, p, done)).ok).toBe(false);
    p = await start(t, 5);
    await writeNote(d, 'todo.txt', [...p.items, p.item.toUpperCase()].join('\n'));
    expect((await t.check(d, p, done)).ok).toBe(false);
    p = await start(t, 5);
    await writeNote(d, 'QuickNote.md', p.item);
    expect((await t.check(d, p, done)).ok).toBe(false);
  });
});

describe('MarkorRenameNote', () => {
  const t = MarkorRenameNote;
  it('accepts the renamed note and rejects a copy, a changed text or another name', async () => {
    let p = await start(t, 6);
    sh(d, `mv ${path(p.file_name)} ${path(p.new_name)}`);
    expect((await t.check(d, p, done)).ok).toBe(true);
    p = await start(t, 6);
    sh(d, `cp ${path(p.file_name)} ${path(p.new_name)}`);
    expect((await t.check(d, p, done)).ok).toBe(false);
    p = await start(t, 6);
    sh(d, `rm ${path(p.file_name)}`);
    await writeNote(d, p.new_name, `${p.text} (edited)`);
    expect((await t.check(d, p, done)).ok).toBe(false);
    p = await start(t, 6);
    sh(d, `mv ${path(p.file_name)} ${path(`${p.new_name}.md`)}`);
    expect((await t.check(d, p, done)).ok).toBe(false);
  });
});

describe('MarkorMoveNote', () => {
  const t = MarkorMoveNote;
  it('accepts the note in the destination only', async () => {
    let p = await start(t, 7);
    const from = `${p.source_folder}/${p.file_name}`;
    sh(d, `mv ${path(from)} ${path(p.destination_folder)}`);
    expect((await t.check(d, p, done)).ok).toBe(true);
    expect(await listNotes(d, p.source_folder)).not.toContain(p.file_name);
    // Copied, not moved: the note is left in the old place.
    p = await start(t, 7);
    sh(d, `cp ${path(from)} ${path(p.destination_folder)}`);
    expect((await t.check(d, p, done)).ok).toBe(false);
    // Moved to the wrong folder, or to the notebook root.
    p = await start(t, 7);
    const wrong = p.folders.find((f) => f.name !== p.source_folder && f.name !== p.destination_folder)!.name;
    sh(d, `mv ${path(from)} ${path(wrong)}`);
    expect((await t.check(d, p, done)).ok).toBe(false);
    p = await start(t, 7);
    sh(d, `mv ${path(from)} ${q(MARKOR_DIR)}`);
    expect((await t.check(d, p, done)).ok).toBe(false);
    // Moved together with a neighbour.
    p = await start(t, 7);
    const neighbour = p.folders.find((f) => f.name === p.source_folder)!.notes[0]!.name;
    sh(d, `mv ${path(from)} ${path(`${p.source_folder}/${neighbour}`)} ${path(p.destination_folder)}`);
    expect((await t.check(d, p, done)).ok).toBe(false);
  });
});

describe('MarkorNoteLineQuestion', () => {
  const t = MarkorNoteLineQuestion;
  it('accepts the asked line only', async () => {
    const p = await start(t, 8);
    const lines = p.text.split('\n');
    expect((await t.check(d, p, answered(lines[p.line]!))).ok).toBe(true);
    expect((await t.check(d, p, answered(` ${lines[p.line]!.toLowerCase()} `))).ok).toBe(true);
    expect((await t.check(d, p, answered(lines[(p.line + 1) % lines.length]!))).ok).toBe(false);
    expect((await t.check(d, p, answered(p.text))).ok).toBe(false);
    expect((await t.check(d, p, done)).ok).toBe(false);
  });
});

describe('MarkorCountNotesQuestion', () => {
  const t = MarkorCountNotesQuestion;
  it('accepts the number of files, not counting sub-folders', async () => {
    const seed = seedWhere(t, (x) => x.folders.some((f) => f.subfolders.length > 0 && f.name === x.folder));
    const p = await start(t, seed);
    const folder = p.folders.find((f) => f.name === p.folder)!;
    expect((await listNotes(d, p.folder)).length).toBe(folder.notes.length);
    expect((await t.check(d, p, answered(String(folder.notes.length)))).ok).toBe(true);
    expect((await t.check(d, p, answered(`${folder.notes.length}.`))).ok).toBe(true);
    expect((await t.check(d, p, answered(String(folder.notes.length + folder.subfolders.length)))).ok).toBe(false);
    expect((await t.check(d, p, answered(String(folder.notes.length - 1)))).ok).toBe(false);
  });
});
