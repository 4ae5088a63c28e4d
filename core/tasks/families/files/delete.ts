import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import { displayOrder, drawFiles, extensionOf, filesOpen, folderOpen, folderHolds, folderPath, FOLDERS, itemSelected, openFolder, SeedFile, seedFolder, select, stemOf, TITLE } from './files-helpers.js';
import { scrollTo } from '../../oracle.js';
import { onScreen } from '../../validators/ui.js';
import { met, verdictOf } from '../../verdict.js';

/**
 * Deleting documents in Files: one file (long press, Delete, confirm), and every file of a type
 * (multi-select by long press then taps, across a list that needs scrolling).
 */
const DeleteParams = z.object({ folder: z.string(), target: SeedFile, others: z.array(SeedFile) });

export const DeleteFile = defineTask({
  id: 'FilesDeleteFile',
  apps: ['Files'],
  difficulty: 'medium',
  tags: ['deletion', 'file_management', 'long_press', 'dialog', 'needs_scrolling'],
  kind: 'completion',
  template: 'Delete the file {name} from the {folder} folder using the Files app.',
  params: DeleteParams,
  generate: (rng) => {
    const folder = rng.pick(FOLDERS);
    const files = drawFiles(rng, folder, rng.int(9, 18));
    const target = files[rng.int(0, files.length - 1)]!;
    const others = files.filter((f) => f !== target);
    // A duplicate download of the target ("name (1).ext") is the distractor a careless agent deletes.
    if (rng.chance(0.6)) {
      others.push({ name: `${stemOf(target.name)} (1).${extensionOf(target.name)}`, size: target.size + rng.int(100, 900) });
    }
    return { folder, target, others };
  },
  instruction: (p) => `Delete the file ${p.target.name} from the ${p.folder} folder using the Files app.`,
  initialize: async (device, p) => seedFolder(device, folderPath(p.folder), [...p.others, p.target]),
  check: async (device, p) => verdictOf(await folderHolds(device, p.folder, p.others)),
  subgoals: (p) => [
    filesOpen,
    folderOpen(p.folder),
    itemSelected(p.target.name),
    { name: 'delete confirmation shown', check: async ({ obs }) => onScreen(obs, { text: `Delete "${p.target.name}"?` }) },
    { name: 'file deleted', check: async ({ device }) => met(await folderHolds(device, p.folder, p.others)) },
  ],
  *oracle(p, ui) {
    yield* openFolder(ui, [p.folder]);
    yield* select(ui, p.target.name);
    yield ui.tap({ contentDesc: 'Delete' });
    yield ui.tap({ text: 'OK' });
    yield ui.complete();
  },
});

const ByTypeParams = z.object({ folder: z.string(), ext: z.string(), targets: z.array(SeedFile).min(2), others: z.array(SeedFile).min(1) });

export const DeleteFilesByType = defineTask({
  id: 'FilesDeleteFilesByType',
  apps: ['Files'],
  difficulty: 'hard',
  tags: ['deletion', 'file_management', 'long_press', 'needs_scrolling', 'screen_reading'],
  kind: 'completion',
  template: 'Delete all the .{ext} files in the {folder} folder, and nothing else.',
  params: ByTypeParams,
  generate: (rng) => {
    const folder = 'Download';
    for (;;) {
      const files = drawFiles(rng, folder, rng.int(10, 16));
      const byExt = new Map<string, typeof files>();
      for (const f of files) byExt.set(extensionOf(f.name), [...(byExt.get(extensionOf(f.name)) ?? []), f]);
      const candidates = [...byExt].filter(([, fs]) => fs.length >= 2 && fs.length <= 5);
      if (candidates.length === 0) continue;
      const [ext, targets] = rng.pick(candidates);
      return { folder, ext, targets, others: files.filter((f) => extensionOf(f.name) !== ext) };
    }
  },
  initialize: async (device, p) => seedFolder(device, folderPath(p.folder), [...p.others, ...p.targets]),
  check: async (device, p) => verdictOf(await folderHolds(device, p.folder, p.others)),
  subgoals: (p) => [
    filesOpen,
    folderOpen(p.folder),
    ...displayOrder(p.targets.map((t) => t.name)).map(itemSelected),
    { name: `.${p.ext} files deleted`, check: async ({ device }) => met(await folderHolds(device, p.folder, p.others)) },
  ],
  *oracle(p, ui) {
    yield* openFolder(ui, [p.folder]);
    const [first, ...rest] = displayOrder(p.targets.map((t) => t.name));
    yield* select(ui, first!);
    // In selection mode a tap adds to the selection; the list is in name order, so keep scrolling down.
    for (const name of rest) yield ui.tap(yield* scrollTo(ui, TITLE(name)));
    yield ui.tap({ contentDesc: 'Delete' });
    yield ui.tap({ text: 'OK' });
    yield ui.complete();
  },
});

export const DELETE_TASKS: readonly TaskTemplate[] = [DeleteFile, DeleteFilesByType];
