import { z } from 'zod';
import type { Device } from '../../../device/device.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { clearDir } from '../../validators/files.js';
import { inActivity, onScreen } from '../../validators/ui.js';
import { condition, holds, listed, met, verdictOf, type CheckCondition } from '../../verdict.js';
import { folderPath, listDetailed } from '../files/files-helpers.js';
import { GALLERY_PKG, galleryOpen, openPicture, pickFolder, VIEWER_ACTIVITY } from './copy.js';
import { drawPictures, Picture, pushPictures } from './images.js';

/**
 * Moving a picture to another folder (More options › Move to) and deleting one (the viewer's Delete,
 * confirmed) with Simple Gallery Pro.
 */
const MoveParams = z.object({ target: Picture, source: z.string().min(1), destination: z.string().min(1), others: z.array(Picture) });
type MoveP = z.infer<typeof MoveParams>;

/** Exactly these names in a folder (each listed as present or missing, then nothing else). */
async function folderIs(device: Device, folder: string, names: readonly string[]): Promise<CheckCondition[]> {
  const entries = await listDetailed(device, folderPath(folder));
  const extra = [...(entries?.keys() ?? [])].filter((n) => !names.includes(n));
  return [
    ...names.map((n) => condition(`${n} in ${folder}`, 'present', entries?.has(n) ? 'present' : 'missing')),
    holds(`nothing else in ${folder}`, extra.length === 0, { expected: 'none', found: listed(extra) }),
  ];
}

async function moveConditions(device: Device, p: MoveP): Promise<CheckCondition[]> {
  return [...await folderIs(device, p.source, p.others.map((o) => o.name)), ...await folderIs(device, p.destination, [p.target.name])];
}

const FOLDER_PAIRS: ReadonlyArray<readonly [string, string]> = [['DCIM', 'Pictures'], ['Pictures', 'DCIM'], ['DCIM', 'Download'], ['Download', 'Pictures']];

export const MovePicture = defineTask({
  id: 'GalleryMovePicture',
  apps: ['Simple Gallery Pro'],
  difficulty: 'medium',
  tags: ['file_management', 'complex_ui'],
  kind: 'completion',
  template: 'In Simple Gallery Pro, move {name} from {source} to {destination}.',
  params: MoveParams,
  generate: (rng) => {
    const [target, ...others] = drawPictures(rng, rng.int(2, 6));
    const [source, destination] = rng.pick(FOLDER_PAIRS);
    return { target: target!, source: source!, destination: destination!, others };
  },
  instruction: (p) => `In Simple Gallery Pro, move ${p.target.name} from ${p.source} to ${p.destination}.`,
  initialize: async (device, p) => {
    await clearDir(device, folderPath(p.destination));
    await pushPictures(device, p.source, [...p.others, p.target]);
  },
  check: async (device, p) => verdictOf(await moveConditions(device, p)),
  subgoals: (p) => [
    galleryOpen,
    { name: `${p.target.name} open`, check: async ({ obs }) => inActivity(obs, GALLERY_PKG, VIEWER_ACTIVITY) && onScreen(obs, { text: p.target.name, resourceId: 'toolbar_title' }) },
    { name: 'folder picker open', check: async ({ obs }) => onScreen(obs, { text: 'Select a folder' }) },
    { name: 'picture moved', check: async ({ device }) => met(await moveConditions(device, p)) },
  ],
  *oracle(p, ui) {
    yield* openPicture(ui, p.source, p.target.name);
    yield ui.tap({ contentDesc: 'More options' });
    yield ui.tap({ text: 'Move to' });
    yield* pickFolder(ui, p.destination);
    yield ui.complete();
  },
});

const DeleteParams = z.object({ target: Picture, folder: z.string().min(1), others: z.array(Picture) });

export const DeletePicture = defineTask({
  id: 'GalleryDeletePicture',
  apps: ['Simple Gallery Pro'],
  difficulty: 'easy',
  tags: ['file_management', 'dialog'],
  kind: 'completion',
  template: 'Delete the picture {name} from the {folder} folder in Simple Gallery Pro.',
  params: DeleteParams,
  generate: (rng) => {
    const [target, ...others] = drawPictures(rng, rng.int(2, 6));
    return { target: target!, folder: rng.pick(['DCIM', 'Pictures']), others };
  },
  instruction: (p) => `Delete the picture ${p.target.name} from the ${p.folder} folder in Simple Gallery Pro.`,
  initialize: async (device, p) => pushPictures(device, p.folder, [...p.others, p.target]),
  check: async (device, p) => verdictOf(await folderIs(device, p.folder, p.others.map((o) => o.name))),
  subgoals: (p) => [
    galleryOpen,
    { name: `${p.target.name} open`, check: async ({ obs }) => onScreen(obs, { text: p.target.name, resourceId: 'toolbar_title' }) },
    { name: 'picture deleted', check: async ({ device }) => met(await folderIs(device, p.folder, p.others.map((o) => o.name))) },
  ],
  *oracle(p, ui) {
    yield* openPicture(ui, p.folder, p.target.name);
    yield ui.tap({ contentDesc: 'Delete' });
    yield ui.tap({ text: 'Delete', resourceId: 'android:id/button1' });
    yield ui.complete();
  },
});

export const MOVE_DELETE_TASKS: readonly TaskTemplate[] = [MovePicture, DeletePicture];
