import { DAY_NAMES as DAYS, MONTH_NAMES as MONTHS } from '../../../core/util/calendar-names.js';

/**
 * The device's virtual clock. Time only moves when the device does something (each input event
 * costs a little time, `wait` lets seconds pass), so runs are reproducible and as fast as the CPU.
 * `date` may set the wall clock; uptime keeps running from boot as on a phone. The time zone
 * (`service call alarm 3 s16 <zone>`, persist.sys.timezone) is UTC unless set: apps format their
 * dates from UTC fields, the shell (`date`, `ls -l`) and the status bar from local time.
 */
export const DEFAULT_BOOT_TIME = Date.UTC(2023, 9, 15, 15, 34, 0); // Sun 15 Oct 2023 15:34, AndroidWorld's date

export class UnknownTimeZoneError extends Error {
  override name = 'UnknownTimeZoneError';
  constructor(readonly zone: string) {
    super(`unknown time zone '${zone}'`);
  }
}

export class Clock {
  timeZone = 'UTC';

  constructor(public nowMs: number = DEFAULT_BOOT_TIME, public bootMs: number = DEFAULT_BOOT_TIME) {}

  now(): number {
    return this.nowMs;
  }

  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`Clock.advance needs a non-negative duration, got ${ms}`);
    this.nowMs += Math.round(ms);
  }

  /** Sets the wall clock (settimeofday); uptime is unchanged. */
  setWall(ms: number): void {
    const t = Math.round(ms);
    this.bootMs += t - this.nowMs;
    this.nowMs = t;
  }

  uptimeMs(): number {
    return this.nowMs - this.bootMs;
  }

  /** Sets the zone by its tz database name, as AlarmManager.setTimeZone does. */
  setTimeZone(zone: string): void {
    if (!isTimeZone(zone)) throw new UnknownTimeZoneError(zone);
    this.timeZone = zone;
  }

  /** Local time minus UTC at an instant, in ms (daylight saving included). */
  offsetMs(ms: number): number {
    return zoneOffsetMs(this.timeZone, ms);
  }

  /** strftime in the device's zone, with toybox's %N (nanoseconds) and %:z. */
  formatLocal(ms: number, fmt: string): string {
    return strftime(fmt, ms, this.timeZone);
  }
}

export function isTimeZone(zone: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-]*(\/[A-Za-z0-9_+\-]+)*$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Local time minus UTC in a zone at an instant, in ms. */
export function zoneOffsetMs(zone: string, ms: number): number {
  if (zone === 'UTC') return 0;
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
  }).formatToParts(new Date(ms));
  const f = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  const asUtc = Date.UTC(f('year'), f('month') - 1, f('day'), f('hour'), f('minute'), f('second'));
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/**
 * The zone's abbreviation (%Z). ICU has tzdata's letters per region, so the English locales are
 * asked in turn (EDT from en-US, CEST from en-GB, IST from en-IN, AEDT from en-AU); without
 * letters it is the numeric form tzdata uses (+09, +0530).
 */
function zoneAbbreviation(zone: string, ms: number): string {
  if (zone === 'UTC') return 'UTC';
  for (const locale of ['en-US', 'en-GB', 'en-IN', 'en-AU']) {
    const name = new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: 'short' }).formatToParts(new Date(ms)).find((p) => p.type === 'timeZoneName')?.value;
    if (name && /^[A-Z]{2,5}$/.test(name)) return name;
  }
  const off = Math.round(zoneOffsetMs(zone, ms) / 60000);
  const abs = Math.abs(off);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  return `${off < 0 ? '-' : '+'}${hh}${abs % 60 ? String(abs % 60).padStart(2, '0') : ''}`;
}

/** The UTC instant of local wall-clock fields in a zone (the earlier one across a DST fold). */
export function localToUtc(zone: string, y: number, mo0: number, d: number, h: number, mi: number, s: number): number {
  const guess = Date.UTC(y, mo0, d, h, mi, s);
  const first = guess - zoneOffsetMs(zone, guess);
  return guess - zoneOffsetMs(zone, first);
}

