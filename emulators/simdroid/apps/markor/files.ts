import { basename, dirname, normalizePath, type FileSystem } from '../../system/fs.js';
import { formatTime, shortMonth } from '../../system/clock.js';

/**
 * Markor keeps no database: notes are plain files in the notebook folder in shared storage
 * (AndroidWorld's MARKOR_DATA), so everything here reads and writes the device filesystem and a
 * checker sees the same state with `ls` and `cat`.
 */
export const MARKOR_PKG = 'net.gsantner.markor';
export const MAIN_ACTIVITY = 'net.gsantner.markor.activity.MainActivity';
export const DOCUMENT_ACTIVITY = 'net.gsantner.markor.activity.DocumentActivity';
export const NOTEBOOK = '/storage/emulated/0/Documents/Markor';
/** Markor's default To-Do and QuickNote files live in the notebook folder. */
export const TODO_FILE = `${NOTEBOOK}/todo.txt`;
export const QUICKNOTE_FILE = `${NOTEBOOK}/QuickNote.md`;

/** Extensions Markor opens as text; a typed name ending in one of them keeps it as is. */
const TEXT_EXTENSIONS = ['.md', '.markdown', '.txt', '.text', '.todo.txt', '.csv', '.json', '.html'];

export type FileType = 'md' | 'txt';
export const FILE_TYPES: ReadonlyArray<{ type: FileType; label: string; ext: string }> = [
  { type: 'md', label: 'Markdown', ext: '.md' },
  { type: 'txt', label: 'Plain text', ext: '.txt' },
];

export type SortOrder = 'name' | 'date';

export interface Entry {
  name: string;
  path: string;
  dir: boolean;
  mtime: number;
  size: number;
}

export function join(dir: string, name: string): string {
  return `${dir}/${name}`;
}

export function isDir(fs: FileSystem, path: string): boolean {
  return fs.stat(path)?.type === 'dir';
}

/** Inside the notebook (the root included): the browser never leaves it. */
export function inNotebook(path: string): boolean {
  const p = normalizePath(path);
  return p === NOTEBOOK || p.startsWith(`${NOTEBOOK}/`);
}

/**
 * The folder to show for a remembered one: itself, or the nearest ancestor still there when it was
 * deleted behind the app's back (by a shell command); the notebook when nothing is left.
 */
export function existingFolder(fs: FileSystem, dir: string): string {
  let d = normalizePath(dir);
  while (inNotebook(d) && d !== NOTEBOOK && !isDir(fs, d)) d = dirname(d);
  return inNotebook(d) ? d : NOTEBOOK;
}

/** Folders first, then files; by name (case-insensitive) or newest first. Dotfiles are hidden, as by default. */
export function listEntries(fs: FileSystem, dir: string, sort: SortOrder): Entry[] {
  if (!isDir(fs, dir)) return [];
  const entries: Entry[] = fs.list(dir).filter((n) => !n.startsWith('.')).map((name) => {
    const path = join(dir, name);
    const st = fs.stat(path)!;
    return { name, path, dir: st.type === 'dir', mtime: st.mtime, size: fs.size(path) };
  });
  const byName = (a: Entry, b: Entry) => a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }) || a.name.localeCompare(b.name);
  return entries.sort((a, b) => {
    if (a.dir !== b.dir) return a.dir ? -1 : 1;
    return sort === 'date' ? b.mtime - a.mtime || byName(a, b) : byName(a, b);
  });
}

/**
 * The file name a NewFileDialog entry gives: the name with the extension field's text (the chosen
 * type's, ".md" at first, or whatever was typed there; empty: none), unless the name already ends
 * in a text file extension.
 */
export function fileNameFor(typed: string, ext: string): string {
  const name = typed.trim();
  const lower = name.toLowerCase();
  if (TEXT_EXTENSIONS.some((e) => lower.endsWith(e) && lower.length > e.length)) return name;
  return name + ext.trim();
}

/** Why a name cannot be used in a folder, or null when it can. */
export function nameProblem(fs: FileSystem, dir: string, name: string): string | null {
  if (name === '') return 'Please enter a name';
  if (name.includes('/') || name === '.' || name === '..') return 'Invalid file name';
  if (fs.exists(join(dir, name))) return `"${name}" already exists`;
  return null;
}

export function readTextOr(fs: FileSystem, path: string, fallback: string): string {
  const st = fs.stat(path);
  return st?.type === 'file' ? st.data.toString('utf8') : fallback;
}

/** Writes a document, creating its folder if it went missing meanwhile. */
export function writeDocument(fs: FileSystem, path: string, text: string): void {
  fs.writeFile(path, text, { parents: true });
}

/** Moves (or copies) entries into a folder; returns the names that could not go (already there). */
export function transfer(fs: FileSystem, paths: readonly string[], dest: string, copy: boolean): string[] {
  const refused: string[] = [];
  for (const from of paths) {
    const target = join(dest, basename(from));
    // A folder cannot go into itself or below itself; a name already taken is not overwritten.
    if (target === from || dest === from || dest.startsWith(`${from}/`) || fs.exists(target)) {
      if (target !== from) refused.push(basename(from));
      continue;
    }
    if (!copy) {
      fs.rename(from, target);
    } else if (isDir(fs, from)) {
      fs.mkdirp(target);
      for (const f of fs.walk(from)) fs.writeFile(target + f.slice(from.length), fs.readFile(f), { parents: true });
    } else {
      fs.writeFile(target, fs.readFile(from));
    }
  }
  return refused;
}

/** "Oct 15, 2023, 3:34 PM", in the device's 12/24-hour format. */
export function formatModified(ms: number, h24: boolean): string {
  const d = new Date(ms);
  return `${shortMonth(d.getUTCMonth())} ${d.getUTCDate()}, ${d.getUTCFullYear()}, ${formatTime(ms, h24)}`;
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A document's title in the editor's toolbar: its name without the extension, as Markor shows it. */
export function documentTitle(path: string): string {
  const name = basename(path);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

/** The folder's name for the toolbar: "Markor" at the notebook root, as the app titles it. */
export function folderTitle(dir: string): string {
  return dir === NOTEBOOK ? 'Markor' : basename(dir);
}

/** A path as shown under the title: relative to shared storage. */
export function displayPath(dir: string): string {
  return dir.replace(/^\/storage\/emulated\/0/, '') || '/';
}
