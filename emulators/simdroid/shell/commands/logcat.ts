import type { Command } from '../run.js';
import { LOG_BUFFERS, LOG_PRIORITIES, type LogBufferName, type LogEntry, type LogPriority } from '../../system/log.js';
import type { Clock } from '../../system/clock.js';

/**
 * `logcat` as adb clients use it (`adb logcat` sends `export ANDROID_LOG_TAGS=…; exec logcat ARGS`):
 * -b BUFFER (main, system, crash, events, radio, kernel, all, default; repeatable or comma-listed),
 * -c clears, -d dumps and exits, -t N the last N lines and exits, -s silences tags not named,
 * -v FORMAT (brief, tag, process, raw, time, threadtime, long; modifiers epoch, UTC), and
 * TAG:PRIORITY filter specs (`*:S`). Without -d/-t/-c it prints what is buffered, then follows
 * new entries while the adb stream stays open (the shell service allows that only for the last
 * command of a line; elsewhere it prints what is buffered and ends).
 */
const FORMATS = ['brief', 'tag', 'process', 'raw', 'time', 'threadtime', 'long'] as const;
type Format = (typeof FORMATS)[number];
const MODIFIERS = ['epoch', 'UTC', 'printable', 'color', 'descriptive', 'uid', 'usec', 'year', 'zone', 'monotonic'] as const;
const DEFAULT_BUFFERS: readonly LogBufferName[] = ['main', 'system', 'crash'];

class LogcatUsageError extends Error {
  override name = 'LogcatUsageError';
}

interface Options {
  buffers: Set<LogBufferName>;
  clear: boolean;
  dump: boolean;
  tail: number | null;
  format: Format;
  epoch: boolean;
  utc: boolean;
  /** Per-tag minimum priority; `*` is the default. 'S' silences. */
  filters: Map<string, LogPriority | 'S'>;
}

function isPriority(p: string): p is LogPriority | 'S' {
  return p === 'S' || (LOG_PRIORITIES as readonly string[]).includes(p);
}

function parseArgs(argv: string[]): Options {
  const o: Options = { buffers: new Set(), clear: false, dump: false, tail: null, format: 'threadtime', epoch: false, utc: false, filters: new Map() };
  const value = (i: number, flag: string) => {
    const v = argv[i];
    if (v === undefined) throw new LogcatUsageError(`option requires an argument -- '${flag}'`);
    return v;
  };
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-b' || a.startsWith('--buffer=')) {
      const v = a === '-b' ? value(++i, 'b') : a.slice('--buffer='.length);
      for (const name of v.split(',')) {
        if (name === 'all') LOG_BUFFERS.forEach((b) => o.buffers.add(b));
        else if (name === 'default') DEFAULT_BUFFERS.forEach((b) => o.buffers.add(b));
        else if ((LOG_BUFFERS as readonly string[]).includes(name)) o.buffers.add(name as LogBufferName);
        else throw new LogcatUsageError(`Unknown buffer '${name}' listed for -b.`);
      }
    } else if (a === '-c' || a === '--clear') o.clear = true;
    else if (a === '-d') o.dump = true;
    else if (a === '-s') o.filters.set('*', 'S');
    else if (a === '-t' || a === '-T') {
      const v = value(++i, a.slice(1));
      if (!/^\d+$/.test(v) || Number(v) < 1) throw new LogcatUsageError(`-${a.slice(1)} '${v}' is not a line count SimDroid reads`);
      o.tail = Number(v);
      o.dump ||= a === '-t';
    } else if (a === '-v' || a.startsWith('--format=')) {
      const v = a === '-v' ? value(++i, 'v') : a.slice('--format='.length);
      for (const f of v.split(',')) {
        if ((FORMATS as readonly string[]).includes(f)) o.format = f as Format;
        else if (f === 'epoch') o.epoch = true;
        else if (f === 'UTC') o.utc = true;
        else if (!(MODIFIERS as readonly string[]).includes(f)) throw new LogcatUsageError(`unknown format '${f}'`);
      }
    } else if (a.startsWith('-')) {
      throw new LogcatUsageError(`invalid option -- '${a.replace(/^-+/, '')}'`);
    } else {
      // TAG[:PRIORITY]; a bare tag means verbose.
      const colon = a.lastIndexOf(':');
      const tag = colon < 0 ? a : a.slice(0, colon);
      const pri = colon < 0 ? 'V' : a.slice(colon + 1).toUpperCase();
      if (!tag || !isPriority(pri)) throw new LogcatUsageError(`Invalid filter expression '${a}'`);
      o.filters.set(tag, pri);
    }
  }
  if (o.buffers.size === 0) DEFAULT_BUFFERS.forEach((b) => o.buffers.add(b));
  return o;
}

