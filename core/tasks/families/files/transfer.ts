import { z } from 'zod';
import { defineTask, type Subgoal, type TaskTemplate } from '../../task.js';
import { FOLDER_NAMES } from '../../../seed-data/file-names.js';
import { inActivity } from '../../validators/ui.js';
import { drawFiles, folderConditions, folderHolds, foundIn, FILES_PKG, filesOpen, folderOpen, folderPath, FOLDERS, folderShown, itemSelected, listDetailed, openFolder, PICK_ACTIVITY, SeedFile, seedFolder, select, TITLE } from './files-helpers.js';
import { randomFileNames, type FileKind } from '../../../seed-data/file-names.js';
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
  /** The folder the file is in, and where it goes: paths under Internal storage ("Download", "Documents/Work"). */
  source: z.string().min(1),
  destination: z.string().min(1),
  /** The source folder's other files. */
  others: z.array(SeedFile),
  /** What the destination holds already. */
  dest: z.array(SeedFile),
  /** Folders beside the destination (a nested destination's siblings) with what they hold, all to stay as they are. */
  siblings: z.array(Sub),
});
type MoveP = z.infer<typeof MoveParams>;

const pickerOpen: Subgoal = { name: 'destination picker open', check: async ({ obs }) => inActivity(obs, FILES_PKG, PICK_ACTIVITY) };

/** In the picker: back to Internal storage, then down a folder path, then the action button. */
function* pickDestination(ui: OracleUi, segments: readonly string[], verb: 'Move' | 'Copy'): Generator<Action, void, void> {
  yield ui.tap({ text: 'Internal storage', resourceId: 'breadcrumb_text' });
  for (const seg of segments) yield ui.tap(yield* scrollTo(ui, TITLE(seg)));
  yield ui.tap({ text: verb, resourceId: 'button1' });
}

const parent = (path: string) => path.split('/').slice(0, -1).join('/');
const leaf = (path: string) => path.split('/').pop()!;

/** The file moved: the source without it, the destination with it, the destination's siblings as they were. */
async function moveConditions(device: Device, p: MoveP): Promise<CheckCondition[]> {
  const src = await listDetailed(device, folderPath(...p.source.split('/')));
  const dst = await listDetailed(device, folderPath(...p.destination.split('/')));
  const sibs: Array<readonly [string, Awaited<ReturnType<typeof listDetailed>>]> = [];
  const base = parent(p.destination);
  for (const s of p.siblings) sibs.push([[base, s.name].filter(Boolean).join('/'), await listDetailed(device, folderPath(...[base, s.name].filter(Boolean).join('/').split('/')))]);
  const where = foundIn([[p.source, src], [p.destination, dst], ...sibs]);
  return [
    ...folderConditions(p.source, src, p.others, [], where),
    ...folderConditions(p.destination, dst, [...p.dest, p.target], [], where),
    ...p.siblings.flatMap((s, i) => folderConditions(sibs[i]![0], sibs[i]![1], s.files, [], where)),
  ];
}

/** AndroidWorld's twelve top-level folders of the emulator's storage, with the files each holds. */
const TOP_FOLDERS: Record<string, FileKind[]> = {
  Alarms: ['music'], Audiobooks: ['music'], DCIM: ['picture'], Documents: ['document'], Download: ['document', 'picture', 'music', 'video'],
  Movies: ['video'], Music: ['music'], Notifications: ['music'], Pictures: ['picture'], Podcasts: ['music'], Recordings: ['music'], Ringtones: ['music'],
};

export const MoveFile = defineTask({
  id: 'FilesMoveFile',
  apps: ['Files'],
  difficulty: 'hard',
  tags: ['file_management', 'long_press', 'complex_ui', 'needs_scrolling'],
  kind: 'completion',
  template: 'Move the file {name} from the {source} folder to the {destination} folder.',
  params: MoveParams,
  generate: (rng) => {
    if (rng.chance(0.5)) {
      // Into a sub-folder of Documents, among others.
      const files = drawFiles(rng, 'Download', rng.int(9, 15));
      const target = files[rng.int(0, files.length - 1)]!;
      const names = rng.sample(FOLDER_NAMES, rng.int(3, 5));
      const subs = names.map((name) => ({ name, files: drawFiles(rng, 'Documents', rng.int(0, 2), files.map((f) => f.name)) }));
      const sub = rng.pick(subs);
      return {
        target, source: 'Download', destination: `Documents/${sub.name}`, others: files.filter((f) => f !== target), dest: sub.files,
        siblings: subs.filter((s) => s !== sub),
      };
    }
    // Between two of the storage's top-level folders, as AndroidWorld's instances move files.
    const [source, destination] = rng.sample(Object.keys(TOP_FOLDERS), 2);
    const files = randomFileNames(rng, rng.int(4, 10), TOP_FOLDERS[source!]!).map((name, i) => ({ name, size: 100 + i * 37 + rng.int(1, 30) }));
    const target = files[rng.int(0, files.length - 1)]!;
    const dest = randomFileNames(rng, rng.int(0, 4), TOP_FOLDERS[destination!]!, files.map((f) => f.name)).map((name, i) => ({ name, size: 90 + i * 41 }));
    return { target, source: source!, destination: destination!, others: files.filter((f) => f !== target), dest, siblings: [] };
  },
  instruction: (p) => (p.destination.includes('/')
    ? `Move the file ${p.target.name} from the ${p.source} folder to the ${leaf(p.destination)} folder inside ${parent(p.destination)}.`
    : `Move the file ${p.target.name} from the ${p.source} folder to the ${p.destination} folder.`),
  initialize: async (device, p) => {
    const base = parent(p.destination);
    await seedFolder(device, folderPath(...p.source.split('/')), [...p.others, p.target]);
    if (base) await seedFolder(device, folderPath(...base.split('/')), [], [leaf(p.destination), ...p.siblings.map((s) => s.name)]);
    await seedFolder(device, folderPath(...p.destination.split('/')), p.dest);
    for (const s of p.siblings) await seedFolder(device, folderPath(...base.split('/'), s.name), s.files);
  },
  check: async (device, p) => verdictOf(await moveConditions(device, p)),
  subgoals: (p) => [
    filesOpen,
    folderOpen(leaf(p.source)),
    itemSelected(p.target.name),
    pickerOpen,
    { name: `picker in ${leaf(p.destination)}`, check: async ({ obs }) => inActivity(obs, FILES_PKG, PICK_ACTIVITY) && folderShown(obs, leaf(p.destination)) },
    { name: 'file moved', check: async ({ device }) => met(await moveConditions(device, p)) },
  ],
  *oracle(p, ui) {
    yield* openFolder(ui, p.source.split('/'));
    yield* select(ui, p.target.name);
    yield ui.tap({ contentDesc: 'More options' });
    yield ui.tap({ text: 'Move to…' });
    yield* pickDestination(ui, p.destination.split('/'), 'Move');
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
