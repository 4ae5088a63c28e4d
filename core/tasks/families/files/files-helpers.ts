import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import type { Device } from '../../../device/device.js';
import { shellOk } from '../../../device/device.js';
import type { Observation } from '../../../device/observation.js';
import { shellCommand } from '../../../device/shell-quote.js';
import { findAll, type UiElement, type UiNode } from '../../../a11y/ui-tree.js';
import { launch, scrollTo, type OracleUi } from '../../oracle.js';
import type { Subgoal } from '../../task.js';
import { clearDir, SDCARD, writeText } from '../../validators/files.js';
import { inActivity } from '../../validators/ui.js';
import { condition, holds, listed, type CheckCondition } from '../../verdict.js';
import type { Rng } from '../../../util/rng.js';
import { distinctSizes, randomFileNames, type FileKind } from '../../../seed-data/file-names.js';

/**
 * Shared pieces of the Files (DocumentsUI) templates: seeding folders with files of chosen sizes
 * through the shell, reading folders back (`ls -l`), and the oracle's moves in the app (open a
 * folder path, select a document by long press, read the rows on screen).
 */
export const FILES_PKG = 'com.google.android.documentsui';
export const FILES_ACTIVITY = 'com.android.documentsui.files.FilesActivity';
export const PICK_ACTIVITY = 'com.android.documentsui.picker.PickActivity';

export const SeedFile = z.object({ name: z.string().min(1), size: z.int().positive() });
export type SeedFile = z.infer<typeof SeedFile>;

export const folderPath = (...segments: string[]) => [SDCARD, ...segments].join('/');

/** The standard folders templates use, with the kind of files each holds. */
export const FOLDER_KINDS: Record<string, readonly FileKind[]> = {
  Download: ['document', 'picture', 'document', 'music', 'video'],
  Documents: ['document'],
  Pictures: ['picture'],
  Music: ['music'],
  Movies: ['video'],
};
export const FOLDERS = Object.keys(FOLDER_KINDS);

/** `count` files that fit the folder, with distinct names (none in `exclude`) and distinct sizes. */
export function drawFiles(rng: Rng, folder: string, count: number, exclude: Iterable<string> = []): SeedFile[] {
  const names = randomFileNames(rng, count, FOLDER_KINDS[folder] ?? ['document'], exclude);
  const sizes = distinctSizes(rng, count);
  return names.map((name, i) => ({ name, size: sizes[i]! }));
}

export function extensionOf(name: string): string {
  const i = name.lastIndexOf('.');
  return i > 0 ? name.slice(i + 1) : '';
}

/** The name without its extension. */
export function stemOf(name: string): string {
  const ext = extensionOf(name);
  return ext ? name.slice(0, -(ext.length + 1)) : name;
}

/** Names in the order Files lists them by default (File name, A to Z). */
export function displayOrder(names: readonly string[]): string[] {
  return [...names].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base', numeric: true }));
}

