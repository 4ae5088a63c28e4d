import type { SimDroid } from '../simdroid.js';
import { FsError, normalizePath } from '../system/fs.js';
import { parseShell, ShellSyntaxError, type CommandList, type Pipeline, type Redirect, type ShellCommand, type SimpleCommand } from './parse.js';
import { expandWord } from './glob.js';
import { COMMANDS } from './commands/index.js';

/**
 * A command that keeps writing after the line's output (`logcat` without -d): started with the
 * session's output, it writes until the returned function stops it (the host closed the stream).
 */
export type Follower = (write: (data: Buffer) => void) => () => void;

export interface ShellOutput {
  stdout: Buffer;
  stderr: Buffer;
  exitCode: number;
  /** Set when the line's last command follows (only when the caller allowed it). */
  follow?: Follower;
}

export interface CommandIo {
  readonly stdin: Buffer;
  out(data: string | Buffer): void;
  err(data: string): void;
  /**
   * Present only for the last command of a line run in a session that can stay open (adbd's
   * shell service): the command hands over what it will write later. Elsewhere (pipelines, an
   * interactive shell's lines, the in-process API) a following command prints what it has and ends.
   */
  follow?: (f: Follower) => void;
}

/** Per-line state: which command may follow, and the follower it registered. */
interface RunContext {
  followable: SimpleCommand | null;
  follower: Follower | null;
}

/** A shell command: returns its exit code. Throwing an FsError prints it as toybox would. */
export type Command = (argv: string[], io: CommandIo, dev: SimDroid) => number;

export const SH = '/system/bin/sh';

interface Result {
  stdout: Buffer;
  stderr: Buffer;
  code: number;
}

class Sink {
  parts: Buffer[] = [];
  write(d: string | Buffer) {
    this.parts.push(typeof d === 'string' ? Buffer.from(d, 'utf8') : d);
  }
  take(): Buffer {
    return Buffer.concat(this.parts);
  }
}

function runSimple(cmd: SimpleCommand, stdin: Buffer, dev: SimDroid, ctx: RunContext): Result {
  const out = new Sink();
  const err = new Sink();
  const argv = cmd.words.flatMap((w) => expandWord(w, dev.fs));
  // `exec cmd …` runs cmd in the shell's place; for a one-line session that is the same command.
  while (argv[0] === 'exec') argv.shift();
  const name = argv[0];
  let code = 0;
  if (name !== undefined) {
    const impl = COMMANDS[name.replace(/^\/system\/bin\//, '')];
    if (!impl) {
      err.write(`${SH}: ${name}: inaccessible or not found\n`);
      code = 127;
    } else {
      try {
        const follow = cmd === ctx.followable ? (f: Follower) => void (ctx.follower = f) : undefined;
        code = impl(argv, { stdin, out: (d) => out.write(d), err: (d) => err.write(d), follow }, dev);
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
  return { stdout: out.take(), stderr: err.take(), code };
}

/** `<` replaces stdin; a missing file fails the command before it runs. */
function inputOf(redirects: Redirect[], stdin: Buffer, dev: SimDroid): Buffer | Result {
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
function redirectOutput(redirects: Redirect[], r: Result, dev: SimDroid): Result {
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

function runCommand(cmd: ShellCommand, stdin: Buffer, dev: SimDroid, ctx: RunContext): Result {
  const input = inputOf(cmd.redirects, stdin, dev);
  if (!Buffer.isBuffer(input)) return input;
  let r: Result;
  switch (cmd.kind) {
    case 'simple':
      r = runSimple(cmd, input, dev, ctx);
      break;
    case 'group':
      r = runList(cmd.body, input, dev, ctx);
      break;
    case 'if': {
      // mksh: the status of the branch taken, or 0 when no condition held and there is no else.
      r = { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), code: 0 };
      const parts: Result[] = [];
      let taken: Result | null = null;
      for (const clause of cmd.clauses) {
        const c = runList(clause.cond, input, dev, ctx);
        parts.push(c);
        if (c.code === 0) {
          taken = runList(clause.body, input, dev, ctx);
          break;
        }
      }
      if (!taken && cmd.otherwise) taken = runList(cmd.otherwise, input, dev, ctx);
      if (taken) parts.push(taken);
      r = join(parts, taken ? taken.code : 0);
      break;
    }
  }
  return redirectOutput(cmd.redirects, r, dev);
}

function join(parts: Result[], code: number): Result {
  return { stdout: Buffer.concat(parts.map((p) => p.stdout)), stderr: Buffer.concat(parts.map((p) => p.stderr)), code };
}

function runPipeline(p: Pipeline, stdin: Buffer, dev: SimDroid, ctx: RunContext): Result {
  const stderr: Buffer[] = [];
  let pipeIn = stdin;
  let last: Result = { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), code: 0 };
  for (const c of p.commands) {
    last = runCommand(c, pipeIn, dev, ctx);
    stderr.push(last.stderr);
    pipeIn = last.stdout;
  }
  const code = p.negate ? (last.code === 0 ? 1 : 0) : last.code;
  return { stdout: last.stdout, stderr: Buffer.concat(stderr), code };
}

function runList(list: CommandList, stdin: Buffer, dev: SimDroid, ctx: RunContext): Result {
  const parts: Result[] = [];
  let code = 0;
  let skip = false;
  for (const item of list.items) {
    if (!skip) {
      const r = runPipeline(item.pipeline, stdin, dev, ctx);
      parts.push(r);
      code = r.code;
    }
    // `a && b || c`: a skipped command keeps the last status, and the next operator decides again.
    skip = (item.next === '&&' && code !== 0) || (item.next === '||' && code === 0);
  }
  return join(parts, code);
}

/** The line's last command, when it alone can keep the session open: a lone simple command, output not redirected. */
function lastSimpleCommand(list: CommandList): SimpleCommand | null {
  const last = list.items[list.items.length - 1];
  const cmd = last && last.next === null && last.pipeline.commands.length === 1 && !last.pipeline.negate ? last.pipeline.commands[0]! : null;
  return cmd?.kind === 'simple' && cmd.redirects.length === 0 ? cmd : null;
}

/** Runs a command line on the device as `adb shell` would; `follow`: the session can stay open for a following last command. */
export function runShell(dev: SimDroid, line: string, stdin: Buffer = Buffer.alloc(0), opts: { follow?: boolean } = {}): ShellOutput {
  let list;
  try {
    list = parseShell(line);
  } catch (e) {
    if (e instanceof ShellSyntaxError) return { stdout: Buffer.alloc(0), stderr: Buffer.from(`${SH}: ${e.message}\n`), exitCode: 1 };
    throw e;
  }
  const ctx: RunContext = { followable: opts.follow ? lastSimpleCommand(list) : null, follower: null };
  const r = runList(list, stdin, dev, ctx);
  return { stdout: r.stdout, stderr: r.stderr, exitCode: r.code, ...(ctx.follower ? { follow: ctx.follower } : {}) };
}
