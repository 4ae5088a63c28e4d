import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { BOOT_SNAPSHOT } from '../../../core/device/device.js';
import { clearMarkor, listFolders, listNotes, makeFolder, MARKOR_DIR, readNote, writeNote } from '../../../core/tasks/families/markor/markor-files.js';
import { device, elements, find, get, longPress, scroll, sh, tap, texts, typeInto } from '../../helpers/simdroid.js';

/** Markor in SimDroid, driven through the UI and read back with `ls` and `cat` like a checker. */
const d = device();
afterAll(() => d.close());

const PKG = 'net.gsantner.markor';
const open = () => sh(d, `am start -n ${PKG}/${PKG}.activity.MainActivity`);
const back = () => d.inputSync({ kind: 'key', key: 'BACK' });
const del = (n: number) => { for (let i = 0; i < n; i++) d.inputSync({ kind: 'key', key: 'DEL' }); };
const activity = () => d.wm.foreground().activity.split('.').pop();
const ls = (dir = '') => sh(d, `ls ${MARKOR_DIR}/${dir}`).split('\n').filter(Boolean);
const cat = (name: string) => sh(d, `cat '${MARKOR_DIR}/${name}'`);
const mtime = (name: string) => Number(sh(d, `stat -c %Y '${MARKOR_DIR}/${name}'`).trim());
const rows = () => elements(d).filter((e) => e.node.resourceId === `${PKG}:id/ui__filesystem_item__title`).map((e) => e.node.text);
const title = () => get(d, { resourceId: 'toolbar_title' }).node.text;
const toast = () => d.frame().toast;
const EDITOR = { resourceId: 'document__fragment__edit__highlighting_editor' };

async function notes(list: Array<[string, string]>, folders: string[] = []): Promise<void> {
  await clearMarkor(d);
  for (const f of folders) await makeFolder(d, f);
  for (const [name, text] of list) await writeNote(d, name, text);
}

/** Taps the last element with this text: in a dialog over the browser, the dialog's. */
function tapLast(text: string): void {
  const b = elements(d).filter((e) => e.node.text === text).pop()!.node.bounds;
  d.inputSync({ kind: 'tap', x: (b.left + b.right) / 2, y: (b.top + b.bottom) / 2 });
}

function newEntry(name: string): void {
  tap(d, { contentDesc: 'Create a new file or folder' });
  typeInto(d, { resourceId: 'new_file_dialog__name' }, name);
}

beforeEach(async () => {
  await d.loadSnapshot(BOOT_SNAPSHOT);
});

