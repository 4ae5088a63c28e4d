import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import { ADJECTIVES } from '../../../seed-data/text.js';
import { fieldHolds, onScreen } from '../../validators/ui.js';
import { drawFiles, extensionOf, filesOpen, folderOpen, folderHolds, folderPath, FOLDERS, itemSelected, openFolder, SeedFile, seedFolder, select, stemOf } from './files-helpers.js';
import { met, verdictOf } from '../../verdict.js';

/** Renaming a document in Files: select it, More options › Rename, type the new name, OK. */
const Params = z.object({ folder: z.string(), target: SeedFile, newName: z.string().min(1), others: z.array(SeedFile) });

const SUFFIXES = ['final', 'v2', 'old', 'backup', 'copy', 'signed', 'draft', 'reviewed'];

export const RenameFile = defineTask({
  id: 'FilesRenameFile',
  apps: ['Files'],
  difficulty: 'medium',
  tags: ['data_edit', 'file_management', 'long_press', 'dialog'],
  kind: 'completion',
  template: 'Rename the file {name} in the {folder} folder to {newName}.',
  params: Params,
  generate: (rng) => {
    const folder = rng.pick(FOLDERS);
    const files = drawFiles(rng, folder, rng.int(5, 12));
    const target = files[rng.int(0, files.length - 1)]!;
    const ext = extensionOf(target.name);
    let newName = '';
    while (!newName || files.some((f) => f.name === newName)) {
      newName = rng.chance(0.5)
        ? `${stemOf(target.name)}_${rng.pick(SUFFIXES)}.${ext}`
        : `${rng.pick(ADJECTIVES)}_${stemOf(target.name).split('_')[0]!.toLowerCase()}.${ext}`;
    }
    return { folder, target, newName, others: files.filter((f) => f !== target) };
  },
  instruction: (p) => `Rename the file ${p.target.name} in the ${p.folder} folder to ${p.newName}.`,
  initialize: async (device, p) => seedFolder(device, folderPath(p.folder), [...p.others, p.target]),
  check: async (device, p) => verdictOf(await folderHolds(device, p.folder, [...p.others, { name: p.newName, size: p.target.size }])),
  subgoals: (p) => [
    filesOpen,
    folderOpen(p.folder),
    itemSelected(p.target.name),
    { name: 'rename dialog open', check: async ({ obs }) => onScreen(obs, { text: 'Rename', resourceId: 'android:id/alertTitle' }) },
    { name: 'new name typed', check: async ({ obs }) => fieldHolds(obs, p.newName) },
    {
      name: 'file renamed',
      check: async ({ device }) => met(await folderHolds(device, p.folder, [...p.others, { name: p.newName, size: p.target.size }])),
    },
  ],
  *oracle(p, ui) {
    yield* openFolder(ui, [p.folder]);
    yield* select(ui, p.target.name);
    yield ui.tap({ contentDesc: 'More options' });
    yield ui.tap({ text: 'Rename' });
    yield ui.type({ resourceId: 'android:id/text1' }, p.newName, { clear: true });
    yield ui.tap({ text: 'OK' });
    yield ui.complete();
  },
});

export const RENAME_TASKS: readonly TaskTemplate[] = [RenameFile];
