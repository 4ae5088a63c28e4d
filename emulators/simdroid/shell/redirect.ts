import type { SimDroid } from '../simdroid.js';
import { normalizePath, type FsError } from '../system/fs.js';
import type { Redirect } from './parse.js';
import { expandString, type ExpandContext } from './expand.js';
import { SH, type Result } from './sh.js';

/** Redirect targets expanded (`> $f`, `> "$(…)"`). */
export function resolveTargets(redirects: Redirect[], ctx: ExpandContext): Redirect[] {
  return redirects.map((r) => (r.word?.deferred ? { ...r, target: expandString(r.word, ctx) } : r));
}

/** `<` replaces stdin; a missing file fails the command before it runs. */
export function inputOf(redirects: Redirect[], stdin: Buffer, dev: SimDroid): Buffer | Result {
  let input = stdin;
  for (const r of redirects) {
    if (r.op !== '<') continue;
    try {
      input = dev.fs.readFile(r.target);
    } catch {
      return { stdout: Buffer.alloc(0), stderr: Buffer.from(`${SH}: ${r.target}: No such file or directory\n`), code: 1 };
    }
  }
  return input;
}

/** Applies output redirections, in order, to what a command wrote. */
export function redirectOutput(redirects: Redirect[], r: Result, dev: SimDroid): Result {
  let { stdout, stderr, code } = r;
  for (const rd of redirects) {
    if (rd.op === '<') continue;
    if (rd.op === '>&1') {
      stdout = Buffer.concat([stdout, stderr]);
      stderr = Buffer.alloc(0);
      continue;
    }
    if (rd.op === '>&2') {
      stderr = Buffer.concat([stderr, stdout]);
      stdout = Buffer.alloc(0);
      continue;
    }
    const data = rd.fd === 2 ? stderr : stdout;
    if (rd.fd === 2) stderr = Buffer.alloc(0);
    else stdout = Buffer.alloc(0);
    const target = normalizePath(rd.target);
    if (target === '/dev/null') continue;
    if (target === '/dev/tty' || target === '/dev/stdout') {
      stdout = Buffer.concat([stdout, data]);
      continue;
    }
    try {
      if (rd.op === '>>') dev.fs.appendFile(target, data);
      else dev.fs.writeFile(target, data);
    } catch (e) {
      stderr = Buffer.concat([stderr, Buffer.from(`${SH}: can't create ${rd.target}: ${(e as FsError).message.split(': ').pop()}\n`)]);
      code = 1;
    }
  }
  return { stdout, stderr, code };
}
