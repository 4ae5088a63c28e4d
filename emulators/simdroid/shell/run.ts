import type { SimDroid } from '../simdroid.js';
import { FsError } from '../system/fs.js';
import { parseShell, ShellSyntaxError, type CommandList, type Pipeline, type ShellCommand, type SimpleCommand } from './parse.js';
import { casePattern, expandArgs, expandString, type ExpandContext } from './expand.js';
import { exportVars, returnBuiltin } from './builtins.js';
import { inputOf, redirectOutput, resolveTargets } from './redirect.js';
import { SH, type Result } from './sh.js';
import { ShellArithError } from './arith.js';
import { segmentRegExp } from './glob.js';
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

export { SH } from './sh.js';

/** Loops give up after this many rounds: SimDroid runs a command line to its end in one call, so a loop that never ends would hang the device. */
export const MAX_LOOP_ROUNDS = 10_000;
const MAX_FUNCTION_DEPTH = 200;

class LoopLimitError extends Error {
  override name = 'LoopLimitError';
}

/** One shell's state while it runs a line: its variables, `$?`, and the stderr of command substitutions. */
class Shell implements ExpandContext {
  readonly vars = new Map<string, string>();
  status = 0;
  /** The status of the last command substitution of the command being expanded (null: none ran). */
  substituted: number | null = null;
  rounds = 0;
  /** Names `export` marked (listed by a bare `export`). */
  readonly exported = new Set<string>();
  /** Set by `exec`: the shell has been replaced, so nothing after it runs. */
  exited = false;
  /** Set by `return` in a function: nothing more of the function's body runs. */
  returning = false;
  /** Functions defined so far (`name() …`, `function name …`). */
  readonly functions = new Map<string, ShellCommand>();
  /** `$1`…: the arguments of the function running (adb's shell itself has none). */
  positional: string[] = [];
  /** How deeply function calls nest now. */
  depth = 0;

  /** Whether what follows in the current body is skipped (after `exec`, or `return` in a function). */
  get halted(): boolean {
    return this.exited || this.returning;
  }
  /** What command substitutions wrote to stderr (it goes to the shell's stderr). */
  substitutionErr: Buffer[] = [];
  constructor(readonly dev: SimDroid, readonly ctx: RunContext = { followable: null, follower: null }) {}

  get fs() {
    return this.dev.fs;
  }

  param(name: string): string {
    switch (name) {
      case '?':
        return String(this.status);
      case '#':
        return String(this.positional.length);
      case '0':
        return SH;
      case '@':
      case '*':
        return this.positional.join(' ');
      default:
        if (/^[1-9]$/.test(name)) return this.positional[Number(name) - 1] ?? '';
        return this.vars.get(name) ?? '';
    }
  }

  params(): string[] {
    return this.positional;
  }

  isSet(name: string): boolean {
    if (/^[1-9]$/.test(name)) return Number(name) <= this.positional.length;
    return name === '?' || name === '#' || name === '0' || name === '@' || name === '*' || this.vars.has(name);
  }

  substitute(src: string): string {
    let list;
    try {
      list = parseShell(src);
    } catch (e) {
      if (!(e instanceof ShellSyntaxError)) throw e;
      this.substitutionErr.push(Buffer.from(`${SH}: ${e.message}\n`));
      this.substituted = 1;
      return '';
    }
    // A subshell: its variables stay inside; its status becomes $? of a command with no name.
    const sub = new Shell(this.dev);
    for (const [k, v] of this.vars) sub.vars.set(k, v);
    for (const [k, f] of this.functions) sub.functions.set(k, f);
    sub.positional = this.positional;
    sub.status = this.status;
    sub.rounds = this.rounds;
    const r = runList(list, Buffer.alloc(0), sub);
    this.rounds = sub.rounds;
    this.substitutionErr.push(...sub.substitutionErr, r.stderr);
    this.substituted = r.code;
    return r.stdout.toString('utf8');
  }

  /** What substitutions wrote to stderr since the last call. */
  takeErr(): Buffer {
    const b = Buffer.concat(this.substitutionErr);
    this.substitutionErr = [];
    return b;
  }

