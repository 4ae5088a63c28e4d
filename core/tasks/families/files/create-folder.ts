import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import { FOLDER_NAMES } from '../../../seed-data/file-names.js';
import { fieldHolds, onScreen } from '../../validators/ui.js';
import { drawFiles, filesOpen, folderOpen, folderHolds, folderPath, listDetailed, openFolder, SeedFile, seedFolder } from './files-helpers.js';
import { holds, listed, met, verdictOf } from '../../verdict.js';

/** A new folder in Documents: More options › New folder, type the name, OK. */
const Params = z.object({ name: z.string().min(1), subfolders: z.array(z.string()), files: z.array(SeedFile) });

export const CreateFolder = defineTask({
  id: 'FilesCreateFolder',
  apps: ['Files'],
  difficulty: 'medium',
  tags: ['data_entry', 'file_management', 'dialog'],
  kind: 'completion',
  template: 'Create a new folder named {name} in the Documents folder.',
  params: Params,
  generate: (rng) => {
    const [name, ...subfolders] = rng.sample(FOLDER_NAMES, rng.int(3, 6));
    return { name: name!, subfolders, files: drawFiles(rng, 'Documents', rng.int(1, 5)) };
  },
  initialize: async (device, p) => seedFolder(device, folderPath('Documents'), p.files, p.subfolders),
  check: async (device, p) => {
    const inside = await listDetailed(device, folderPath('Documents', p.name));
    return verdictOf([
      ...await folderHolds(device, 'Documents', p.files, [...p.subfolders, p.name]),
      holds(`folder ${p.name} empty`, inside?.size === 0, { expected: 'empty', found: inside === null ? 'no such folder' : inside.size === 0 ? 'empty' : listed([...inside.keys()]) }),
    ]);
  },
  subgoals: (p) => [
    filesOpen,
    folderOpen('Documents'),
    { name: 'new folder dialog open', check: async ({ obs }) => onScreen(obs, { text: 'New folder', resourceId: 'android:id/alertTitle' }) },
    { name: 'folder name typed', check: async ({ obs }) => fieldHolds(obs, p.name) },
    { name: 'folder created', check: async ({ device }) => met(await folderHolds(device, 'Documents', p.files, [...p.subfolders, p.name])) },
  ],
  *oracle(p, ui) {
    yield* openFolder(ui, ['Documents']);
    yield ui.tap({ contentDesc: 'More options' });
    yield ui.tap({ text: 'New folder' });
    yield ui.type({ resourceId: 'android:id/text1' }, p.name);
    yield ui.tap({ text: 'OK' });
    yield ui.complete();
  },
});

export const CREATE_FOLDER_TASKS: readonly TaskTemplate[] = [CreateFolder];
