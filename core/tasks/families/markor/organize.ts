import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import { FOLDER_NAMES, randomNoteNames, randomNoteText } from '../../../seed-data/notes.js';
import { fieldHolds, onScreen } from '../../validators/ui.js';
import { entry, folderOpen, markorOpen, Note, openEntry, openMarkor, PICKER_LIST, scrollToIn, selected, selectEntry } from './common.js';
import { clearMarkor, makeFolder, notebookTree, readNote, treeOf, treeVerdict, writeNote } from './markor-files.js';

/**
 * Renaming a note and moving one between folders (AndroidWorld's MarkorMoveNote). The note must
 * keep its text, exist only under its new name or place, and nothing else may change.
 */
const RenameP = z.object({ file_name: z.string().min(1), new_name: z.string().min(1), text: z.string(), others: z.array(Note) });

export const MarkorRenameNote = defineTask({
  id: 'MarkorRenameNote',
  apps: ['Markor'],
  difficulty: 'medium',
  tags: ['data_edit', 'long_press', 'dialog', 'file_management'],
  kind: 'completion',
  template: 'Rename the note {file_name} in Markor to {new_name}.',
  params: RenameP,
  generate: (rng) => {
    const [fileName, newBase, ...names] = randomNoteNames(rng, 2 + rng.int(3, 8));
    // Keep the extension most of the time; sometimes the rename changes it too (.md ↔ .txt).
    const ext = rng.chance(0.8) ? fileName!.slice(fileName!.lastIndexOf('.')) : fileName!.endsWith('.md') ? '.txt' : '.md';
    return {
      file_name: fileName!,
      new_name: newBase!.replace(/\.[^.]+$/, '') + ext,
      text: randomNoteText(rng, rng.int(1, 3)),
      others: names.map((name) => ({ name, text: randomNoteText(rng, rng.int(1, 2)) })),
    };
  },
  initialize: async (device, p) => {
    await clearMarkor(device);
    for (const n of [...p.others, { name: p.file_name, text: p.text }]) await writeNote(device, n.name, n.text);
  },
  check: async (device, p) => treeVerdict(await notebookTree(device), treeOf([...p.others, { name: p.new_name, text: p.text }])),
  subgoals: (p) => [
    markorOpen,
    selected(p.file_name),
    { name: 'rename dialog open', check: async ({ obs }) => onScreen(obs, { resourceId: 'android:id/alertTitle', text: 'Rename' }) },
    { name: 'new name typed', check: async ({ obs }) => fieldHolds(obs, p.new_name) },
    { name: 'note renamed', check: async ({ device }) => (await readNote(device, p.new_name)) === p.text },
  ],
  *oracle(p, ui) {
    yield* openMarkor(ui);
    yield* selectEntry(ui, p.file_name);
    yield ui.tap({ contentDesc: 'Rename' });
    yield ui.type({ resourceId: 'new_name' }, p.new_name, { clear: true });
    yield ui.tap({ text: 'OK' });
    yield ui.complete();
  },
});

const Folder = z.object({ name: z.string().min(1), notes: z.array(Note) });
const MoveP = z.object({
  file_name: z.string().min(1),
  text: z.string(),
  source_folder: z.string().min(1),
  destination_folder: z.string().min(1),
  /** Every folder of the notebook with its notes (the note to move not included). */
  folders: z.array(Folder),
  root_notes: z.array(Note),
});
type MoveParams = z.infer<typeof MoveP>;

function movedTree(p: MoveParams, where: string) {
  const notes = [
    ...p.root_notes,
    ...p.folders.flatMap((f) => f.notes.map((n) => ({ name: `${f.name}/${n.name}`, text: n.text }))),
    { name: `${where}/${p.file_name}`, text: p.text },
  ];
  return treeOf(notes, p.folders.map((f) => f.name));
}

export const MarkorMoveNote = defineTask({
  id: 'MarkorMoveNote',
  apps: ['Markor'],
  difficulty: 'hard',
  tags: ['file_management', 'long_press', 'dialog', 'complex_ui', 'needs_scrolling'],
  kind: 'completion',
  template: 'In Markor, move the note {file_name} from {source_folder} to {destination_folder}.',
  params: MoveP,
  maxSteps: 25,
  generate: (rng) => {
    const names = rng.sample(FOLDER_NAMES, rng.int(8, 12));
    const [source, destination] = rng.sample(names, 2);
    const [fileName, ...noteNames] = randomNoteNames(rng, 1 + names.length * 3 + 3);
    const pool = [...noteNames];
    const take = (n: number) => pool.splice(0, n).map((name) => ({ name, text: randomNoteText(rng, rng.int(1, 2)) }));
    // Some folders empty, the source always with a few notes besides the one to move.
    const folders = names.map((name) => ({ name, notes: take(name === source ? rng.int(2, 3) : rng.int(0, 2)) }));
    return {
      file_name: fileName!,
      text: randomNoteText(rng, rng.int(1, 3)),
      source_folder: source!,
      destination_folder: destination!,
      folders,
      root_notes: take(rng.int(0, 2)),
    };
  },
  initialize: async (device, p) => {
    await clearMarkor(device);
    for (const f of p.folders) {
      await makeFolder(device, f.name);
      for (const n of f.notes) await writeNote(device, `${f.name}/${n.name}`, n.text);
    }
    for (const n of p.root_notes) await writeNote(device, n.name, n.text);
    await writeNote(device, `${p.source_folder}/${p.file_name}`, p.text);
  },
  check: async (device, p) => treeVerdict(await notebookTree(device), movedTree(p, p.destination_folder)),
  subgoals: (p) => [
    markorOpen,
    folderOpen(p.source_folder),
    selected(p.file_name),
    { name: 'folder picker open', check: async ({ obs }) => onScreen(obs, PICKER_LIST) },
    { name: 'note moved', check: async ({ device }) => (await readNote(device, `${p.destination_folder}/${p.file_name}`)) === p.text },
  ],
  *oracle(p, ui) {
    yield* openMarkor(ui);
    yield* openEntry(ui, p.source_folder);
    yield* selectEntry(ui, p.file_name);
    yield ui.tap({ contentDesc: 'Move' });
    // The picker starts in the source folder: up to the notebook, then into the destination.
    yield ui.tap(yield* scrollToIn(ui, PICKER_LIST, entry('..')));
    yield ui.tap(yield* scrollToIn(ui, PICKER_LIST, entry(p.destination_folder)));
    yield ui.tap({ text: 'Move here' });
    yield ui.complete();
  },
});

export const ORGANIZE_TASKS: readonly TaskTemplate[] = [MarkorRenameNote, MarkorMoveNote];
