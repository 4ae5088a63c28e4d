import { basename, dirname, EXTERNAL_STORAGE, type FileSystem } from '../../system/fs.js';

/**
 * What DocumentsUI shows of shared storage: the entries of a folder with their metadata, sorted the
 * way its "Sort by" sheet offers, sizes and dates formatted as Android formats them, and the file
 * operations (copy, move, delete, rename, new folder) done on ctx.sys.fs.
 */
export const STORAGE_ROOT = EXTERNAL_STORAGE;
export const DOWNLOAD_DIR = `${EXTERNAL_STORAGE}/Download`;

export interface DocEntry {
  name: string;
  path: string;
  dir: boolean;
  size: number;
  mtime: number;
}

export type SortKey = 'name_asc' | 'name_desc' | 'date_asc' | 'date_desc' | 'size_asc' | 'size_desc' | 'type_asc' | 'type_desc';

/** The bottom sheet's options in its order, with DocumentsUI's labels. */
export const SORT_OPTIONS: ReadonlyArray<[SortKey, string]> = [
  ['name_asc', 'File name (A to Z)'],
  ['name_desc', 'File name (Z to A)'],
  ['type_asc', 'Type (A to Z)'],
  ['type_desc', 'Type (Z to A)'],
  ['size_asc', 'Size (smallest first)'],
  ['size_desc', 'Size (largest first)'],
  ['date_asc', 'Modified (oldest first)'],
  ['date_desc', 'Modified (newest first)'],
];

const MIME: Record<string, string> = {
  txt: 'text/plain', md: 'text/markdown', csv: 'text/csv', html: 'text/html', json: 'application/json', xml: 'text/xml',
  pdf: 'application/pdf', doc: 'application/msword', docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint', pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  zip: 'application/zip', apk: 'application/vnd.android.package-archive',
  jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp',
  mp3: 'audio/mpeg', m4a: 'audio/mp4', wav: 'audio/x-wav', ogg: 'audio/ogg', '3gp': 'audio/3gpp', flac: 'audio/flac',
  mp4: 'video/mp4', mkv: 'video/x-matroska', webm: 'video/webm',
};

export function extensionOf(name: string): string {
  const i = name.lastIndexOf('.');
  return i > 0 ? name.slice(i + 1).toLowerCase() : '';
}

export function mimeOf(name: string): string {
  return MIME[extensionOf(name)] ?? 'application/octet-stream';
}

/** The icon DocumentsUI's mime icons map to, in SimDroid's icon set. */
export function iconOf(e: { name: string; dir: boolean }): string {
  if (e.dir) return 'folder';
  const top = mimeOf(e.name).split('/')[0];
  if (top === 'image') return 'image';
  if (top === 'audio') return 'music';
  if (top === 'video') return 'video';
  return 'file';
}

export function isDir(fs: FileSystem, path: string): boolean {
  return fs.stat(path)?.type === 'dir';
}

function entryOf(fs: FileSystem, path: string): DocEntry | null {
  const e = fs.stat(path);
  if (!e) return null;
  return { name: basename(path), path, dir: e.type === 'dir', size: e.type === 'dir' ? 0 : fs.size(path), mtime: e.mtime };
}

/** A folder's visible entries (hidden dot-files are not shown, as DocumentsUI's default). */
export function listEntries(fs: FileSystem, dir: string): DocEntry[] {
  if (!isDir(fs, dir)) return [];
  return fs.list(dir).filter((n) => !n.startsWith('.')).map((n) => entryOf(fs, `${dir}/${n}`)).filter((e) => e !== null);
}

const byName = (a: DocEntry, b: DocEntry) => a.name.localeCompare(b.name, 'en', { sensitivity: 'base', numeric: true });

/** Folders first (as DocumentsUI groups them), then by the chosen dimension; ties by name. */
export function sortEntries(entries: readonly DocEntry[], key: SortKey): DocEntry[] {
  const [dim, dir] = key.split('_') as ['name' | 'date' | 'size' | 'type', 'asc' | 'desc'];
  const sign = dir === 'asc' ? 1 : -1;
  const cmp = (a: DocEntry, b: DocEntry): number => {
    if (a.dir !== b.dir) return a.dir ? -1 : 1;
    let c = 0;
    if (dim === 'name') c = byName(a, b);
    else if (dim === 'date') c = a.mtime - b.mtime;
    else if (dim === 'size') c = a.size - b.size;
    else c = (a.dir ? '' : mimeOf(a.name)).localeCompare(b.dir ? '' : mimeOf(b.name));
    return c !== 0 ? sign * c : byName(a, b);
  };
  return [...entries].sort(cmp);
}