/** Deterministic text of exactly `size` bytes (so "largest file" questions have a right answer). */
export function fileContent(name: string, size: number): string {
  const unit = `${name} sample content line. `;
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

/** Empties a folder (creating it if needed) and writes the files. */
export async function seedFolder(device: Device, dir: string, files: readonly SeedFile[], subfolders: readonly string[] = []): Promise<void> {
  await clearDir(device, dir);
  for (const f of files) await writeText(device, `${dir}/${f.name}`, fileContent(f.name, f.size));
  if (subfolders.length) await shellOk(device, shellCommand('mkdir', '-p', ...subfolders.map((s) => `${dir}/${s}`)));
}

export interface DirEntry {
  dir: boolean;
  size: number;
}

/** A folder's entries with type and size, from `ls -l` (null when the folder does not exist). */
export async function listDetailed(device: Device, dir: string): Promise<Map<string, DirEntry> | null> {
  const r = await device.shell(shellCommand('ls', '-l', dir));
  if (r.exitCode !== 0) return null;
  const out = new Map<string, DirEntry>();
  for (const line of r.stdout.split('\n')) {
    const m = /^([d-])\S*\s+\d+\s+\S+\s+\S+\s+(\d+)\s+\d{4}-\d{2}-\d{2}\s+\d{2}:\d{2}\s(.+)$/.exec(line);
    if (m) out.set(m[3]!, { dir: m[1] === 'd', size: Number(m[2]) });
  }
  return out;
}

/**
 * One folder (named `folder` in words) holds exactly these files (names and sizes) and these
 * sub-folders: each file there with its size, each sub-folder there, nothing else. `elsewhere` names where a missing file is instead.
 */
export function folderConditions(folder: string, entries: Map<string, DirEntry> | null, files: readonly SeedFile[], subfolders: readonly string[] = [],
  elsewhere: (name: string) => string | undefined = () => undefined): CheckCondition[] {
  if (!entries) return [condition(`folder ${folder} exists`, 'exists', 'no such folder')];
  const entryWords = (e: DirEntry | undefined, name: string) => {
    if (e === undefined) {
      const other = elsewhere(name);
      return `not in ${folder}${other ? ` (found in ${other})` : ''}`;
    }
    return e.dir ? 'a folder' : `${e.size} bytes`;
  };
  const expected = new Set([...files.map((f) => f.name), ...subfolders]);
  const extra = [...entries.keys()].filter((n) => !expected.has(n));
  return [
    ...files.map((f) => condition(`file ${f.name} in ${folder}`, `${f.size} bytes`, entryWords(entries.get(f.name), f.name))),
    ...subfolders.map((s) => condition(`folder ${s} in ${folder}`, 'a folder', entryWords(entries.get(s), s))),
    // A missing expected entry fails its own condition above; this one is about extra entries only.
    holds(`nothing else in ${folder}`, extra.length === 0, { expected: 'none', found: listed(extra) }),
  ];
}

/** `folderConditions` for a folder of shared storage, read now (by its name, which is also its path there). */
export async function folderHolds(device: Device, folder: string, files: readonly SeedFile[], subfolders: readonly string[] = []): Promise<CheckCondition[]> {
  return folderConditions(folder, await listDetailed(device, folderPath(folder)), files, subfolders);
}

/** Which of these folders (name → listing) hold an entry named `name`, in words. */
export function foundIn(listings: ReadonlyArray<readonly [string, Map<string, DirEntry> | null]>): (name: string) => string | undefined {
  return (name) => listings.filter(([, e]) => e?.has(name)).map(([f]) => f).join(', ') || undefined;
}

/** `stat -c %F`: 'directory', 'regular file', or null when the path does not exist. */
export async function pathType(device: Device, path: string): Promise<string | null> {
  const r = await device.shell(shellCommand('stat', '-c', '%F', path));
  return r.exitCode === 0 ? r.stdout.trim() : null;
}

// ------------------------------------------------------------------ oracle moves

export const TITLE = (text: string) => ({ text, resourceId: 'android:id/title' });

/** Opens Files and walks down a folder path from Internal storage, scrolling to each folder. */
export function* openFolder(ui: OracleUi, segments: readonly string[]): Generator<Action, void, void> {
  yield* launch(ui, 'Files');
  for (const seg of segments) yield ui.tap(yield* scrollTo(ui, TITLE(seg)));
}

/** Scrolls to a document and long-presses it (selecting it). */
export function* select(ui: OracleUi, name: string): Generator<Action, void, void> {
  yield ui.longPress(yield* scrollTo(ui, TITLE(name)));
}

function descendant(node: UiNode, id: string): UiNode | undefined {
  for (const c of node.children) {
    if (c.resourceId.endsWith(`:id/${id}`)) return c;
    const d = descendant(c, id);
    if (d) return d;
  }
  return undefined;
}

export interface RowView {
  name: string;
  /** The size as shown ("12.35 kB"), absent for folders. */
  size: string | null;
}

/** The document rows on screen, as a person reads them. */
export function rowsOnScreen(ui: OracleUi): RowView[] {
  return ui.findAll({ resourceId: 'item_root' }).map((e: UiElement) => ({
    name: descendant(e.node, 'title')?.text ?? '',
    size: descendant(e.node, 'size')?.text ?? null,
  })).filter((r) => r.name !== '');
}

/** Every row of the list, scrolling down until it stops moving. */
export function* collectRows(ui: OracleUi): Generator<Action, RowView[], void> {
  const seen = new Map<string, RowView>();
  for (let i = 0; i < 30; i++) {
    for (const r of rowsOnScreen(ui)) seen.set(r.name, r);
    if (!ui.exists({ resourceId: 'dir_list' })) break;
    const before = ui.fingerprint();
    yield ui.scroll('down', { resourceId: 'dir_list' });
    if (ui.fingerprint() === before) break;
  }
  return [...seen.values()];
}

// ------------------------------------------------------------------ subgoals

export const filesOpen: Subgoal = { name: 'Files open', check: async ({ obs }) => inActivity(obs, FILES_PKG) };

/** The folder on view (the breadcrumb's last crumb) has this name. */
export function folderShown(obs: Observation, name: string): boolean {
  const crumbs = findAll(obs.elements, { resourceId: 'breadcrumb_text' });
  return inActivity(obs, FILES_PKG) && crumbs.length > 0 && crumbs[crumbs.length - 1]!.node.text === name;
}

export function folderOpen(name: string): Subgoal {
  return { name: `"${name}" folder open`, check: async ({ obs }) => folderShown(obs, name) };
}

/** A document row with this name is selected (selection mode). */
export function itemSelected(name: string): Subgoal {
  return {
    name: `"${name}" selected`,
    check: async ({ obs }) => findAll(obs.elements, { resourceId: 'item_root' })
      .some((e) => e.node.selected && descendant(e.node, 'title')?.text === name),
  };
}