describe('Markor app', () => {
  it('boots with notes in the notebook folder, listed folders first then by name', () => {
    expect(ls().length).toBeGreaterThanOrEqual(4);
    open();
    expect(title()).toBe('Markor');
    const shown = rows();
    expect(shown[0]).toBe('Work');
    expect(shown.slice(1)).toEqual([...shown.slice(1)].sort((a, b) => a.localeCompare(b)));
    expect(shown.slice(1).sort()).toEqual(ls().filter((n) => n !== 'Work').sort());
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('creates a Markdown note through the dialog, and Back from the editor saves it', async () => {
    await notes([['ideas.txt', 'one']]);
    open();
    newEntry('groceries');
    expect(get(d, { resourceId: 'new_file_dialog__preview' }).node.text).toBe('File: groceries.md');
    tap(d, { text: 'OK' });
    expect(activity()).toBe('DocumentActivity');
    expect(cat('groceries.md')).toBe('');
    typeInto(d, EDITOR, '# Groceries\n- Milk\n- Eggs');
    expect(cat('groceries.md')).toBe('');
    back(); // closes the keyboard
    expect(activity()).toBe('DocumentActivity');
    back(); // leaves, saving like Markor's autosave
    expect(activity()).toBe('MainActivity');
    expect(cat('groceries.md')).toBe('# Groceries\n- Milk\n- Eggs');
    expect(rows()).toEqual(['groceries.md', 'ideas.txt']);
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('creates a plain-text note when that type is picked, and keeps a typed extension', async () => {
    await notes([]);
    open();
    newEntry('log');
    tap(d, { text: 'Plain text (.txt)' });
    tap(d, { text: 'OK' });
    back();
    newEntry('draft.md');
    tap(d, { text: 'Plain text (.txt)' });
    tap(d, { resourceId: 'new_file_dialog__name' });
    d.inputSync({ kind: 'key', key: 'ENTER' }); // Enter in the name field acts as OK
    expect(activity()).toBe('DocumentActivity');
    back();
    expect(ls()).toEqual(['draft.md', 'log.txt']);
  });

  it('refuses a name that already exists instead of overwriting the note', async () => {
    await notes([['ideas.txt', 'keep me'], ['plan.md', 'x']]);
    open();
    newEntry('ideas.txt');
    tap(d, { text: 'OK' });
    expect(toast()).toBe('"ideas.txt" already exists');
    expect(activity()).toBe('MainActivity');
    expect(find(d, { resourceId: 'new_file_dialog__name' })).toBeDefined();
    expect(cat('ideas.txt')).toBe('keep me');
    // Same for a folder over a file, and an empty name.
    tap(d, { text: 'Folder' });
    expect(toast()).toBe('"ideas.txt" already exists');
    del(20);
    tap(d, { text: 'OK' });
    expect(toast()).toBe('Please enter a name');
    expect(ls()).toEqual(['ideas.txt', 'plan.md']);
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('creates a folder, opens it, and goes back up with Navigate up, ".." and Back', async () => {
    await notes([['a.md', 'a']]);
    open();
    newEntry('Projects');
    tap(d, { text: 'Folder' });
    expect(await listFolders(d)).toEqual(['Projects']);
    expect(rows()).toEqual(['Projects', 'a.md']);
    tap(d, { text: 'Projects' });
    expect(title()).toBe('Projects');
    expect(texts(d)).toContain('This folder is empty');
    tap(d, { contentDesc: 'Navigate up' });
    expect(title()).toBe('Markor');
    tap(d, { text: 'Projects' });
    newEntry('inner');
    tap(d, { text: 'OK' });
    back();
    expect(await listNotes(d, 'Projects')).toEqual(['inner.md']);
    expect(rows()).toEqual(['..', 'inner.md']);
    tap(d, { text: '..' });
    expect(title()).toBe('Markor');
    tap(d, { text: 'Projects' });
    back();
    expect(title()).toBe('Markor');
    back(); // at the root Back leaves the app
    expect(d.wm.foreground().package).not.toBe(PKG);
  });

  it('edits a note and saves with the toolbar; only real changes touch the file', async () => {
    await notes([['todo_list.md', 'first line']]);
    const before = mtime('todo_list.md');
    open();
    tap(d, { text: 'todo_list.md' });
    expect(title()).toBe('todo_list');
    expect(get(d, EDITOR).node.text).toBe('first line');
    back();
    expect(mtime('todo_list.md')).toBe(before);
    tap(d, { text: 'todo_list.md' });
    typeInto(d, EDITOR, '\nsecond line');
    tap(d, { contentDesc: 'Save' });
    expect(cat('todo_list.md')).toBe('first line\nsecond line');
    expect(mtime('todo_list.md')).toBeGreaterThan(before);
    // View mode renders the text; Edit returns to the editor.
    tap(d, { contentDesc: 'View' });
    expect(texts(d)).toEqual(expect.arrayContaining(['first line', 'second line']));
    expect(find(d, EDITOR)).toBeUndefined();
    tap(d, { contentDesc: 'Edit' });
    expect(get(d, EDITOR).node.text).toBe('first line\nsecond line');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('renames a note from the selection mode and refuses a taken name', async () => {
    await notes([['old.md', 'text'], ['other.md', 'o']]);
    open();
    longPress(d, { text: 'old.md' });
    expect(title()).toBe('1 selected');
    tap(d, { contentDesc: 'Rename' });
    expect(get(d, { resourceId: 'new_name' }).node.text).toBe('old.md');
    del(6);
    d.inputSync({ kind: 'text', text: 'other.md' });
    tap(d, { text: 'OK' });
    expect(toast()).toBe('"other.md" already exists');
    del(8);
    d.inputSync({ kind: 'text', text: 'new.md' });
    tap(d, { text: 'OK' });
    expect(ls()).toEqual(['new.md', 'other.md']);
    expect(cat('new.md')).toBe('text');
    expect(find(d, { text: '1 selected' })).toBeUndefined();
  });

  it('deletes only after confirmation', async () => {
    await notes([['a.md', 'a'], ['b.md', 'b'], ['c.txt', 'c']]);
    open();
    longPress(d, { text: 'b.md' });
    tap(d, { text: 'c.txt' });
    expect(title()).toBe('2 selected');
    tap(d, { contentDesc: 'Delete' });
    expect(get(d, { resourceId: 'android:id/message' }).node.text).toContain('these 2 items');
    tap(d, { text: 'Cancel' });
    expect(ls()).toEqual(['a.md', 'b.md', 'c.txt']);
    tap(d, { contentDesc: 'Delete' });
    tap(d, { text: 'OK' });
    expect(ls()).toEqual(['a.md']);
    expect(rows()).toEqual(['a.md']);
  });

  it('selects all and deletes every note and folder', async () => {
    await notes([['a.md', 'a'], ['Work/b.md', 'b'], ['c.txt', 'c']]);
    open();
    longPress(d, { text: 'a.md' });
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Select all' });
    expect(title()).toBe('3 selected');
    tap(d, { contentDesc: 'Delete' });
    tap(d, { text: 'OK' });
    expect(ls()).toEqual([]);
    expect(texts(d)).toContain('This folder is empty');
  });

  it('moves a note into another folder with the folder picker, and copies one', async () => {
    await notes([['Inbox/note.md', 'move me'], ['Inbox/keep.md', 'k'], ['Archive/x.md', 'x']]);
    open();
    tap(d, { text: 'Inbox' });
    longPress(d, { text: 'note.md' });
    tap(d, { contentDesc: 'Move' });
    expect(get(d, { resourceId: 'ui__filesystem_dialog__current_folder' }).node.text).toBe('/Documents/Markor/Inbox');
    // The picker's rows are in the dialog window, after the browser's.
    tapLast('..');
    tap(d, { text: 'Archive' });
    tap(d, { text: 'Move here' });
    expect(await listNotes(d, 'Inbox')).toEqual(['keep.md']);
    expect(await readNote(d, 'Archive/note.md')).toBe('move me');
    longPress(d, { text: 'keep.md' });
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Copy' });
    tapLast('..');
    tap(d, { text: 'Copy here' });
    expect(await readNote(d, 'keep.md')).toBe('k');
    expect(await readNote(d, 'Inbox/keep.md')).toBe('k');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('scrolls a long folder, sorts by date and filters by search', async () => {
    await clearMarkor(d);
    for (let i = 0; i < 25; i++) await writeNote(d, `note_${String(i).padStart(2, '0')}.md`, `n${i}`, { ageMinutes: 100 + i * 10 });
    open();
    expect(find(d, { text: 'note_00.md' })).toBeDefined();
    expect(find(d, { text: 'note_24.md' })).toBeUndefined();
    for (let i = 0; i < 8 && !find(d, { text: 'note_24.md' }); i++) scroll(d, 'down');
    expect(find(d, { text: 'note_24.md' })).toBeDefined();
    // Newest first when sorted by date (note_00 is the most recent).
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Sort by date modified' });
    expect(rows()[0]).toBe('note_00.md');
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Sort by name' });
    tap(d, { contentDesc: 'Search' });
    d.inputSync({ kind: 'text', text: '_1' });
    back(); // the keyboard
    expect(rows().slice(0, 3)).toEqual(['note_10.md', 'note_11.md', 'note_12.md']);
    expect(rows().every((r) => r.startsWith('note_1'))).toBe(true);
    back(); // the search
    expect(rows()[0]).toBe('note_00.md');
  });

  it('edits todo.txt in the To-Do tab, saving on leaving it; an untouched tab writes nothing', async () => {
    await notes([['todo.txt', 'Buy milk']]);
    open();
    tap(d, { text: 'QuickNote' });
    tap(d, { text: 'Notebook' });
    expect(ls()).toEqual(['todo.txt']);
    tap(d, { text: 'To-Do' });
    expect(get(d, EDITOR).node.text).toBe('Buy milk');
    typeInto(d, EDITOR, '\nCall mom');
    tap(d, { text: 'More' });
    expect(cat('todo.txt')).toBe('Buy milk\nCall mom');
    tap(d, { text: 'QuickNote' });
    typeInto(d, EDITOR, 'Quick thought');
    back();
    back();
    expect(cat('QuickNote.md')).toBe('Quick thought');
    expect(title()).toBe('Markor');
  });

  it('survives its folder being deleted behind its back', async () => {
    await notes([['Work/a.md', 'a']]);
    open();
    tap(d, { text: 'Work' });
    sh(d, `rm -rf ${MARKOR_DIR}`);
    expect(title()).toBe('Markor');
    expect(texts(d)).toContain('This folder is empty');
    newEntry('fresh');
    tap(d, { text: 'OK' });
    back();
    expect(ls()).toEqual(['fresh.md']);
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('sets modification times with touch -d, as task set-up does', () => {
    sh(d, `touch -d '2023-10-01 08:30:00' ${MARKOR_DIR}/stamp.md`);
    expect(sh(d, `stat -c %Y ${MARKOR_DIR}/stamp.md`).trim()).toBe(String(Date.UTC(2023, 9, 1, 8, 30) / 1000));
    sh(d, `touch -t 202310020915 ${MARKOR_DIR}/stamp.md`);
    expect(mtime('stamp.md')).toBe(Date.UTC(2023, 9, 2, 9, 15) / 1000);
    expect(d.shellBytes(`touch -d yesterday ${MARKOR_DIR}/stamp.md`).exitCode).toBe(1);
  });
});
