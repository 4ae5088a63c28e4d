import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import { FOLDER_NAMES, randomNoteNames, randomNoteText } from '../../../seed-data/notes.js';
import { fieldHolds } from '../../validators/ui.js';
import { documentOpen, EDITOR, FAB, markorOpen, NEW_NAME, newFileDialogOpen, Note, openMarkor } from './common.js';
import { clearMarkor, makeFolder, notebookTree, readNote, sameTypedText, treeOf, treeVerdict, writeNote } from './markor-files.js';

/**
 * Creating notes and folders in the notebook (AndroidWorld's MarkorCreateNote and
 * MarkorCreateFolder). The notebook must end up with exactly the distractors plus the new entry:
 * a misnamed extra file (e.g. "name.md.md" next to the right one) fails.
 */
const CreateNoteP = z.object({ file_name: z.string().min(1), text: z.string().min(1), others: z.array(Note) });

export const MarkorCreateNote = defineTask({
  id: 'MarkorCreateNote',
  apps: ['Markor'],
  difficulty: 'medium',
  tags: ['data_entry', 'dialog', 'file_management'],
  kind: 'completion',
  template: 'Create a new note in Markor named {file_name} with the following text: {text}',
  params: CreateNoteP,
  generate: (rng) => {
    const [fileName, ...names] = randomNoteNames(rng, 1 + rng.int(2, 7));
    return {
      file_name: fileName!,
      text: randomNoteText(rng, 1),
      others: names.map((name) => ({ name, text: randomNoteText(rng, rng.int(1, 3)) })),
    };
  },
  initialize: async (device, p) => {
    await clearMarkor(device);
    for (const n of p.others) await writeNote(device, n.name, n.text);
  },
  // The typed text must match; trailing spaces or newlines are tolerated (a person may end with Enter).
  check: async (device, p) => treeVerdict(await notebookTree(device), treeOf([...p.others, { name: p.file_name, text: p.text }]), {
    [p.file_name]: (t) => sameTypedText(t, p.text),
  }),
  subgoals: (p) => [
    markorOpen,
    newFileDialogOpen,
    { name: 'file name typed', check: async ({ obs }) => fieldHolds(obs, p.file_name) },
    documentOpen(p.file_name),
    { name: 'text typed', check: async ({ obs }) => fieldHolds(obs, p.text) },
    { name: 'note saved', check: async ({ device }) => sameTypedText(await readNote(device, p.file_name), p.text) },
  ],
  *oracle(p, ui) {
    yield* openMarkor(ui);
    yield ui.tap(FAB);
    yield ui.type(NEW_NAME, p.file_name);
    yield ui.tap({ text: 'OK' });
    yield ui.type(EDITOR, p.text);
    yield ui.tap({ contentDesc: 'Save' });
    yield ui.complete();
  },
});

const CreateFolderP = z.object({ folder_name: z.string().min(1), folders: z.array(z.string()), others: z.array(Note) });

export const MarkorCreateFolder = defineTask({
  id: 'MarkorCreateFolder',
  apps: ['Markor'],
  difficulty: 'easy',
  tags: ['data_entry', 'dialog', 'file_management'],
  kind: 'completion',
  template: 'Create a new folder in Markor named {folder_name}.',
  params: CreateFolderP,
  generate: (rng) => {
    const [target, ...folders] = rng.sample(FOLDER_NAMES, 1 + rng.int(0, 3));
    // Sometimes a dated name, as AndroidWorld's "folder_<timestamp>" names are.
    const folderName = rng.chance(0.3) ? `${target}_2023${String(rng.int(1, 12)).padStart(2, '0')}` : target!;
    return {
      folder_name: folderName,
      folders,
      others: randomNoteNames(rng, rng.int(2, 6)).map((name) => ({ name, text: randomNoteText(rng, rng.int(1, 2)) })),
    };
  },
  initialize: async (device, p) => {
    await clearMarkor(device);
    for (const f of p.folders) await makeFolder(device, f);
    for (const n of p.others) await writeNote(device, n.name, n.text);
  },
  check: async (device, p) => treeVerdict(await notebookTree(device), treeOf(p.others, [...p.folders, p.folder_name])),
  subgoals: (p) => [
    markorOpen,
    newFileDialogOpen,
    { name: 'folder name typed', check: async ({ obs }) => fieldHolds(obs, p.folder_name) },
    { name: 'folder created', check: async ({ device }) => (await notebookTree(device)).get(p.folder_name) === null },
  ],
  *oracle(p, ui) {
    yield* openMarkor(ui);
    yield ui.tap(FAB);
    yield ui.type(NEW_NAME, p.folder_name);
    yield ui.tap({ text: 'Folder' });
    yield ui.complete();
  },
});

export const CREATE_TASKS: readonly TaskTemplate[] = [MarkorCreateNote, MarkorCreateFolder];
