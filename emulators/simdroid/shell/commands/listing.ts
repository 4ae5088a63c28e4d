import type { Command } from '../run.js';
import { basename, normalizePath, type FsEntry } from '../../system/fs.js';
import { flags } from './files.js';

type Dev = Parameters<Command>[2];

/** Bytes a path holds (a database's are its serialised file). */
function sizeOf(dev: Dev, full: string, e: FsEntry): number {
  return e.type === 'sqlite' ? dev.dbs.serialize(full).length : e.type === 'file' ? e.data.length : 4096;
}

/**
 * toybox's long listing: mode, links, owner, group, size, then the time in long-iso (`-l`:
 * `2023-10-15 15:34`) or with seconds, nanoseconds and the zone (`-ll`/`--full-time`:
 * `2023-10-15 15:34:00.000000000 +0000`), then the name; numeric columns right-aligned to the
 * widest. SimDroid keeps one time per file, so `-u` (access time) and `-c` show it too.
 */
function longLines(dev: Dev, rows: Array<{ e: FsEntry; full: string; name: string }>, full: boolean): string[] {
  const cells = rows.map(({ e, full: p, name }) => ({
    mode: e.type === 'dir' ? 'drwxrws---' : '-rw-rw----',
    links: String(e.type === 'dir' ? 2 : 1),
    owner: 'u0_a100',
    group: 'media_rw',
    size: String(sizeOf(dev, p, e)),
    time: dev.clock.formatLocal(e.mtime, full ? '%F %H:%M:%S.%N %z' : '%F %H:%M'),
    name,
  }));
  const w = (k: 'links' | 'owner' | 'group' | 'size') => Math.max(0, ...cells.map((c) => c[k].length));
  const [wl, wo, wg, ws] = [w('links'), w('owner'), w('group'), w('size')];
  return cells.map((c) => `${c.mode} ${c.links.padStart(wl)} ${c.owner.padEnd(wo)} ${c.group.padEnd(wg)} ${c.size.padStart(ws)} ${c.time} ${c.name}`);
}

/** `ls [-1aAdlRtuc] [--full-time] PATH…`, options anywhere (toybox permutes them), `-ll` for full times. */
export const ls: Command = (argv, io, dev) => {
  const fullTime = argv.includes('--full-time');
  const args = argv.filter((a) => a !== '--full-time' && a !== '--color=never' && a !== '--color');
  const { set, rest } = flags(args, 'laR1hAdtucCnsSrZ');
  // toybox counts -l: given twice, times carry seconds, nanoseconds and the zone.
  const lCount = args.slice(1).reduce((n, a) => n + (/^-[a-zA-Z1]+$/.test(a) ? [...a].filter((c) => c === 'l').length : 0), 0);
  const long = set.has('l') || set.has('n') || fullTime;
  const full = fullTime || lCount > 1;
  const paths = rest.length ? rest : ['/'];
  let code = 0;
  const dotted = set.has('a');
  const hidden = dotted || set.has('A');
  const operandsOut: string[] = [];
  const dirs: string[] = [];
  for (const p of paths) {
    const e = dev.fs.stat(p);
    if (!e) {
      io.err(`ls: ${p}: No such file or directory\n`);
      code = 1;
    } else if (e.type !== 'dir' || set.has('d')) operandsOut.push(p);
    else dirs.push(p);
  }
  const emit = (rows: Array<{ e: FsEntry; full: string; name: string }>) => {
    if (set.has('t')) rows.sort((a, b) => b.e.mtime - a.e.mtime);
    if (set.has('r')) rows.reverse();
    if (long) for (const l of longLines(dev, rows, full)) io.out(`${l}\n`);
    else for (const r of rows) io.out(`${r.name}\n`);
  };
  emit(operandsOut.map((p) => ({ e: dev.fs.stat(p)!, full: normalizePath(p), name: p })));
  dirs.forEach((p, idx) => {
    const path = normalizePath(p);
    if (paths.length > 1) io.out(`${idx || operandsOut.length ? '\n' : ''}${p}:\n`);
    let names = dev.fs.list(path);
    if (!hidden) names = names.filter((n) => !n.startsWith('.'));
    const rows = names.map((n) => {
      const full = path === '/' ? `/${n}` : `${path}/${n}`;
      return { e: dev.fs.stat(full)!, full, name: n };
    });
    if (dotted) {
      const parent = normalizePath(`${path}/..`);
      rows.unshift({ e: dev.fs.stat(path)!, full: path, name: '.' }, { e: dev.fs.stat(parent)!, full: parent, name: '..' });
    }
    if (long) io.out(`total ${rows.length * 8}\n`);
    emit(rows);
  });
  return code;
};

// ------------------------------------------------------------------ find

type FindExpr =
  | { op: 'name'; re: RegExp }
  | { op: 'type'; type: 'f' | 'd' }
  | { op: 'true' | 'false' | 'print' | 'delete' }
  | { op: 'not'; e: FindExpr }
  | { op: 'and' | 'or'; a: FindExpr; b: FindExpr };

class FindUsageError extends Error {
  override name = 'FindUsageError';
}

function globRe(pattern: string, ci: boolean): RegExp {
  const body = pattern.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, ci ? 'is' : 's');
}