/** strftime(3) over an instant in a zone: the conversions toybox date documents. */
export function strftime(fmt: string, ms: number, zone = 'UTC'): string {
  const off = zoneOffsetMs(zone, ms);
  const d = new Date(ms + off);
  const p = (n: number, w = 2, pad = '0') => String(n).padStart(w, pad);
  const Y = d.getUTCFullYear();
  const mo = d.getUTCMonth();
  const h = d.getUTCHours();
  const offText = (colon: boolean) => {
    const m = Math.round(Math.abs(off) / 60000);
    return `${off < 0 ? '-' : '+'}${p(Math.floor(m / 60))}${colon ? ':' : ''}${p(m % 60)}`;
  };
  return fmt.replace(/%(:z|[0-9]?N|[a-zA-Z%])/g, (_m, c: string) => {
    switch (c) {
      case 'Y': return String(Y);
      case 'y': return p(Y % 100);
      case 'C': return p(Math.floor(Y / 100));
      case 'm': return p(mo + 1);
      case 'd': return p(d.getUTCDate());
      case 'e': return p(d.getUTCDate(), 2, ' ');
      case 'H': return p(h);
      case 'I': return p(h % 12 === 0 ? 12 : h % 12);
      case 'p': return h < 12 ? 'AM' : 'PM';
      case 'M': return p(d.getUTCMinutes());
      case 'S': return p(d.getUTCSeconds());
      case 's': return String(Math.floor(ms / 1000));
      case 'a': return DAYS[d.getUTCDay()]!.slice(0, 3);
      case 'A': return DAYS[d.getUTCDay()]!;
      case 'b': case 'h': return MONTHS[mo]!.slice(0, 3);
      case 'B': return MONTHS[mo]!;
      case 'u': return String(d.getUTCDay() || 7);
      case 'j': return p(Math.floor((Date.UTC(Y, mo, d.getUTCDate()) - Date.UTC(Y, 0, 1)) / 86400000) + 1, 3);
      case 'Z': return zoneAbbreviation(zone, ms);
      case 'z': return offText(false);
      case ':z': return offText(true);
      case 'F': return `${Y}-${p(mo + 1)}-${p(d.getUTCDate())}`;
      case 'T': return `${p(h)}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
      case 'R': return `${p(h)}:${p(d.getUTCMinutes())}`;
      case 'D': return `${p(mo + 1)}/${p(d.getUTCDate())}/${p(Y % 100)}`;
      case 'n': return '\n';
      case 't': return '\t';
      case '%': return '%';
      default: {
        // %N, or %1N…%9N: the nanoseconds, to that many digits (SimDroid's clock counts milliseconds).
        if (c.endsWith('N')) return `${p(((ms % 1000) + 1000) % 1000, 3)}000000`.slice(0, c.length === 2 ? Number(c[0]) : 9);
        return `%${c}`;
      }
    }
  });
}

export const dayName = (ms: number) => DAYS[new Date(ms).getUTCDay()]!;
export const monthName = (m0: number) => MONTHS[m0]!;
export const shortMonth = (m0: number) => MONTHS[m0]!.slice(0, 3);

/** "3:34 PM" (12-hour) or "15:34". */
export function formatTime(ms: number, h24 = false): string {
  const d = new Date(ms);
  const h = d.getUTCHours();
  const m = String(d.getUTCMinutes()).padStart(2, '0');
  if (h24) return `${String(h).padStart(2, '0')}:${m}`;
  return `${h % 12 === 0 ? 12 : h % 12}:${m} ${h < 12 ? 'AM' : 'PM'}`;
}

/** "Sun, Oct 15". */
export function formatShortDate(ms: number): string {
  const d = new Date(ms);
  return `${dayName(ms).slice(0, 3)}, ${shortMonth(d.getUTCMonth())} ${d.getUTCDate()}`;
}

/** "October 15, 2023". */
export function formatLongDate(ms: number): string {
  const d = new Date(ms);
  return `${monthName(d.getUTCMonth())} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

/** "2023-10-15". */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
