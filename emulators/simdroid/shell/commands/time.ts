import type { Command } from '../run.js';
import { localToUtc, strftime, UnknownTimeZoneError, zoneOffsetMs } from '../../system/clock.js';

const DEFAULT_FORMAT = '%a %b %e %H:%M:%S %Z %Y';

class BadDateError extends Error {
  override name = 'BadDateError';
  constructor(readonly text: string) {
    super(`bad date ${text}`);
  }
}

/**
 * toybox's date input formats, in its order: `@UNIXTIME[.FRACTION]`, `YYYY-MM-DD[ T]hh:mm:ss`,
 * `hh:mm:ss`, `YYYY-MM-DD hh:mm`, `YYYY-MM-DD`, `hh:mm`, and POSIX `MMDDhhmm[[CC]YY][.ss]`, all in
 * local time (a two-digit year is 2000–2099 here, the 50-year window around 2023's clock).
 */
function parseDate(text: string, now: number, zone: string): number {
  let m = /^@(-?\d+)(?:\.(\d{1,9}))?$/.exec(text);
  if (m) return Number(m[1]) * 1000 + Math.floor(Number(`0.${m[2] ?? '0'}`) * 1000);
  const local = (y: number, mo: number, d: number, h: number, mi: number, s: number) => {
    const v = localToUtc(zone, y, mo - 1, d, h, mi, s);
    if (!Number.isFinite(v) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) throw new BadDateError(text);
    return v;
  };
  m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(text);
  if (m) return local(+m[1]!, +m[2]!, +m[3]!, +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0));
  const localToday = new Date(now + zoneOffsetMs(zone, now));
  m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(text);
  if (m) return local(localToday.getUTCFullYear(), localToday.getUTCMonth() + 1, localToday.getUTCDate(), +m[1]!, +m[2]!, +(m[3] ?? 0));
  m = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2}|\d{4})?(?:\.(\d{2}))?$/.exec(text);
  if (m) {
    const y = m[5] === undefined ? localToday.getUTCFullYear() : m[5].length === 2 ? 2000 + Number(m[5]) : Number(m[5]);
    return local(y, +m[1]!, +m[2]!, +m[3]!, +m[4]!, +(m[6] ?? 0));
  }
  throw new BadDateError(text);
}

/**
 * `date [-u] [-d DATE] [-s DATE] [+FORMAT] [SET]`: prints the time, or sets SimDroid's wall clock
 * (then prints the new time, as toybox does). The shell user may set it on SimDroid, as root
 * (AndroidWorld's `adb root`) may on an emulator.
 */
export const date: Command = (argv, io, dev) => {
  let zone = dev.clock.timeZone;
  let show: number | null = null;
  let set: string | null = null;
  let fmt = DEFAULT_FORMAT;
  const args = argv.slice(1);
  try {
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (a === '-u' || a === '--utc') zone = 'UTC';
      else if (a === '-d' || a === '-s') {
        const v = args[++i];
        if (v === undefined) {
          io.err(`date: Missing argument to -${a.slice(1)}\n`);
          return 1;
        }
        if (a === '-d') show = parseDate(v, dev.clock.now(), zone);
        else set = v;
      } else if (a.startsWith('+')) fmt = a.slice(1);
      else if (set === null) set = a;
      else {
        io.err(`date: Max 1 argument > ${a}\n`);
        return 1;
      }
    }
    if (set !== null) {
      if (show !== null) {
        io.err("date: can't set two dates at once\n");
        return 1;
      }
      dev.clock.setWall(parseDate(set, dev.clock.now(), zone));
    }
  } catch (e) {
    if (!(e instanceof BadDateError)) throw e;
    io.err(`date: ${e.message}\n`);
    return 1;
  }
  io.out(`${strftime(fmt, show ?? dev.clock.now(), zone)}\n`);
  return 0;
};

/**
 * `service list|check|call`: the one call SimDroid answers is AlarmManager's setTimeZone,
 * `service call alarm 3 s16 <zone>` (transaction 3 of IAlarmManager on API 33), which AndroidWorld
 * sends; its reply is an empty Parcel, as the binder prints it.
 */
export const service: Command = (argv, io, dev) => {
  const [verb, name, code, ...rest] = argv.slice(1);
  if (verb === 'check') {
    io.out(`Service ${name ?? ''}: ${name === 'alarm' || name === 'activity' || name === 'window' ? 'found' : 'not found'}\n`);
    return 0;
  }
  if (verb !== 'call' || name === undefined || code === undefined) {
    io.err('Usage: service [-h|-?]\n       service list\n       service check SERVICE\n       service call SERVICE CODE [i32 N | i64 N | f N | d N | s16 STR | null | fd f | nfd n | afd f ] ...\n');
    return verb === undefined ? 0 : 1;
  }
  if (name === 'alarm' && code === '3' && rest[0] === 's16' && rest[1] !== undefined) {
    try {
      dev.clock.setTimeZone(rest[1]);
    } catch (e) {
      if (!(e instanceof UnknownTimeZoneError)) throw e;
      // AlarmManagerService throws IllegalArgumentException: the reply's header is EX_ILLEGAL_ARGUMENT (-3).
      // (Android's reply carries the message text after it; SimDroid's stops at the code.)
      io.out("Result: Parcel(fffffffd 00000000 '........')\n");
      return 0;
    }
    io.out('Result: Parcel(00000000    \'....\')\n');
    return 0;
  }
  // Any other binder call would need that service's real reply; refusing beats a made-up Parcel.
  io.err(`service: SimDroid does not implement 'call ${name} ${code}'\n`);
  return 1;
};