/** Parses find's expression: `-o` binds looser than the implicit `-a`; `!`/`-not` and `( )` as POSIX. */
function parseFind(args: string[], opts: { minDepth: number; maxDepth: number; depthFirst: boolean; hasAction: boolean }): FindExpr {
  let i = 0;
  const need = (flag: string) => {
    const v = args[++i];
    if (v === undefined) throw new FindUsageError(`'${flag}' needs 1 arg`);
    i++;
    return v;
  };
  const primary = (): FindExpr => {
    const a = args[i]!;
    switch (a) {
      case '(': {
        i++;
        const e = or();
        if (args[i] !== ')') throw new FindUsageError("missing ')'");
        i++;
        return e;
      }
      case '!': case '-not': i++; return { op: 'not', e: primary() };
      case '-name': case '-iname': return { op: 'name', re: globRe(need(a), a === '-iname') };
      case '-type': {
        const t = need(a);
        if (t !== 'f' && t !== 'd') {
          if (!/^[bcplsD]$/.test(t)) throw new FindUsageError(`bad -type '${t}'`);
          return { op: 'false' }; // SimDroid has only files and directories
        }
        return { op: 'type', type: t };
      }
      case '-mindepth': case '-maxdepth': {
        const v = need(a);
        if (!/^\d+$/.test(v)) throw new FindUsageError(`bad ${a} '${v}'`);
        if (a === '-mindepth') opts.minDepth = Number(v);
        else opts.maxDepth = Number(v);
        return { op: 'true' };
      }
      case '-depth': i++; opts.depthFirst = true; return { op: 'true' };
      case '-print': i++; opts.hasAction = true; return { op: 'print' };
      case '-delete': i++; opts.hasAction = true; opts.depthFirst = true; return { op: 'delete' };
      default: throw new FindUsageError(`bad arg '${a}'`);
    }
  };
  const and = (): FindExpr => {
    let e = primary();
    while (i < args.length && args[i] !== '-o' && args[i] !== '-or' && args[i] !== ')') {
      if (args[i] === '-a' || args[i] === '-and') i++;
      e = { op: 'and', a: e, b: primary() };
    }
    return e;
  };
  const or = (): FindExpr => {
    let e = and();
    while (args[i] === '-o' || args[i] === '-or') {
      i++;
      e = { op: 'or', a: e, b: and() };
    }
    return e;
  };
  if (args.length === 0) return { op: 'true' };
  const e = or();
  if (i < args.length) throw new FindUsageError(`bad arg '${args[i]}'`);
  return e;
}

/** `find [PATH…] [EXPR]`: paths printed as spelled from the operand, each directory before its contents (after, with -depth/-delete). */
export const find: Command = (argv, io, dev) => {
  const args = argv.slice(1);
  const firstExpr = args.findIndex((a) => a.startsWith('-') || a === '!' || a === '(');
  const roots = firstExpr < 0 ? args : args.slice(0, firstExpr);
  const opts = { minDepth: 0, maxDepth: Infinity, depthFirst: false, hasAction: false };
  let expr: FindExpr;
  try {
    expr = parseFind(firstExpr < 0 ? [] : args.slice(firstExpr), opts);
  } catch (e) {
    if (!(e instanceof FindUsageError)) throw e;
    io.err(`find: ${e.message}\n`);
    return 1;
  }
  if (!opts.hasAction) expr = { op: 'and', a: expr, b: { op: 'print' } };
  let code = 0;
  const evalAt = (x: FindExpr, shown: string, real: string, e: FsEntry): boolean => {
    switch (x.op) {
      case 'name': return x.re.test(basename(real === '/' ? '/' : shown.replace(/\/+$/, '')) || '/');
      case 'type': return x.type === 'd' ? e.type === 'dir' : e.type !== 'dir';
      case 'true': return true;
      case 'false': return false;
      case 'print': io.out(`${shown}\n`); return true;
      case 'delete': {
        if (e.type === 'dir' && dev.fs.list(real).length > 0) {
          io.err(`find: ${shown}: Directory not empty\n`);
          code = 1;
          return false;
        }
        if (e.type === 'sqlite') dev.dbs.remove(real);
        else dev.fs.remove(real);
        return true;
      }
      case 'not': return !evalAt(x.e, shown, real, e);
      case 'and': return evalAt(x.a, shown, real, e) && evalAt(x.b, shown, real, e);
      case 'or': return evalAt(x.a, shown, real, e) || evalAt(x.b, shown, real, e);
    }
  };
  const visit = (shown: string, real: string, depth: number) => {
    const e = dev.fs.stat(real)!;
    const here = depth >= opts.minDepth && depth <= opts.maxDepth;
    if (here && !opts.depthFirst) evalAt(expr, shown, real, e);
    if (e.type === 'dir' && depth < opts.maxDepth) {
      for (const n of dev.fs.list(real)) {
        visit(`${shown.endsWith('/') ? shown : `${shown}/`}${n}`, real === '/' ? `/${n}` : `${real}/${n}`, depth + 1);
      }
    }
    if (here && opts.depthFirst && dev.fs.exists(real)) evalAt(expr, shown, real, dev.fs.stat(real)!);
  };
  for (const root of roots.length ? roots : ['.']) {
    const real = normalizePath(root);
    if (!dev.fs.exists(real)) {
      io.err(`find: ${root}: No such file or directory\n`);
      code = 1;
      continue;
    }
    visit(root, real, 0);
  }
  return code;
};