  round(): void {
    if (++this.rounds > MAX_LOOP_ROUNDS) throw new LoopLimitError(`loop ran over ${MAX_LOOP_ROUNDS} rounds`);
  }
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

function runSimple(cmd: SimpleCommand, stdin: Buffer, sh: Shell): Result {
  const out = new Sink();
  const err = new Sink();
  // An assignment-only command exits with its last command substitution's status, or 0.
  sh.substituted = null;
  const argv = cmd.words.flatMap((w) => expandArgs(w, sh));
  const values = cmd.assignments.map((a) => [a.name, expandString(a.value, sh)] as const);
  err.write(sh.takeErr());
  const name = argv[0];
  let code = sh.substituted ?? 0;
  if (name === undefined) {
    for (const [k, v] of values) sh.vars.set(k, v);
  } else {
    const ctx = sh.ctx;
    const follow = cmd === ctx.followable ? (f: Follower) => void (ctx.follower = f) : undefined;
    code = invoke(argv, { stdin, out: (d) => out.write(d), err: (d) => err.write(d), follow }, sh);
  }
  return { stdout: out.take(), stderr: err.take(), code };
}

/** Runs one command by name: mksh's builtins that act on the shell itself (`export`, `exec`), else a COMMANDS entry. */
function invoke(argv: string[], io: CommandIo, sh: Shell): number {
  const name = argv[0]!;
  const fn = sh.functions.get(name);
  if (fn) return callFunction(fn, argv, io, sh);
  if (name === 'return') return returnBuiltin(argv, io, sh);
  if (name === 'export') return exportVars(argv, io, sh);
  if (name === 'exec') {
    // `exec cmd …` replaces the shell with cmd: nothing after it on the line runs, and cmd's status is the shell's.
    if (argv.length === 1) return 0;
    const code = invoke(argv.slice(1), io, sh);
    sh.exited = true;
    return code;
  }
  const impl = COMMANDS[name.replace(/^\/system\/bin\//, '')];
  if (!impl) {
    io.err(`${SH}: ${name}: inaccessible or not found\n`);
    return 127;
  }
  try {
    return impl(argv, io, sh.dev);
  } catch (e) {
    if (e instanceof FsError) {
      io.err(`${name}: ${e.message}\n`);
      return 1;
    }
    // A bug in a command must not take the device down: report it like a crashed binary.
    io.err(`${name}: ${(e as Error).message}\n`);
    return 255;
  }
}

/** A function call: its body with `$1`… set to the arguments; `return N` ends it with N, else its last status. */
function callFunction(body: ShellCommand, argv: string[], io: CommandIo, sh: Shell): number {
  sh.round();
  // Endless recursion is cut off as an endless loop is (a device's mksh would run out of stack).
  if (++sh.depth > MAX_FUNCTION_DEPTH) throw new LoopLimitError(`${argv[0]}: function calls nested over ${MAX_FUNCTION_DEPTH} deep`);
  const saved = sh.positional;
  sh.positional = argv.slice(1);
  try {
    const r = runCommand(body, io.stdin, sh);
    io.out(r.stdout);
    if (r.stderr.length) io.err(r.stderr.toString('utf8'));
    return r.code;
  } finally {
    sh.depth--;
    sh.positional = saved;
    sh.returning = false;
  }
}

function runCommand(cmd: ShellCommand, stdin: Buffer, sh: Shell): Result {
  const dev = sh.dev;
  const redirects = resolveTargets(cmd.redirects, sh);
  const input = inputOf(redirects, stdin, dev);
  if (!Buffer.isBuffer(input)) return input;
  let r: Result;
  switch (cmd.kind) {
    case 'simple':
      r = runSimple(cmd, input, sh);
      break;
    case 'group':
      r = runList(cmd.body, input, sh);
      break;
    case 'for': {
      // mksh: the status of the body's last run, 0 when the list is empty.
      const items = cmd.items.flatMap((w) => expandArgs(w, sh));
      const parts: Result[] = [{ stdout: Buffer.alloc(0), stderr: sh.takeErr(), code: 0 }];
      let code = 0;
      for (const item of items) {
        if (sh.halted) break;
        sh.round();
        sh.vars.set(cmd.name, item);
        const b = runList(cmd.body, input, sh);
        parts.push(b);
        code = b.code;
      }
      r = join(parts, code);
      break;
    }
    case 'loop': {
      const parts: Result[] = [];
      let code = 0;
      for (;;) {
        sh.round();
        const c = runList(cmd.cond, input, sh);
        parts.push(c);
        if (sh.halted || (c.code === 0) === cmd.until) break;
        const b = runList(cmd.body, input, sh);
        parts.push(b);
        code = b.code;
      }
      r = join(parts, code);
      break;
    }
    case 'function':
      // Defining one runs nothing; a later command of that name calls it.
      sh.functions.set(cmd.name, cmd.body);
      r = { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), code: 0 };
      break;
    case 'case': {
      // mksh: the status of the arm taken, 0 when no pattern matched.
      const value = expandString(cmd.word, sh);
      const arm = cmd.arms.find((a) => a.patterns.some((p) => segmentRegExp(casePattern(p, sh)).test(value)));
      const taken = arm ? runList(arm.body, input, sh) : null;
      r = join([{ stdout: Buffer.alloc(0), stderr: sh.takeErr(), code: 0 }, ...(taken ? [taken] : [])], taken ? taken.code : 0);
      break;
    }
    case 'if': {
      // mksh: the status of the branch taken, or 0 when no condition held and there is no else.
      r = { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), code: 0 };
      const parts: Result[] = [];
      let taken: Result | null = null;
      for (const clause of cmd.clauses) {
        const c = runList(clause.cond, input, sh);
        parts.push(c);
        if (sh.halted) break;
        if (c.code === 0) {
          taken = runList(clause.body, input, sh);
          break;
        }
      }
      if (!taken && cmd.otherwise) taken = runList(cmd.otherwise, input, sh);
      if (taken) parts.push(taken);
      r = join(parts, taken ? taken.code : 0);
      break;
    }
  }
  return redirectOutput(redirects, r, dev);
}

function join(parts: Result[], code: number): Result {
  return { stdout: Buffer.concat(parts.map((p) => p.stdout)), stderr: Buffer.concat(parts.map((p) => p.stderr)), code };
}

function runPipeline(p: Pipeline, stdin: Buffer, sh: Shell): Result {
  const stderr: Buffer[] = [];
  let pipeIn = stdin;
  let last: Result = { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), code: 0 };
  for (const c of p.commands) {
    last = runCommand(c, pipeIn, sh);
    stderr.push(last.stderr);
    pipeIn = last.stdout;
  }
  const code = p.negate ? (last.code === 0 ? 1 : 0) : last.code;
  return { stdout: last.stdout, stderr: Buffer.concat(stderr), code };
}

function runList(list: CommandList, stdin: Buffer, sh: Shell): Result {
  const parts: Result[] = [];
  let code = 0;
  let skip = false;
  for (const item of list.items) {
    if (sh.halted) break;
    if (!skip) {
      const r = runPipeline(item.pipeline, stdin, sh);
      parts.push(r);
      code = r.code;
      sh.status = code;
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
  const sh = new Shell(dev, ctx);
  try {
    const r = runList(list, stdin, sh);
    return { stdout: r.stdout, stderr: r.stderr, exitCode: r.code, ...(ctx.follower ? { follow: ctx.follower } : {}) };
  } catch (e) {
    // mksh stops a non-interactive shell at a bad arithmetic expression (`1/0: zero divisor`), status 1.
    if (e instanceof ShellArithError) return { stdout: Buffer.alloc(0), stderr: Buffer.from(`${SH}: ${e.message}\n`), exitCode: 1 };
    if (!(e instanceof LoopLimitError)) throw e;
    // What ran before the limit is not returned: the line is cut off as a killed shell's would be.
    return { stdout: Buffer.alloc(0), stderr: Buffer.from(`${SH}: ${e.message}\n`), exitCode: 1 };
  }
}
