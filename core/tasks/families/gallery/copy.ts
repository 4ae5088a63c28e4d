import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import type { Device } from '../../../device/device.js';
import { defineTask, type Subgoal, type TaskTemplate } from '../../task.js';
import { launch, scrollTo, type OracleUi } from '../../oracle.js';
import { clearDir } from '../../validators/files.js';
import { inActivity, onScreen } from '../../validators/ui.js';
import { condition, holds, listed, met, verdictOf, type CheckCondition } from '../../verdict.js';
import { folderPath, listDetailed } from '../files/files-helpers.js';
import { drawPictures, Picture, pushPictures } from './images.js';

/**
 * Saving a copy of a picture in another folder with Simple Gallery Pro (AndroidWorld's
 * SaveCopyOfReceiptTaskEval): open the picture's folder, the picture, More options › Copy to, then
 * the destination (from the picker's grid of folders with media, or through "Other folder").
 */
export const GALLERY_PKG = 'com.simplemobiletools.gallery.pro';
export const VIEWER_ACTIVITY = `${GALLERY_PKG}.activities.ViewPagerActivity`;

const Params = z.object({
  /** The picture to copy, by file name; the receipt it shows. */
  target: Picture,
  /** Folders of shared storage ("DCIM", "Download"). */
  source: z.string().min(1),
  destination: z.string().min(1),
  /** The source folder's other pictures. */
  others: z.array(Picture),
});
type P = z.infer<typeof Params>;

/** The source as it was, the destination holding the copy (same size as the original) and nothing else new. */
async function copyConditions(device: Device, p: P): Promise<CheckCondition[]> {
  const src = await listDetailed(device, folderPath(p.source));
  const dst = await listDetailed(device, folderPath(p.destination));
  const original = src?.get(p.target.name);
  const copy = dst?.get(p.target.name);
  const words = (e: { size: number } | undefined) => (e ? `${e.size} bytes` : 'missing');
  const expectedSrc = new Set([p.target.name, ...p.others.map((o) => o.name)]);
  return [
    condition(`${p.target.name} still in ${p.source}`, 'present', original ? 'present' : 'missing'),
    holds(`copy of ${p.target.name} in ${p.destination}, as large as the original`, copy !== undefined && original !== undefined && copy.size === original.size,
      { expected: words(original), found: words(copy) }),
    ...p.others.map((o) => condition(`${o.name} still in ${p.source}`, 'present', src?.has(o.name) ? 'present' : 'missing')),
    holds(`nothing else in ${p.source}`, [...(src?.keys() ?? [])].every((n) => expectedSrc.has(n)),
      { expected: 'none', found: listed([...(src?.keys() ?? [])].filter((n) => !expectedSrc.has(n))) }),
    holds(`nothing else in ${p.destination}`, [...(dst?.keys() ?? [])].every((n) => n === p.target.name),
      { expected: 'none', found: listed([...(dst?.keys() ?? [])].filter((n) => n !== p.target.name)) }),
  ];
}

export const galleryOpen: Subgoal = { name: 'Simple Gallery open', check: async ({ obs }) => inActivity(obs, GALLERY_PKG) };

/** Opens Simple Gallery, a folder of its grid, and a picture of that folder, full screen. */
export function* openPicture(ui: OracleUi, folder: string, name: string): Generator<Action, void, void> {
  yield* launch(ui, 'Simple Gallery Pro');
  yield ui.tap(yield* scrollTo(ui, { text: folder, resourceId: 'dir_name' }, { within: { resourceId: 'directories_grid' } }));
  yield ui.tap(yield* scrollTo(ui, { text: name, resourceId: 'medium_name' }, { within: { resourceId: 'media_grid' } }));
}

/** In Copy to's or Move to's picker: the folder from the grid when it holds media, else through Other folder. */
export function* pickFolder(ui: OracleUi, folder: string): Generator<Action, void, void> {
  const inGrid = { text: folder, resourceId: 'dir_name' };
  if (ui.exists(inGrid)) {
    yield ui.tap(inGrid);
    return;
  }
  yield ui.tap({ text: 'Other folder' });
  yield ui.tap({ text: 'Internal', resourceId: 'breadcrumb_item' });
  for (const seg of folder.split('/')) {
    yield ui.tap(yield* scrollTo(ui, { text: seg, resourceId: 'list_item_name' }, { within: { resourceId: 'filepicker_list' } }));
  }
  yield ui.tap({ text: 'OK' });
}

export const SaveCopyOfPicture = defineTask({
  id: 'GallerySaveCopyOfPicture',
  apps: ['Simple Gallery Pro'],
  difficulty: 'medium',
  tags: ['file_management', 'complex_ui'],
  kind: 'completion',
  template: 'In Simple Gallery Pro, copy {name} in {source} and save a copy with the same name in {destination}',
  params: Params,
  generate: (rng) => {
    const [target, ...others] = drawPictures(rng, rng.int(2, 6));
    const [source, destination] = rng.chance(0.6) ? ['DCIM', 'Download'] : rng.sample(['DCIM', 'Pictures', 'Download', 'Documents'], 2);
    return { target: target!, source: source!, destination: destination!, others };
  },
  instruction: (p) => `In Simple Gallery Pro, copy ${p.target.name} in ${p.source} and save a copy with the same name in ${p.destination}`,
  initialize: async (device, p) => {
    await clearDir(device, folderPath(p.destination));
    await pushPictures(device, p.source, [...p.others, p.target]);
  },
  check: async (device, p) => verdictOf(await copyConditions(device, p)),
  subgoals: (p) => [
    galleryOpen,
    { name: `${p.target.name} open`, check: async ({ obs }) => inActivity(obs, GALLERY_PKG, VIEWER_ACTIVITY) && onScreen(obs, { text: p.target.name, resourceId: 'toolbar_title' }) },
    { name: 'folder picker open', check: async ({ obs }) => onScreen(obs, { text: 'Select a folder' }) },
    { name: 'copy saved', check: async ({ device }) => met(await copyConditions(device, p)) },
  ],
  *oracle(p, ui) {
    yield* openPicture(ui, p.source, p.target.name);
    yield ui.tap({ contentDesc: 'More options' });
    yield ui.tap({ text: 'Copy to' });
    yield* pickFolder(ui, p.destination);
    yield ui.complete();
  },
});

export const COPY_TASKS: readonly TaskTemplate[] = [SaveCopyOfPicture];
