import type { FileSystem } from '../system/fs.js';
import { normalizePath } from '../system/fs.js';
import type { Word } from './tokenize.js';

/**
 * Pathname expansion as mksh does it: each unquoted `*`, `?` or `[…]` matches within one path
 * segment, a leading `.` only when the pattern says so, matches come sorted, and a pattern that
 * matches nothing stays as written. Paths keep the spelling of the pattern (`/sdcard/x/*` gives
 * `/sdcard/x/a`), and relative patterns start at `/`, adb shell's working directory.
 */
export function expandWord(word: Word, fs: FileSystem): string[] {
  if (word.glob === null) return [word.value];
  const segments = word.glob.split('/');
  const absolute = word.glob.startsWith('/');
  let paths: string[] = [absolute ? '/' : ''];
  for (const [idx, seg] of segments.entries()) {
    if (seg === '' && idx < segments.length - 1) continue;
    const join = (base: string, name: string) => (base === '' || base.endsWith('/') ? base + name : `${base}/${name}`);
    if (!hasMeta(seg)) {
      paths = paths.map((p) => join(p, unescape(seg)));
      continue;
    }
    const re = segmentRegExp(seg);
    const next: string[] = [];
    for (const p of paths) {
      const dir = normalizePath(p === '' ? '/' : p);
      if (fs.stat(dir)?.type !== 'dir') continue;
      for (const name of fs.list(dir)) {
        if (name.startsWith('.') && !seg.startsWith('.') && !seg.startsWith('\\.')) continue;
        if (re.test(name)) next.push(join(p, name));
      }
    }
    paths = next;
  }
  const found = paths.filter((p) => fs.exists(p === '' ? '/' : p)).sort();
  return found.length ? found : [word.value];
}

function hasMeta(seg: string): boolean {
  for (let i = 0; i < seg.length; i++) {
    if (seg[i] === '\\') i++;
    else if ('*?['.includes(seg[i]!)) return true;
  }
  return false;
}

function unescape(seg: string): string {
  return seg.replace(/\\(.)/g, '$1');
}

/** A glob pattern (`*`, `?`, `[…]`, `\\` escapes) as an anchored RegExp; `*` crosses `/` (the caller splits paths). */
export function segmentRegExp(seg: string): RegExp {
  let re = '';
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === '\\') re += escapeRe(seg[++i] ?? '');
    else if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = seg.indexOf(']', i + 2);
      if (end < 0) re += '\\[';
      else {
        let body = seg.slice(i + 1, end);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        re += `[${body.replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else re += escapeRe(c);
  }
  return new RegExp(`^${re}$`, 's');
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
