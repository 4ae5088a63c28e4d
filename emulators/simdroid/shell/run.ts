import type { SimDroid } from '../simdroid.js';
import { FsError, normalizePath } from '../system/fs.js';
import { parseShell, ShellSyntaxError, type SimpleCommand } from './tokenize.js';
import { COMMANDS } from './commands/index.js';

export interface ShellOutput {
  stdout: Buffer;
  stderr: Buffer;
  exitCode: number;
}

export interface CommandIo {
  readonly stdin: Buffer;
  out(data: string | Buffer): void;
  err(data: string): void;
}

/** A shell command: returns its exit code. Throwing an FsError prints it as toybox would. */
export type Command = (argv: string[], io: CommandIo, dev: SimDroid) => number;

export const SH = '/system/bin/sh';

class Sink {
  parts: Buffer[] = [];
  write(d: string | Buffer) {
    this.parts.push(typeof d === 'string' ? Buffer.from(d, 'utf8') : d);
  }
  take(): Buffer {
    return Buffer.concat(this.parts);
  }
}

function runSimple(cmd: SimpleCommand, stdin: Buffer, dev: SimDroid): { stdout: Buffer; stderr: Buffer; code: number } {
  const out = new Sink();
  const err = new Sink();
  let input = stdin;
  for (const r of cmd.redirects) {
    if (r.op === '<') {
      try {
        input = dev.fs.readFile(r.target);
      } catch {
        err.write(`${SH}: ${r.target}: No such file or directory\n`);
        return { stdout: Buffer.alloc(0), stderr: err.take(), code: 1 };
      }
    }
  }
  const name = cmd.argv[0];
  let code = 0;
  if (name !== undefined) {
    const impl = COMMANDS[name.replace(/^\/system\/bin\//, '')];
    if (!impl) {
      err.write(`${SH}: ${name}: inaccessible or not found\n`);
      code = 127;
    } else {
      try {
        code = impl(cmd.argv, { stdin: input, out: (d) => out.write(d), err: (d) => err.write(d) }, dev);
      } catch (e) {
        if (e instanceof FsError) {
          err.write(`${name}: ${e.message}\n`);
          code = 1;
        } else {
          // A bug in a command must not take the device down: report it like a crashed binary.
          err.write(`${name}: ${(e as Error).message}\n`);
          code = 255;
        }
      }
    }
  }
  let stdout = out.take();
  let stderr = err.take();
  for (const r of cmd.redirects) {
    if (r.op === '>&1') {
      stdout = Buffer.concat([stdout, stderr]);
      stderr = Buffer.alloc(0);
      continue;
    }
    if (r.op === '<') continue;
    const data = r.fd === 2 ? stderr : stdout;
    if (r.fd === 2) stderr = Buffer.alloc(0);
    else stdout = Buffer.alloc(0);
    const target = normalizePath(r.target);
    if (target === '/dev/null') continue;
    if (target === '/dev/tty' || target === '/dev/stdout') {
      stdout = Buffer.concat([stdout, data]);
      continue;
    }
    try {
      if (r.op === '>>') dev.fs.appendFile(target, data);
      else dev.fs.writeFile(target, data);
    } catch (e) {
      stderr = Buffer.concat([stderr, Buffer.from(`${SH}: can't create ${r.target}: ${(e as FsError).message.split(': ').pop()}\n`)]);
      code = 1;
    }
  }
  return { stdout, stderr, code };
}

/** Runs a command line on the device as `adb shell` would. */
export function runShell(dev: SimDroid, line: string, stdin: Buffer = Buffer.alloc(0)): ShellOutput {
  let list;
  try {
    list = parseShell(line);
  } catch (e) {
    if (e instanceof ShellSyntaxError) return { stdout: Buffer.alloc(0), stderr: Buffer.from(`${SH}: ${e.message}\n`), exitCode: 1 };
    throw e;
  }
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  let code = 0;
  let skip = false;
  for (const item of list.items) {
    if (!skip) {
      let pipeIn = stdin;
      for (const [i, c] of item.pipeline.commands.entries()) {
        const r = runSimple(c, pipeIn, dev);
        stderr.push(r.stderr);
        if (i === item.pipeline.commands.length - 1) stdout.push(r.stdout);
        pipeIn = r.stdout;
        code = r.code;
      }
    }
    skip = (item.next === '&&' && code !== 0) || (item.next === '||' && code === 0);
    if (item.next === ';' || item.next === null) skip = false;
  }
  return { stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr), exitCode: code };
}
