import { basename, dirname, EXTERNAL_STORAGE, type FileSystem } from '../../system/fs.js';
import type { ImageSource } from '../../view/spec.js';

/**
 * What Simple Gallery finds on shared storage: image files (by extension, as its MediaFetcher filters
 * them), grouped by the folder holding them, newest first. It reads the filesystem itself, so a file
 * pushed with `adb push` shows without a media-store scan (the real app also scans folders directly).
 */
export const IMAGE_EXTENSIONS: ReadonlySet<string> = new Set(['jpg', 'jpeg', 'png', 'gif', 'webp', 'bmp', 'heic', 'heif']);

export interface Medium {
  name: string;
  path: string;
  size: number;
  mtime: number;
}

export interface Directory {
  path: string;
  name: string;
  media: Medium[];
}

export function isImage(name: string): boolean {
  const i = name.lastIndexOf('.');
  return i > 0 && IMAGE_EXTENSIONS.has(name.slice(i + 1).toLowerCase());
}

/** Newest first, then by name: Simple Gallery's default order (date modified, descending). */
const byNewest = (a: Medium, b: Medium) => b.mtime - a.mtime || a.name.localeCompare(b.name);

function hidden(path: string): boolean {
  // Dot-folders and Android/ (apps' private data) are not shown, as the real app excludes them.
  return path.slice(EXTERNAL_STORAGE.length).split('/').some((s) => s.startsWith('.')) || path.startsWith(`${EXTERNAL_STORAGE}/Android`);
}

/** The images directly in a folder, newest first. */
export function mediaIn(fs: FileSystem, dir: string): Medium[] {
  if (!fs.exists(dir) || fs.stat(dir)?.type !== 'dir') return [];
  const out: Medium[] = [];
  for (const name of fs.list(dir)) {
    const path = `${dir}/${name}`;
    const st = fs.stat(path);
    if (st?.type === 'file' && isImage(name)) out.push({ name, path, size: st.data.length, mtime: st.mtime });
  }
  return out.sort(byNewest);
}

/** Every folder of shared storage holding images, the one with the newest image first. */
export function directories(fs: FileSystem): Directory[] {
  const dirs = new Map<string, Medium[]>();
  if (!fs.exists(EXTERNAL_STORAGE)) return [];
  for (const path of fs.walk(EXTERNAL_STORAGE)) {
    const st = fs.stat(path);
    if (st?.type !== 'file' || !isImage(basename(path)) || hidden(path)) continue;
    const dir = dirname(path);
    if (!dirs.has(dir)) dirs.set(dir, []);
    dirs.get(dir)!.push({ name: basename(path), path, size: st.data.length, mtime: st.mtime });
  }
  return [...dirs.entries()]
    .map(([path, media]) => ({ path, name: path === EXTERNAL_STORAGE ? 'Internal' : basename(path), media: media.sort(byNewest) }))
    .sort((a, b) => byNewest(a.media[0]!, b.media[0]!));
}

/** A file's picture for an ImageView (its bytes read when the frame is drawn). */
export function pictureOf(fs: FileSystem, path: string, fit: ImageSource['fit'] = 'contain'): ImageSource {
  return {
    key: path,
    fit,
    read: () => {
      const st = fs.stat(path);
      return st?.type === 'file' ? st.data : null;
    },
  };
}

/** "1.2 MB", as the properties dialog shows sizes. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} kB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