/** Every entry below a folder whose name contains the query (case-insensitive), for search. */
export function searchTree(fs: FileSystem, dir: string, query: string): DocEntry[] {
  const q = query.trim().toLowerCase();
  if (!q || !isDir(fs, dir)) return [];
  const prefix = `${dir}/`;
  const out: DocEntry[] = [];
  for (const key of fs.entries.keys()) {
    if (!key.startsWith(prefix)) continue;
    const rel = key.slice(prefix.length);
    if (rel.split('/').some((seg) => seg.startsWith('.'))) continue;
    if (!basename(key).toLowerCase().includes(q)) continue;
    const e = entryOf(fs, key);
    if (e) out.push(e);
  }
  return out;
}

/** Files modified most recently anywhere in shared storage (the "Recent" root). */
export function recentFiles(fs: FileSystem, limit = 40): DocEntry[] {
  return fs.walk(STORAGE_ROOT)
    .filter((p) => !p.slice(STORAGE_ROOT.length + 1).split('/').some((seg) => seg.startsWith('.') || seg === 'Android'))
    .map((p) => entryOf(fs, p))
    .filter((e): e is DocEntry => e !== null && !e.dir)
    .sort((a, b) => b.mtime - a.mtime || byName(a, b))
    .slice(0, limit);
}

/** Android's Formatter.formatFileSize: SI units, two decimals below 100. */
export function formatSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = bytes / 1000;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${v < 100 ? v.toFixed(2) : v.toFixed(0)} ${units[u]}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** DocumentsUI's date column: the time today, "Oct 12" this year, "Oct 12, 2022" before. */
export function formatDate(ms: number, now: number): string {
  const d = new Date(ms);
  const n = new Date(now);
  if (d.toISOString().slice(0, 10) === n.toISOString().slice(0, 10)) {
    const h = d.getUTCHours();
    return `${h % 12 === 0 ? 12 : h % 12}:${String(d.getUTCMinutes()).padStart(2, '0')} ${h < 12 ? 'AM' : 'PM'}`;
  }
  const md = `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
  return d.getUTCFullYear() === n.getUTCFullYear() ? md : `${md}, ${d.getUTCFullYear()}`;
}

/** "report (1).pdf" style name that does not exist in the folder yet, as the storage provider picks. */
export function uniqueName(fs: FileSystem, dir: string, name: string): string {
  if (!fs.exists(`${dir}/${name}`)) return name;
  const ext = extensionOf(name);
  const stem = ext && !isDir(fs, `${dir}/${name}`) ? name.slice(0, -(ext.length + 1)) : name;
  for (let i = 1; ; i++) {
    const candidate = ext && stem !== name ? `${stem} (${i}).${ext}` : `${stem} (${i})`;
    if (!fs.exists(`${dir}/${candidate}`)) return candidate;
  }
}

/** Copies a file or a folder tree; folder entries are copied too, so empty sub-folders survive. */
export function copyTree(fs: FileSystem, from: string, to: string): void {
  const e = fs.stat(from);
  if (!e) return;
  if (e.type !== 'dir') {
    fs.writeFile(to, fs.readFile(from));
    return;
  }
  fs.mkdirp(to);
  for (const n of fs.list(from)) copyTree(fs, `${from}/${n}`, `${to}/${n}`);
}

/** Why a name cannot be used for a new or renamed document, or null when it can. */
export function nameProblem(name: string): 'empty' | 'invalid' | null {
  if (!name.trim()) return 'empty';
  if (name.includes('/') || name === '.' || name === '..') return 'invalid';
  return null;
}

/**
 * Creates a folder the way the storage provider does: a taken name becomes "Name (1)". Returns the
 * new folder's path, or what is wrong with the name (the dialog shows it and stays open).
 */
export function createFolderIn(fs: FileSystem, dir: string, rawName: string): { path: string } | { problem: 'empty' | 'invalid' } {
  const name = rawName.trim();
  const problem = nameProblem(name);
  if (problem) return { problem };
  const path = `${dir}/${uniqueName(fs, dir, name)}`;
  fs.mkdir(path);
  return { path };
}

/** Whether `path` is `folder` or inside it (a folder cannot be moved into itself). */
export function isWithin(path: string, folder: string): boolean {
  return path === folder || path.startsWith(`${folder}/`);
}

/** Moves or copies documents into a folder, renaming on a name clash; returns how many were handled. */
export function transfer(fs: FileSystem, sources: readonly string[], destDir: string, op: 'move' | 'copy'): number {
  let n = 0;
  for (const src of sources) {
    if (!fs.exists(src) || isWithin(destDir, src)) continue;
    if (op === 'move' && dirname(src) === destDir) continue;
    const target = `${destDir}/${uniqueName(fs, destDir, basename(src))}`;
    if (op === 'move') fs.rename(src, target);
    else copyTree(fs, src, target);
    n++;
  }
  return n;
}
