import { z } from 'zod';
import { defineTask, type Subgoal, type TaskTemplate } from '../../task.js';
import { randomNoteNames, randomNoteText } from '../../../seed-data/notes.js';
import { onScreen } from '../../validators/ui.js';
import { markorOpen, Note, openMarkor, selected, selectEntry } from './common.js';
import { clearMarkor, listNotes, notebookTree, readNote, treeOf, treeVerdict, writeNote } from './markor-files.js';
import { condition, listed, verdictOf } from '../../verdict.js';

/**
 * Deleting notes (AndroidWorld's MarkorDeleteNote, MarkorDeleteNewestNote, MarkorDeleteAllNotes):
 * through the selection mode (long press) and the confirmation dialog. Every other note must be
 * left as it was.
 */
const confirmOpen: Subgoal = {
  name: 'delete confirmation open',
  check: async ({ obs }) => onScreen(obs, { resourceId: 'android:id/alertTitle', text: 'Delete' }),
};

const DeleteP = z.object({ file_name: z.string().min(1), text: z.string(), others: z.array(Note) });

export const MarkorDeleteNote = defineTask({
  id: 'MarkorDeleteNote',
  apps: ['Markor'],
  difficulty: 'easy',
  tags: ['deletion', 'long_press', 'file_management'],
  kind: 'completion',
  template: 'Delete the note in Markor named {file_name}.',
  params: DeleteP,
  generate: (rng) => {
    const [fileName, ...names] = randomNoteNames(rng, 1 + rng.int(3, 7));
    return {
      file_name: fileName!,
      text: randomNoteText(rng, rng.int(1, 3)),
      others: names.map((name) => ({ name, text: randomNoteText(rng, rng.int(1, 3)) })),
    };
  },
  initialize: async (device, p) => {
    await clearMarkor(device);
    for (const n of [...p.others, { name: p.file_name, text: p.text }]) await writeNote(device, n.name, n.text);
  },
  check: async (device, p) => treeVerdict(await notebookTree(device), treeOf(p.others)),
  subgoals: (p) => [
    markorOpen,
    selected(p.file_name),
    confirmOpen,
    { name: 'note deleted', check: async ({ device }) => (await readNote(device, p.file_name)) === null },
  ],
  *oracle(p, ui) {
    yield* openMarkor(ui);
    yield* selectEntry(ui, p.file_name);
    yield ui.tap({ contentDesc: 'Delete' });
    yield ui.tap({ text: 'OK' });
    yield ui.complete();
  },
});

const Dated = Note.extend({ age_minutes: z.int().min(1) });
const NewestP = z.object({ notes: z.array(Dated).min(2) });

function newestOf(notes: ReadonlyArray<z.infer<typeof Dated>>): z.infer<typeof Dated> {
  return notes.reduce((a, b) => (b.age_minutes < a.age_minutes ? b : a));
}

export const MarkorDeleteNewestNote = defineTask({
  id: 'MarkorDeleteNewestNote',
  apps: ['Markor'],
  difficulty: 'medium',
  tags: ['deletion', 'long_press', 'file_management', 'screen_reading', 'date_time'],
  kind: 'completion',
  template: 'Delete the newest note in Markor.',
  params: NewestP,
  generate: (rng) => {
    const names = randomNoteNames(rng, rng.int(3, 7));
    // Distinct ages at least an hour apart, from an hour to about three weeks.
    const ages = rng.sample(Array.from({ length: 500 }, (_, i) => 60 + i * 60), names.length);
    return { notes: names.map((name, i) => ({ name, text: randomNoteText(rng, rng.int(1, 2)), age_minutes: ages[i]! })) };
  },
  initialize: async (device, p) => {
    await clearMarkor(device);
    for (const n of p.notes) await writeNote(device, n.name, n.text, { ageMinutes: n.age_minutes });
  },
  check: async (device, p) => {
    const newest = newestOf(p.notes);
    return treeVerdict(await notebookTree(device), treeOf(p.notes.filter((n) => n !== newest)));
  },
  subgoals: (p) => [
    markorOpen,
    selected(newestOf(p.notes).name),
    confirmOpen,
    { name: 'newest note deleted', check: async ({ device }) => (await readNote(device, newestOf(p.notes).name)) === null },
  ],
  *oracle(_p, ui) {
    // Like a person: sort by date, the first file is the newest.
    yield* openMarkor(ui);
    yield ui.tap({ contentDesc: 'More options' });
    yield ui.tap({ textContains: 'Sort by date modified' });
    const first = ui.require({ resourceId: 'ui__filesystem_item__title' });
    yield ui.longPress(first);
    yield ui.tap({ contentDesc: 'Delete' });
    yield ui.tap({ text: 'OK' });
    yield ui.complete();
  },
});

// One note or many: AndroidWorld's instances have from one to six.
const AllP = z.object({ notes: z.array(Note).min(1) });

export const MarkorDeleteAllNotes = defineTask({
  id: 'MarkorDeleteAllNotes',
  apps: ['Markor'],
  difficulty: 'medium',
  tags: ['deletion', 'long_press', 'file_management', 'complex_ui'],
  kind: 'completion',
  template: 'Delete all my notes in Markor.',
  params: AllP,
  generate: (rng) => ({
    notes: randomNoteNames(rng, rng.chance(0.2) ? 1 : rng.int(2, 9)).map((name) => ({ name, text: randomNoteText(rng, rng.int(1, 2)) })),
  }),
  initialize: async (device, p) => {
    await clearMarkor(device);
    for (const n of p.notes) await writeNote(device, n.name, n.text);
  },
  check: async (device) => {
    const left = [...(await notebookTree(device)).keys()];
    return verdictOf([condition('notebook empty', 'no notes or folders', left.length ? listed(left) : 'no notes or folders')]);
  },
  subgoals: (p) => [
    markorOpen,
    { name: 'all notes selected', check: async ({ obs }) => onScreen(obs, { resourceId: 'toolbar_title', text: `${p.notes.length} selected` }) },
    confirmOpen,
    { name: 'notes deleted', check: async ({ device }) => (await listNotes(device)).length === 0 },
  ],
  *oracle(_p, ui) {
    yield* openMarkor(ui);
    yield ui.longPress(ui.require({ resourceId: 'ui__filesystem_item__title' }));
    yield ui.tap({ contentDesc: 'More options' });
    yield ui.tap({ text: 'Select all' });
    yield ui.tap({ contentDesc: 'Delete' });
    yield ui.tap({ text: 'OK' });
    yield ui.complete();
  },
});

export const DELETE_TASKS: readonly TaskTemplate[] = [MarkorDeleteNote, MarkorDeleteNewestNote, MarkorDeleteAllNotes];
