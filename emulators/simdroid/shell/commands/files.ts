import type { Command } from '../run.js';
import { basename, FsError, normalizePath } from '../../system/fs.js';

/** Splits `-abc` style flags from operands (stops at `--`). */
export function flags(argv: string[], known: string): { set: Set<string>; rest: string[] } {
  const set = new Set<string>();
  const rest: string[] = [];
  let done = false;
  for (const a of argv.slice(1)) {
    if (!done && a === '--') {
      done = true;
      continue;
    }
    if (!done && a.startsWith('-') && a.length > 1 && [...a.slice(1)].every((c) => known.includes(c))) {
      for (const c of a.slice(1)) set.add(c);
      continue;
    }
    rest.push(a);
  }
  return { set, rest };
}

export const cat: Command = (argv, io, dev) => {
  const files = argv.slice(1);
  if (files.length === 0) {
    io.out(io.stdin);
    return 0;
  }
  let code = 0;
  for (const f of files) {
    const e = dev.fs.stat(f);
    if (!e) {
      io.err(`cat: ${f}: No such file or directory\n`);
      code = 1;
    } else if (e.type === 'dir') {
      io.err(`cat: ${f}: Is a directory\n`);
      code = 1;
    } else if (e.type === 'sqlite') {
      io.out(dev.dbs.serialize(normalizePath(f)));
    } else {
      io.out(e.data);
    }
  }
  return code;
};

export const rm: Command = (argv, io, dev) => {
  const { set, rest } = flags(argv, 'rRfvd');
  const recursive = set.has('r') || set.has('R');
  let code = 0;
  if (rest.length === 0 && !set.has('f')) {
    io.err('rm: Need 1 argument\n');
    return 1;
  }
  for (const p of rest) {
    const path = normalizePath(p);
    const e = dev.fs.stat(path);
    if (!e) {
      if (!set.has('f')) {
        io.err(`rm: ${p}: No such file or directory\n`);
        code = 1;
      }
      continue;
    }
    if (e.type === 'dir' && !recursive) {
      io.err(`rm: ${p}: Is a directory\n`);
      code = 1;
      continue;
    }
    for (const db of dev.dbs.paths()) if (db === path || db.startsWith(`${path}/`)) dev.dbs.remove(db);
    if (dev.fs.exists(path)) dev.fs.remove(path, recursive);
  }
  return code;
};

export const mkdir: Command = (argv, io, dev) => {
  const { set, rest } = flags(argv, 'pm');
  let code = 0;
  for (const p of rest) {
    try {
      if (set.has('p')) dev.fs.mkdirp(p);
      else dev.fs.mkdir(p);
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      io.err(`mkdir: '${p}': ${e.message.split(': ').pop()}\n`);
      code = 1;
    }
  }
  return code;
};

/**
 * toybox touch's time options (device local time is UTC): `-d "YYYY-MM-DD[ T]hh:mm[:ss]"` or
 * `-d @SECONDS`, and `-t [[CC]YY]MMDDhhmm[.ss]`. Null when the value does not parse.
 */
function touchTime(opt: '-d' | '-t', v: string, now: number): number | null {
  if (opt === '-d') {
    if (/^@\d+$/.test(v)) return Number(v.slice(1)) * 1000;
    const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(v);
    return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0)) : null;
  }
  const m = /^(\d{2}|\d{4})?(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d{2}))?$/.exec(v);
  if (!m) return null;
  const year = m[1] === undefined ? new Date(now).getUTCFullYear() : m[1].length === 2 ? 2000 + +m[1] : +m[1];
  return Date.UTC(year, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +(m[6] ?? 0));
}

export const touch: Command = (argv, io, dev) => {
  let code = 0;
  // Take -d/-t and their values out first; the remaining flags are the ones touch ignores.
  let mtime: number | undefined;
  const plain: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (i > 0 && (a === '-d' || a === '-t')) {
      const v = argv[++i] ?? '';
      const t = touchTime(a, v, dev.clock.now());
      if (t === null) {
        io.err(`touch: bad date '${v}'\n`);
        return 1;
      }
      mtime = t;
    } else plain.push(a);
  }
  for (const p of flags(plain, 'acm').rest) {
    try {
      if (mtime !== undefined) {
        const e = dev.fs.stat(p);
        if (e) dev.fs.entries.set(normalizePath(p), { ...e, mtime });
        else dev.fs.writeFile(p, '', { mtime });
        continue;
      }
      dev.fs.touch(p);
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      io.err(`touch: '${p}': ${e.message.split(': ').pop()}\n`);
      code = 1;
    }
  }
  return code;
};

export const mv: Command = (argv, io, dev) => {
  const { rest } = flags(argv, 'fin');
  if (rest.length < 2) {
    io.err('mv: Needs 2 arguments\n');
    return 1;
  }
  const dest = rest[rest.length - 1]!;
  for (const src of rest.slice(0, -1)) dev.fs.rename(src, dest);
  return 0;
};

/**
 * `cp [-rRaPpf] SRC… DEST`: `-a` copies recursively as `-r` does (SimDroid keeps no owners or
 * modes to preserve). A source spelled `dir/.` copies the directory's contents into DEST.
 * Databases are copied as SQLite files, so the copy is a database too.
 */
