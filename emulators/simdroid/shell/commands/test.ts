import type { Command } from '../run.js';
import { normalizePath } from '../../system/fs.js';

/**
 * `test` / `[` (mksh's builtin): file tests, string and integer comparisons, `!`, `-a`, `-o` and
 * parentheses. Exit 0 true, 1 false, 2 for a malformed expression (as mksh reports it).
 */
class TestSyntaxError extends Error {
  override name = 'TestSyntaxError';
}

const UNARY_FILE = new Set(['-e', '-f', '-d', '-s', '-r', '-w', '-x', '-L', '-h']);
const BINARY = new Set(['=', '==', '!=', '-eq', '-ne', '-lt', '-le', '-gt', '-ge', '<', '>']);

type Dev = Parameters<Command>[2];

function fileTest(op: string, path: string, dev: Dev): boolean {
  const e = dev.fs.stat(normalizePath(path));
  switch (op) {
    case '-e': case '-r': case '-w': return e !== undefined;
    case '-f': return e !== undefined && e.type !== 'dir';
    case '-d': return e?.type === 'dir';
    case '-s': return e !== undefined && (e.type === 'dir' || (e.type === 'file' ? e.data.length > 0 : true));
    case '-x': return e?.type === 'dir';
    default: return false; // -L / -h: SimDroid has no symbolic links
  }
}

function integer(s: string): number {
  if (!/^\s*[-+]?\d+\s*$/.test(s)) throw new TestSyntaxError(`${s}: bad number`);
  return Number(s);
}

function binary(a: string, op: string, b: string): boolean {
  switch (op) {
    case '=': case '==': return a === b;
    case '!=': return a !== b;
    case '<': return a < b;
    case '>': return a > b;
    case '-eq': return integer(a) === integer(b);
    case '-ne': return integer(a) !== integer(b);
    case '-lt': return integer(a) < integer(b);
    case '-le': return integer(a) <= integer(b);
    case '-gt': return integer(a) > integer(b);
    default: return integer(a) >= integer(b);
  }
}

/** Recursive descent over POSIX test's grammar: or → and → not → primary. */
function evaluate(args: string[], dev: Dev): boolean {
  let i = 0;
  const or = (): boolean => {
    let v = and();
    while (args[i] === '-o') {
      i++;
      v = and() || v;
    }
    return v;
  };
  const and = (): boolean => {
    let v = not();
    while (args[i] === '-a') {
      i++;
      v = not() && v;
    }
    return v;
  };
  const not = (): boolean => {
    if (args[i] === '!' && i + 1 < args.length) {
      i++;
      return !not();
    }
    return primary();
  };
  const primary = (): boolean => {
    const a = args[i];
    if (a === undefined) throw new TestSyntaxError('argument expected');
    if (a === '(' && args.length - i > 1) {
      i++;
      const v = or();
      if (args[i] !== ')') throw new TestSyntaxError("')' expected");
      i++;
      return v;
    }
    const next = args[i + 1];
    if (next !== undefined && BINARY.has(next) && args[i + 2] !== undefined) {
      i += 3;
      return binary(a, next, args[i - 1]!);
    }
    if (UNARY_FILE.has(a) && next !== undefined) {
      i += 2;
      return fileTest(a, next, dev);
    }
    if ((a === '-n' || a === '-z') && next !== undefined) {
      i += 2;
      return a === '-n' ? next !== '' : next === '';
    }
    i++;
    return a !== '';
  };
  if (args.length === 0) return false;
  const v = or();
  if (i < args.length) throw new TestSyntaxError(`${args[i]}: unexpected operator/operand`);
  return v;
}

export const test: Command = (argv, io, dev) => {
  let args = argv.slice(1);
  if (argv[0] === '[') {
    if (args[args.length - 1] !== ']') {
      io.err(`${argv[0]}: missing ]\n`);
      return 2;
    }
    args = args.slice(0, -1);
  }
  try {
    return evaluate(args, dev) ? 0 : 1;
  } catch (e) {
    if (!(e instanceof TestSyntaxError)) throw e;
    io.err(`${argv[0]}: ${e.message}\n`);
    return 2;
  }
};

/**
 * `chmod [-R] MODE FILE…`: the mode is checked and the files must exist, but SimDroid keeps no
 * permission bits (every file reads as the shell user's), so nothing else changes.
 */
export const chmod: Command = (argv, io, dev) => {
  const args = argv.slice(1).filter((a) => !/^-[Rfv]+$/.test(a));
  const [mode, ...files] = args;
  if (mode === undefined || files.length === 0) {
    io.err('chmod: Needs 2 arguments\n');
    return 1;
  }
  if (!/^[0-7]{1,4}$/.test(mode) && !/^([ugoa]*[-+=][rwxXst]*,?)+$/.test(mode)) {
    io.err(`chmod: bad mode '${mode}'\n`);
    return 1;
  }
  let code = 0;
  for (const f of files) {
    if (!dev.fs.exists(f)) {
      io.err(`chmod: ${f}: No such file or directory\n`);
      code = 1;
    }
  }
  return code;
};

/**
 * `restorecon [-RDFnv] PATH…`: SimDroid has no SELinux labels, so there is nothing to restore;
 * like Android's it accepts the flags and fails only on a path that does not exist.
 */
export const restorecon: Command = (argv, io, dev) => {
  const paths = argv.slice(1).filter((a) => !a.startsWith('-'));
  let code = 0;
  for (const p of paths) {
    if (!dev.fs.exists(p)) {
      io.err(`SELinux: Could not get canonical path for ${p} restorecon: No such file or directory.\n`);
      code = 255;
    }
  }
  return code;
};
