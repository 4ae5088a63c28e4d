import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import type { UiNode } from '../../../a11y/ui-tree.js';
import type { Device } from '../../../device/device.js';
import type { Rng } from '../../../util/rng.js';
import { DEVICE_NOW, DAY_MS } from '../../../seed-data/dates.js';
import { JOPLIN_NOTEBOOKS, NOTEBOOK_NAMES } from '../../../seed-data/joplin-notes.js';
import { launch, nodeWithId, scrollTo, type OracleUi } from '../../oracle.js';
import type { Subgoal } from '../../task.js';
import { inActivity, onScreen } from '../../validators/ui.js';
import { sqlExec, sqlInsert } from '../../validators/sqlite.js';

/**
 * What the Joplin templates share: the seeded notes (as parameters), writing them into Joplin's
 * database as AndroidWorld's seeding does (folders, notes and notes_normalized through `sqlite3`),
 * subgoals, and the oracle's moves: search a note by its title and read it, open a notebook from
 * the side menu and read its list.
 */
export const JOPLIN_PKG = 'net.cozic.joplin';
export const JOPLIN_DB = '/data/data/net.cozic.joplin/databases/joplin.sqlite';

export const SeedNote = z.object({
  folder: z.string().min(1),
  title: z.string().min(1),
  body: z.string(),
  isTodo: z.boolean(),
  completed: z.boolean(),
});
export type SeedNote = z.infer<typeof SeedNote>;

/** A 32-hex-digit id (Joplin's form) derived from a name, so the same seeds give the same ids. */
function hexId(name: string): string {
  let out = '';
  for (let round = 0; out.length < 32; round++) {
    let h = 0x811c9dc5 ^ round;
    for (const ch of name) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
    out += h.toString(16).padStart(8, '0');
  }
  return out.slice(0, 32);
}

/** Clears Joplin's notebooks and notes and writes these (notebooks created from the notes' folder names). */
export async function installNotes(device: Device, notes: readonly SeedNote[]): Promise<void> {
  const time = DEVICE_NOW - DAY_MS;
  const stmts = ['DELETE FROM folders;', 'DELETE FROM notes;', 'DELETE FROM notes_normalized;'];
  for (const folder of [...new Set(notes.map((n) => n.folder))]) {
    stmts.push(`${sqlInsert('folders', {
      id: hexId(`folder:${folder}`), title: folder, created_time: time, updated_time: time, user_created_time: time, user_updated_time: time,
    })};`);
  }
  notes.forEach((n, i) => {
    const common = {
      id: hexId(`note:${i}:${n.title}`), parent_id: hexId(`folder:${n.folder}`), body: n.body, is_todo: n.isTodo ? 1 : 0,
      todo_completed: n.isTodo && n.completed ? time : 0, user_created_time: time, user_updated_time: time,
    };
    stmts.push(`${sqlInsert('notes', { ...common, title: n.title, created_time: time, updated_time: time })};`);
    stmts.push(`${sqlInsert('notes_normalized', { ...common, title: n.title.toLowerCase() })};`);
  });
  await sqlExec(device, JOPLIN_DB, stmts.join('\n'));
}

/** Everyday notes from the notebooks' vocabulary, some of them to-dos (a few completed); none titled in `avoidTitles`. */
export function distractorNotes(rng: Rng, count: number, o: { avoidTitles?: readonly string[]; notebooks?: readonly string[]; todos?: boolean } = {}): SeedNote[] {
  const avoid = new Set((o.avoidTitles ?? []).map((t) => t.toLowerCase()));
  const out: SeedNote[] = [];
  for (let guard = 0; out.length < count && guard < count * 20; guard++) {
    const folder = rng.pick(o.notebooks ?? NOTEBOOK_NAMES);
    const [title, body] = rng.pick(JOPLIN_NOTEBOOKS[folder]!);
    if ([...avoid].some((a) => title.toLowerCase().includes(a))) continue;
    const isTodo = (o.todos ?? true) && rng.chance(0.4);
    out.push({ folder, title, body, isTodo, completed: isTodo && rng.chance(0.5) });
  }
  return out;
}

// ------------------------------------------------------------------ subgoals

export const joplinOpen: Subgoal = {
  name: 'Joplin open',
  check: async ({ obs }) => inActivity(obs, JOPLIN_PKG),
};

export function noteOpen(title: string): Subgoal {
  return {
    name: `note "${title}" open`,
    check: async ({ obs }) => inActivity(obs, JOPLIN_PKG) && onScreen(obs, { resourceId: 'note_screen' }) && onScreen(obs, { resourceId: 'note_title', text: title }),
  };
}

export function notebookListed(folder: string): Subgoal {
  return {
    name: `notebook "${folder}" listed`,
    check: async ({ obs }) => inActivity(obs, JOPLIN_PKG) && onScreen(obs, { resourceId: 'screen_title', text: folder }),
  };
}

// ------------------------------------------------------------------ oracle moves

type Steps<T = void> = Generator<Action, T, void>;

/** Opens Joplin, searches the title and opens the note of exactly that title. */
export function* openNoteByTitle(ui: OracleUi, title: string): Steps {
  yield* launch(ui, 'Joplin');
  yield ui.tap({ contentDesc: 'Search' });
  yield ui.type({ resourceId: 'search_input' }, title);
  const row = yield* scrollTo(ui, { resourceId: 'note_title', text: title }, { within: { resourceId: 'search_results' } });
  yield ui.tap(row);
}

/** The open note's body as its lines on screen (each once), scrolling the note to its end. */
export function* readNoteBody(ui: OracleUi): Steps<string[]> {
  const lines: string[] = [];
  for (let guard = 0; guard < 20; guard++) {
    const body = ui.require({ resourceId: 'note_body' });
    const walk = (n: UiNode) => {
      if (n.text && n.text !== '•' && !lines.includes(n.text)) lines.push(n.text);
      n.children.forEach(walk);
    };
    walk(body.node);
    if (!body.node.scrollable) break;
    const before = ui.fingerprint();
    yield ui.scroll('down', { resourceId: 'note_body' });
    if (ui.fingerprint() === before) break;
  }
  return lines;
}

/** Opens a notebook from the side menu. */
export function* openNotebook(ui: OracleUi, folder: string): Steps {
  yield* launch(ui, 'Joplin');
  yield ui.tap({ contentDesc: 'Side menu' });
  const item = yield* scrollTo(ui, { resourceId: 'folder_title', text: folder }, { within: { resourceId: 'side_menu_folders' } });
  yield ui.tap(item);
}

/** The titles of the to-dos in the list on screen (rows with a check box), scrolling it to its end. */
export function* readTodoTitles(ui: OracleUi): Steps<string[]> {
  const titles = new Set<string>();
  for (let guard = 0; guard < 40; guard++) {
    for (const rowEl of ui.findAll({ resourceId: 'note_item' })) {
      const title = nodeWithId(rowEl.node, 'note_title');
      if (nodeWithId(rowEl.node, 'todo_checkbox') && title) titles.add(title.text);
    }
    const list = ui.find({ resourceId: 'note_list' });
    if (!list?.node.scrollable) break;
    const before = ui.fingerprint();
    yield ui.scroll('down', { resourceId: 'note_list' });
    if (ui.fingerprint() === before) break;
  }
  return [...titles];
}
