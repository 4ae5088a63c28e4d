import { normalizePath } from '../system/fs.js';
import { isTerminal, screencapFile, uiautomatorDumpFile } from './commands/system.js';
import { allCommands, parseShell, type ShellCommand } from './parse.js';
import type { Word } from './tokenize.js';

/**
 * Which command lines can change the device. A read-only one (the observation commands adb
 * clients send after every action: `uiautomator dump /dev/tty`, `dumpsys window`, `screencap -p`,
 * `wm size`, `getprop`, `pm list`, `cat`, `ls`, …) must not count as a change: that would throw
 * away the frame, tree and screenshot caches, wake mirrors and drop the press highlight.
 *
 * The list names what is known to be read-only, with the arguments that make it so; everything
 * else (unknown commands, `input`, `am`, `settings put`, `sqlite3`, `content insert`, `rm`,
 * `sleep`, …) and any output redirected into a file counts as a change. A wrong "read-only" would
 * leave stale frames, so when in doubt a command is a change.
 */
const always = () => true;

/** `settings [--user N] get|list …` */
function settingsReads(argv: string[]): boolean {
  const args = argv.slice(1);
  if (args[0] === '--user') args.splice(0, 2);
  return args[0] === 'get' || args[0] === 'list';
}

const READ_ONLY = new Map<string, (argv: string[]) => boolean>(Object.entries({
  cat: always,
  '[': always,
  test: always,
  date: (argv: string[]) => argv.slice(1).every((a) => a.startsWith('+') || a === '-u'), // printing, not setting
  dumpsys: always,
  echo: always,
  export: always, // SimDroid's environment is fixed
  false: always,
  find: (argv: string[]) => !argv.includes('-delete'),
  getprop: always,
  grep: always,
  head: always,
  id: always,
  logcat: always, // reads or clears the log, never the screen's state
  ls: always,
  stat: always,
  tail: always,
  true: always,
  wc: always,
  whoami: always,
  wm: always, // size and density are reported, never overridden
  pm: (argv: string[]) => argv[1] === 'list' || argv[1] === 'path',
  settings: settingsReads,
  content: (argv: string[]) => argv[1] === 'query',
  uiautomator: (argv: string[]) => argv[1] !== 'dump' || isTerminal(uiautomatorDumpFile(argv)),
  screencap: (argv: string[]) => screencapFile(argv) === undefined,
  cmd: (argv: string[]) => argv[1] === 'uimode' && argv[2] === 'night' && argv.length === 3,
}));

/** Redirect targets that are not files on the device. */
const NOT_FILES = new Set(['/dev/null', '/dev/tty', '/dev/stdout']);

/** The command substitutions in a command's own words (not its inner lists'). */
function substitutions(cmd: ShellCommand): string[] {
  const words: Word[] = cmd.redirects.flatMap((r) => (r.word ? [r.word] : []));
  if (cmd.kind === 'simple') words.push(...cmd.words, ...cmd.assignments.map((a) => a.value));
  if (cmd.kind === 'for') words.push(...cmd.items);
  if (cmd.kind === 'case') words.push(cmd.word, ...cmd.arms.flatMap((a) => a.patterns));
  return words.flatMap((w) => w.parts.flatMap((p) => (p.kind === 'command' ? [p.src] : [])));
}

function commandMayChange(cmd: ShellCommand): boolean {
  for (const r of cmd.redirects) {
    // A target known only when it runs may be any file.
    if ((r.op === '>' || r.op === '>>') && (r.word?.deferred || !NOT_FILES.has(normalizePath(r.target)))) return true;
  }
  if (substitutions(cmd).some(mayChangeState)) return true;
  if (cmd.kind !== 'simple') return false; // its inner commands are checked on their own
  // `exec cmd …` is cmd.
  const argv = cmd.argv[0] === 'exec' ? cmd.argv.slice(1) : cmd.argv;
  const name = argv[0];
  if (name === undefined) return false;
  const readOnly = READ_ONLY.get(name.replace(/^\/system\/bin\//, ''));
  return !readOnly?.(argv);
}

/** False only when every command in the line is known to leave the device as it was. */
export function mayChangeState(line: string): boolean {
  let list;
  try {
    list = parseShell(line);
  } catch {
    // A line that does not parse runs nothing (the shell prints a syntax error).
    return false;
  }
  return allCommands(list).some(commandMayChange);
}

/** `screencap -p` writing to stdout, alone on its line (what adb clients send for a screenshot). */
export function isPngScreencap(line: string): boolean {
  let list;
  try {
    list = parseShell(line);
  } catch {
    return false;
  }
  const cmd = list.items.length === 1 && list.items[0]!.pipeline.commands.length === 1 ? list.items[0]!.pipeline.commands[0]! : undefined;
  if (!cmd || cmd.kind !== 'simple' || cmd.redirects.length > 0 || cmd.words.some((w) => w.glob !== null)) return false;
  const name = cmd.argv[0]?.replace(/^\/system\/bin\//, '');
  return name === 'screencap' && cmd.argv.includes('-p') && screencapFile(cmd.argv) === undefined;
}