const RANK: Record<LogPriority | 'S', number> = { V: 2, D: 3, I: 4, W: 5, E: 6, F: 7, S: 9 };

function passes(o: Options, e: LogEntry): boolean {
  const min = o.filters.get(e.tag) ?? o.filters.get('*') ?? 'V';
  return RANK[e.priority] >= RANK[min];
}

const pad2 = (n: number) => String(n).padStart(2, '0');

function timestamp(o: Options, clock: Clock, ms: number): string {
  // -v epoch: seconds since the epoch, right-aligned in 19 columns (logprint's "%19lld.%03ld").
  if (o.epoch) return `${String(Math.floor(ms / 1000)).padStart(19)}.${String(ms % 1000).padStart(3, '0')}`;
  const d = new Date(o.utc ? ms : ms + clock.offsetMs(ms));
  return `${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}.${String(d.getUTCMilliseconds()).padStart(3, '0')}`;
}

/** One entry as logprint formats it (one line per message line, each with the prefix). */
function formatEntry(o: Options, clock: Clock, e: LogEntry): string {
  const prefix = (() => {
    switch (o.format) {
      case 'brief':
        return `${e.priority}/${e.tag.padEnd(8)}(${String(e.pid).padStart(5)}): `;
      case 'tag':
        return `${e.priority}/${e.tag.padEnd(8)}: `;
      case 'process':
        return `${e.priority}(${String(e.pid).padStart(5)}) `;
      case 'raw':
        return '';
      case 'time':
        return `${timestamp(o, clock, e.timeMs)} ${e.priority}/${e.tag.padEnd(8)}(${String(e.pid).padStart(5)}): `;
      case 'threadtime':
        return `${timestamp(o, clock, e.timeMs)} ${String(e.pid).padStart(5)} ${String(e.tid).padStart(5)} ${e.priority} ${e.tag.padEnd(8)}: `;
      case 'long':
        return `[ ${timestamp(o, clock, e.timeMs)} ${String(e.pid).padStart(5)}:${String(e.tid).padStart(5)} ${e.priority}/${e.tag} ]\n`;
    }
  })();
  return e.message.split('\n').map((line) => `${prefix}${line}\n`).join('') + (o.format === 'long' ? '\n' : '');
}

export const logcat: Command = (argv, io, dev) => {
  let o: Options;
  try {
    o = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof LogcatUsageError)) throw e;
    io.err(`logcat: ${e.message}\n`);
    return 1;
  }
  if (o.clear) {
    dev.log.clear(o.buffers);
    return 0;
  }
  const show = (e: LogEntry) => o.buffers.has(e.buffer) && passes(o, e);
  const buffered = dev.log.read(o.buffers).filter(show);
  for (const e of o.tail === null ? buffered : buffered.slice(-o.tail)) io.out(formatEntry(o, dev.clock, e));
  if (o.dump || !io.follow) return 0;
  io.follow((write) => dev.log.follow((e) => {
    if (show(e)) write(Buffer.from(formatEntry(o, dev.clock, e), 'utf8'));
  }));
  return 0;
};
