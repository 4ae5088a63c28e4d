import { z } from 'zod';
import { defineTask, type Subgoal, type TaskTemplate } from '../../task.js';
import { FOLDER_NAMES } from '../../../seed-data/file-names.js';
import { inActivity } from '../../validators/ui.js';
import { drawFiles, folderConditions, folderHolds, foundIn, FILES_PKG, filesOpen, folderOpen, folderPath, FOLDERS, folderShown, itemSelected, listDetailed, openFolder, PICK_ACTIVITY, SeedFile, seedFolder, select, TITLE } from './files-helpers.js';
import type { Device } from '../../../device/device.js';
import type { Action } from '../../../actions/schema.js';
import { scrollTo, type OracleUi } from '../../oracle.js';
import { met, verdictOf, type CheckCondition } from '../../verdict.js';

/**
 * Moving and copying documents: select, More options › Move to…/Copy to…, browse the destination
 * picker (breadcrumb back to Internal storage, then down), Move/Copy.
 */
const Sub = z.object({ name: z.string(), files: z.array(SeedFile) });

const MoveParams = z.object({
  target: SeedFile,
  downloads: z.array(SeedFile),
  sub: z.string(),
  /** Documents' sub-folders (the destination among them) with what they hold. */
  subs: z.array(Sub),
});

const pickerOpen: Subgoal = { name: 'destination picker open', check: async ({ obs }) => inActivity(obs, FILES_PKG, PICK_ACTIVITY) };

/** In the picker: back to Internal storage, then down a folder path, then the action button. */
function* pickDestination(ui: OracleUi, segments: readonly string[], verb: 'Move' | 'Copy'): Generator<Action, void, void> {
  yield ui.tap({ text: 'Internal storage', resourceId: 'breadcrumb_text' });
  for (const seg of segments) yield ui.tap(yield* scrollTo(ui, TITLE(seg)));
  yield ui.tap({ text: verb, resourceId: 'button1' });
}

/**
 * The file moved into place: Download without it, Documents with just its sub-folders, each
 * sub-folder with its files (the target in the destination); a missing file is placed where it is instead.
 */
async function moveConditions(device: Device, p: z.infer<typeof MoveParams>): Promise<CheckCondition[]> {
  const download = await listDetailed(device, folderPath('Download'));
  const subs: Array<readonly [string, Awaited<ReturnType<typeof listDetailed>>]> = [];
  for (const s of p.subs) subs.push([`Documents/${s.name}`, await listDetailed(device, folderPath('Documents', s.name))]);
  const where = foundIn([['Download', download], ...subs]);
  return [
    ...folderConditions('Download', download, p.downloads),
    ...await folderHolds(device, 'Documents', [], p.subs.map((s) => s.name)),
    ...p.subs.flatMap((s, i) => folderConditions(subs[i]![0], subs[i]![1], s.name === p.sub ? [...s.files, p.target] : s.files, [], where)),
  ];
}

export const MoveFile = defineTask({
  id: 'FilesMoveFile',
  apps: ['Files'],
  difficulty: 'hard',
  tags: ['file_management', 'long_press', 'complex_ui', 'needs_scrolling'],
  kind: 'completion',
  template: 'Move the file {name} from the Download folder to the {sub} folder inside Documents.',
  params: MoveParams,
  generate: (rng) => {
    const files = drawFiles(rng, 'Download', rng.int(9, 15));
    const target = files[rng.int(0, files.length - 1)]!;
    const names = rng.sample(FOLDER_NAMES, rng.int(3, 5));
    const subs = names.map((name) => ({ name, files: drawFiles(rng, 'Documents', rng.int(0, 2), files.map((f) => f.name)) }));
    return { target, downloads: files.filter((f) => f !== target), sub: rng.pick(names), subs };
  },
  instruction: (p) => `Move the file ${p.target.name} from the Download folder to the ${p.sub} folder inside Documents.`,
  initialize: async (device, p) => {
    await seedFolder(device, folderPath('Download'), [...p.downloads, p.target]);
    await seedFolder(device, folderPath('Documents'), [], p.subs.map((s) => s.name));
    for (const s of p.subs) await seedFolder(device, folderPath('Documents', s.name), s.files);
  },
  check: async (device, p) => verdictOf(await moveConditions(device, p)),
  subgoals: (p) => [
    filesOpen,
    folderOpen('Download'),
    itemSelected(p.target.name),
    pickerOpen,
    { name: `picker in ${p.sub}`, check: async ({ obs }) => inActivity(obs, FILES_PKG, PICK_ACTIVITY) && folderShown(obs, p.sub) },
    { name: 'file moved', check: async ({ device }) => met(await moveConditions(device, p)) },
  ],
  *oracle(p, ui) {
    yield* openFolder(ui, ['Download']);
    yield* select(ui, p.target.name);
    yield ui.tap({ contentDesc: 'More options' });
    yield ui.tap({ text: 'Move to…' });
    yield* pickDestination(ui, ['Documents', p.sub], 'Move');
    yield ui.complete();
  },
});

const CopyParams = z.object({ from: z.string(), to: z.string(), target: SeedFile, source: z.array(SeedFile), dest: z.array(SeedFile) });

/** The file in both folders, each folder otherwise as it was. */
async function copyConditions(device: Device, p: z.infer<typeof CopyParams>): Promise<CheckCondition[]> {
  return [
    ...await folderHolds(device, p.from, [...p.source, p.target]),
    ...await folderHolds(device, p.to, [...p.dest, p.target]),
  ];
}

export const CopyFile = defineTask({
  id: 'FilesCopyFile',
  apps: ['Files'],
  difficulty: 'medium',
  tags: ['file_management', 'long_press', 'complex_ui'],
  kind: 'completion',
  template: 'Copy the file {name} from the {from} folder to the {to} folder, keeping the original.',
  params: CopyParams,
  generate: (rng) => {
    const from = rng.pick(FOLDERS);
    const to = rng.pick(FOLDERS.filter((f) => f !== from));
    const files = drawFiles(rng, from, rng.int(5, 12));
    const target = files[rng.int(0, files.length - 1)]!;
    const dest = drawFiles(rng, to, rng.int(1, 6), files.map((f) => f.name));
    return { from, to, target, source: files.filter((f) => f !== target), dest };
  },
  instruction: (p) => `Copy the file ${p.target.name} from the ${p.from} folder to the ${p.to} folder, keeping the original.`,
  initialize: async (device, p) => {
    await seedFolder(device, folderPath(p.from), [...p.source, p.target]);
    await seedFolder(device, folderPath(p.to), p.dest);
  },
  check: async (device, p) => verdictOf(await copyConditions(device, p)),
  subgoals: (p) => [
    filesOpen,
    folderOpen(p.from),
    itemSelected(p.target.name),
    pickerOpen,
    { name: 'file copied', check: async ({ device }) => met(await copyConditions(device, p)) },
  ],
  *oracle(p, ui) {
    yield* openFolder(ui, [p.from]);
    yield* select(ui, p.target.name);
    yield ui.tap({ contentDesc: 'More options' });
    yield ui.tap({ text: 'Copy to…' });
    yield* pickDestination(ui, [p.to], 'Copy');
    yield ui.complete();
  },
});

export const TRANSFER_TASKS: readonly TaskTemplate[] = [MoveFile, CopyFile];
