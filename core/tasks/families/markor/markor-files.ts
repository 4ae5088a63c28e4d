import { holds, listed, verdictOf, type CheckCondition, type CheckVerdict } from '../../verdict.js';
import type { Device } from '../../../device/device.js';
import { shellOk } from '../../../device/device.js';
import { shellCommand } from '../../../device/shell-quote.js';
import { DEVICE_NOW } from '../../../seed-data/dates.js';
import { clearDir, readText } from '../../validators/files.js';

/**
 * Markor's notes through the device shell (`ls`, `cat`, `find`, `echo >`, `touch -d`), the way
 * AndroidWorld sets up and checks them, so these helpers work on SimDroid and on an emulator.
 * Names are relative to the notebook folder and may include sub-folders ("Work/plan.md").
 * Reusable by any task that touches Markor (multi-app ones included).
 */
export const MARKOR_DIR = '/storage/emulated/0/Documents/Markor';

function pathOf(name: string): string {
  return name === '' ? MARKOR_DIR : `${MARKOR_DIR}/${name}`;
}

/** `touch -d` time text for a moment (device time is UTC). */
function touchDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** A stable pseudo-age for a note name (0–40 days), so set-up notes carry varied, realistic dates. */
export function defaultAgeMinutes(name: string): number {
  let h = 7;
  for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return 30 + (h % (40 * 24 * 60));
}

/** Empties the notebook folder (creating it when missing). */
export async function clearMarkor(device: Device): Promise<void> {
  await clearDir(device, MARKOR_DIR);
}

/**
 * Writes a note (creating its folder). Its modification time is set `ageMinutes` before the
 * device's start date; by default a stable age derived from the name.
 */
export async function writeNote(device: Device, name: string, text: string, opts: { ageMinutes?: number } = {}): Promise<void> {
  const path = pathOf(name);
  const dir = path.slice(0, path.lastIndexOf('/'));
  const when = DEVICE_NOW - (opts.ageMinutes ?? defaultAgeMinutes(name)) * 60_000;
  await shellOk(device, [
    shellCommand('mkdir', '-p', dir),
    `${shellCommand('echo', '-n', text)} > ${shellCommand(path)}`,
    shellCommand('touch', '-d', touchDate(when), path),
  ].join(' && '));
}

export async function makeFolder(device: Device, name: string): Promise<void> {
  await shellOk(device, shellCommand('mkdir', '-p', pathOf(name)));
}

/** A note's text, or null when there is no such file. */
export async function readNote(device: Device, name: string): Promise<string | null> {
  return readText(device, pathOf(name));
}

async function findNames(device: Device, dir: string, type: 'f' | 'd'): Promise<string[]> {
  const base = pathOf(dir);
  const r = await device.shell(shellCommand('find', base, '-type', type));
  if (r.exitCode !== 0) return [];
  return r.stdout.split('\n').filter((p) => p.startsWith(`${base}/`)).map((p) => p.slice(base.length + 1)).sort();
}

/** Names of the files directly in a notebook folder (the root by default), sorted. */
export async function listNotes(device: Device, dir = ''): Promise<string[]> {
  return (await findNames(device, dir, 'f')).filter((n) => !n.includes('/'));
}

/** Names of the folders directly in a notebook folder, sorted. */
export async function listFolders(device: Device, dir = ''): Promise<string[]> {
  return (await findNames(device, dir, 'd')).filter((n) => !n.includes('/'));
}

/** The whole notebook: relative path → file text, or null for a folder. */
export type NotebookTree = Map<string, string | null>;

export async function notebookTree(device: Device): Promise<NotebookTree> {
  const tree: NotebookTree = new Map();
  for (const d of await findNames(device, '', 'd')) tree.set(d, null);
  for (const f of await findNames(device, '', 'f')) tree.set(f, await readNote(device, f));
  return tree;
}

/** Text typed by a person: trailing spaces and newlines do not matter. */
export function sameTypedText(actual: string | null | undefined, expected: string): boolean {
  return typeof actual === 'string' && actual.replace(/\s+$/, '') === expected.replace(/\s+$/, '');
}

const entryWords = (text: string | null) => (text === null ? 'a folder' : JSON.stringify(text));

/**
 * The notebook holds exactly these entries: every expected path is there with its text (exactly,
 * or per `matches` for the ones the agent wrote, whose text here is only what the reasons show as
 * expected) and nothing else exists. `null` expects a folder.
 * The conditions say which expected entries are missing, which are extra, which hold other text.
 */
export function treeVerdict(actual: NotebookTree, expected: NotebookTree, matches: Record<string, (text: string | null) => boolean> = {}): CheckVerdict {
  // Folders implied by nested paths are part of the expectation too.
  const want = new Map(expected);
  for (const p of expected.keys()) {
    for (let i = p.indexOf('/'); i > 0; i = p.indexOf('/', i + 1)) if (!want.has(p.slice(0, i))) want.set(p.slice(0, i), null);
  }
  const missing = [...want.keys()].filter((p) => !actual.has(p));
  const extra = [...actual.keys()].filter((p) => !want.has(p));
  const conditions: CheckCondition[] = [
    holds('every expected note and folder exists', missing.length === 0, { expected: `all ${want.size}`, found: missing.length ? `missing ${listed(missing)}` : `all ${want.size}` }),
    holds('no other notes or folders', extra.length === 0, { expected: 'none', found: listed(extra) }),
  ];
  for (const [path, text] of want) {
    if (!actual.has(path)) continue;
    const got = actual.get(path)!;
    const match = matches[path];
    const ok = match ? match(got) : got === text;
    if (!ok || match) conditions.push(holds(`${path} ${match ? 'has the text asked for' : 'unchanged'}`, ok, { expected: entryWords(text), found: entryWords(got) }));
  }
  return verdictOf(conditions);
}

/** A tree from a list of notes and folders. */
export function treeOf(notes: ReadonlyArray<{ name: string; text: string }>, folders: readonly string[] = []): NotebookTree {
  const t: NotebookTree = new Map();
  for (const f of folders) t.set(f, null);
  for (const n of notes) t.set(n.name, n.text);
  return t;
}