export const cp: Command = (argv, io, dev) => {
  const { set, rest } = flags(argv, 'rRfpadPLHnuvF');
  if (rest.length < 2) {
    io.err('cp: Needs 2 arguments\n');
    return 1;
  }
  const dest = normalizePath(rest[rest.length - 1]!);
  const recursive = set.has('r') || set.has('R') || set.has('a');
  const copyOne = (from: string, to: string) => {
    const e = dev.fs.stat(from)!;
    if (e.type === 'sqlite') dev.dbs.load(to, dev.dbs.serialize(from));
    else dev.fs.writeFile(to, dev.fs.readFile(from), { parents: true });
  };
  for (const src of rest.slice(0, -1)) {
    const from = normalizePath(src);
    const e = dev.fs.stat(from);
    if (!e) throw new FsError(src, 'ENOENT');
    const contentsOnly = /(^|\/)\.\/?$/.test(src);
    const target = dev.fs.stat(dest)?.type === 'dir' && !contentsOnly ? `${dest}/${basename(from)}` : dest;
    if (e.type === 'dir') {
      if (!recursive) {
        io.err(`cp: Skipped dir '${src}'\n`);
        return 1;
      }
      dev.fs.mkdirp(target);
      const prefix = from === '/' ? '' : from;
      for (const [k, v] of [...dev.fs.entries]) {
        if (!k.startsWith(`${prefix}/`)) continue;
        const to = target + k.slice(prefix.length);
        if (v.type === 'dir') dev.fs.mkdirp(to);
        else copyOne(k, to);
      }
    } else {
      copyOne(from, target);
    }
  }
  return 0;
};

export const echo: Command = (argv, io) => {
  let args = argv.slice(1);
  let newline = true;
  let escapes = false;
  while (args[0] === '-n' || args[0] === '-e' || args[0] === '-ne' || args[0] === '-en') {
    if (args[0]!.includes('n')) newline = false;
    if (args[0]!.includes('e')) escapes = true;
    args = args.slice(1);
  }
  let text = args.join(' ');
  if (escapes) text = text.replace(/\\n/g, '\n').replace(/\\t/g, '\t').replace(/\\\\/g, '\\');
  io.out(text + (newline ? '\n' : ''));
  return 0;
};

function inputLines(argv: string[], io: { stdin: Buffer }, dev: Parameters<Command>[2], start: number): string[] {
  const files = argv.slice(start);
  const text = files.length ? files.map((f) => dev.fs.readText(f)).join('') : io.stdin.toString('utf8');
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export const grep: Command = (argv, io, dev) => {
  const { set, rest } = flags(argv, 'ivcFqE');
  const pattern = rest[0];
  if (pattern === undefined) {
    io.err('grep: no pattern\n');
    return 2;
  }
  const re = set.has('F')
    ? null
    : new RegExp(pattern, set.has('i') ? 'i' : '');
  const test = (l: string) => (re ? re.test(l) : set.has('i') ? l.toLowerCase().includes(pattern.toLowerCase()) : l.includes(pattern));
  const hits = inputLines(['grep', ...rest], io, dev, 2).filter((l) => test(l) !== set.has('v'));
  if (set.has('c')) io.out(`${hits.length}\n`);
  else if (!set.has('q')) for (const h of hits) io.out(`${h}\n`);
  return hits.length ? 0 : 1;
};

function countArg(argv: string[]): { n: number; rest: string[] } {
  const rest: string[] = [];
  let n = 10;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-n') n = Number(argv[++i]);
    else if (/^-\d+$/.test(a)) n = Number(a.slice(1));
    else rest.push(a);
  }
  return { n, rest };
}

export const head: Command = (argv, io, dev) => {
  const { n, rest } = countArg(argv);
  for (const l of inputLines(['head', ...rest], io, dev, 1).slice(0, n)) io.out(`${l}\n`);
  return 0;
};

export const tail: Command = (argv, io, dev) => {
  const { n, rest } = countArg(argv);
  const lines = inputLines(['tail', ...rest], io, dev, 1);
  for (const l of lines.slice(Math.max(0, lines.length - n))) io.out(`${l}\n`);
  return 0;
};

export const wc: Command = (argv, io, dev) => {
  const { set, rest } = flags(argv, 'lwc');
  const text = rest.length ? rest.map((f) => dev.fs.readText(f)).join('') : io.stdin.toString('utf8');
  const lines = (text.match(/\n/g) ?? []).length;
  const words = text.split(/\s+/).filter(Boolean).length;
  const bytes = Buffer.byteLength(text);
  if (set.has('l')) io.out(`${lines}\n`);
  else if (set.has('w')) io.out(`${words}\n`);
  else if (set.has('c')) io.out(`${bytes}\n`);
  else io.out(`${lines} ${words} ${bytes}\n`);
  return 0;
};

export const stat: Command = (argv, io, dev) => {
  const fmtIdx = argv.indexOf('-c');
  const fmt = fmtIdx > 0 ? argv[fmtIdx + 1]! : null;
  const paths = argv.slice(1).filter((a, i, arr) => !a.startsWith('-') && arr[i - 1] !== '-c');
  let code = 0;
  for (const p of paths) {
    const e = dev.fs.stat(p);
    if (!e) {
      io.err(`stat: '${p}': No such file or directory\n`);
      code = 1;
      continue;
    }
    const size = e.type === 'file' ? e.data.length : e.type === 'sqlite' ? dev.dbs.serialize(normalizePath(p)).length : 4096;
    if (fmt) {
      io.out(`${fmt.replace(/%s/g, String(size)).replace(/%n/g, p).replace(/%Y/g, String(Math.floor(e.mtime / 1000))).replace(/%F/g, e.type === 'dir' ? 'directory' : 'regular file')}\n`);
    } else {
      io.out(`  File: ${p}\n  Size: ${size}\t${e.type === 'dir' ? 'directory' : 'regular file'}\nModify: ${new Date(e.mtime).toISOString()}\n`);
    }
  }
  return code;
};
