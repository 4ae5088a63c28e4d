import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { BOOT_SNAPSHOT } from '../../../core/device/device.js';
import { installNotes, type SeedNote } from '../../../core/tasks/families/joplin/common.js';
import { device, elements, find, get, sh, tap, typeInto } from '../../helpers/simdroid.js';

/** Joplin in SimDroid: notebooks, the note list with to-dos, search and the note screen, over joplin.sqlite. */
const d = device();
afterAll(() => d.close());

const PKG = 'net.cozic.joplin';
const DB = '/data/data/net.cozic.joplin/databases/joplin.sqlite';
const open = () => sh(d, `am start -n ${PKG}/.MainActivity`);
const sql = (q: string) => sh(d, `sqlite3 ${DB} "${q}"`).trim();
const titles = () => elements(d).filter((e) => e.node.resourceId === `${PKG}:id/note_title`).map((e) => e.node.text);

const note = (folder: string, title: string, body = '', isTodo = false, completed = false): SeedNote => ({ folder, title, body, isTodo, completed });

beforeEach(async () => {
  await d.loadSnapshot(BOOT_SNAPSHOT);
});

describe('Joplin app', () => {
  it('boots with a notebook and notes in joplin.sqlite, listed under All notes', () => {
    open();
    expect(d.wm.foreground()).toEqual({ package: PKG, activity: `${PKG}.MainActivity` });
    expect(get(d, { resourceId: 'screen_title' }).node.text).toBe('All notes');
    expect(Number(sql('select count(*) from notes'))).toBe(2);
    expect(titles()).toEqual(['Call the plumber', 'Welcome to Joplin']);
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('lists a notebook from the side menu, open to-dos first, each to-do with a check box', async () => {
    await installNotes(d, [
      note('Work', 'Quarterly Objectives'), note('Work', 'Done thing', '', true, true), note('Work', 'Open thing', '', true),
      note('Home', 'Garden Jobs', '', true),
    ]);
    open();
    tap(d, { contentDesc: 'Side menu' });
    expect(elements(d).filter((e) => e.node.resourceId.endsWith(':id/folder_title')).map((e) => e.node.text)).toEqual(['Home', 'Work']);
    tap(d, { resourceId: 'folder_title', text: 'Work' });
    expect(get(d, { resourceId: 'screen_title' }).node.text).toBe('Work');
    expect(titles()).toEqual(['Open thing', 'Done thing', 'Quarterly Objectives']);
    expect(get(d, { contentDesc: 'Completed to-do: Done thing' }).node.checked).toBe(true);
    expect(get(d, { contentDesc: 'To-do: Open thing' }).node.checked).toBe(false);
    expect(find(d, { contentDesc: /Quarterly Objectives/ })).toBeUndefined();
    // Ticking a to-do completes it in the database, as Joplin stores it (the time it was done).
    tap(d, { contentDesc: 'To-do: Open thing' });
    expect(Number(sql("select todo_completed from notes where title = 'Open thing'"))).toBeGreaterThan(0);
  });

  it('finds a note by search and shows its Markdown body; Back returns to the list', async () => {
    await installNotes(d, [
      note('Recipes', 'Pancakes', 'Ingredients:\n- 1 cup plain flour\n- 1/2 cup chia seeds\n\nMethod:\n1. Whisk.'),
      note('Recipes', 'Carbonara', 'Eggs, pancetta.'),
    ]);
    open();
    tap(d, { contentDesc: 'Search' });
    typeInto(d, { resourceId: 'search_input' }, 'pancake');
    expect(titles()).toEqual(['Pancakes']);
    tap(d, { resourceId: 'note_title', text: 'Pancakes' });
    expect(get(d, { resourceId: 'note_title' }).node.text).toBe('Pancakes');
    expect(find(d, { text: '1/2 cup chia seeds' })).toBeDefined();
    expect(find(d, { text: '1. Whisk.' })).toBeDefined();
    expect(find(d, { resourceId: 'note_todo_checkbox' })).toBeUndefined();
    d.inputSync({ kind: 'key', key: 'BACK' });
    expect(find(d, { resourceId: 'search_input' })).toBeDefined();
  });
});
