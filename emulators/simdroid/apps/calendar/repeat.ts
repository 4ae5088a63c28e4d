import { DAY_NAMES } from '../../../../core/util/calendar-names.js';

/**
 * Simple Calendar's repetition, as its events table stores it and its views expand it:
 * `repeat_interval` in seconds (DAY 86400, WEEK 604800, MONTH 2592001, YEAR 31536000, or a multiple:
 * every 2 weeks), `repeat_rule` (weekly: a bit per weekday, Monday 1 … Sunday 64; monthly and
 * yearly: REPEAT_SAME_DAY 1, monthly also REPEAT_LAST_DAY 3), `repeat_limit` (0 forever, > 0 the
 * last day in unix seconds, < 0 minus the number of occurrences). Picking an interval sets the rule
 * as the editor does (weekly: the start's weekday; monthly and yearly: the same day).
 */
export const DAY_S = 86_400;
export const WEEK_S = 604_800;
export const MONTH_S = 2_592_001;
export const YEAR_S = 31_536_000;
export const REPEAT_SAME_DAY = 1;
export const REPEAT_LAST_DAY = 3;

export interface Repeat {
  interval: number;
  rule: number;
  limit: number;
}

export const NO_REPEAT: Repeat = { interval: 0, rule: 0, limit: 0 };

/** The repetition dialog's choices, in the real app's order. */
export const REPEAT_CHOICES: ReadonlyArray<[seconds: number, label: string]> = [
  [0, 'No repetition'], [DAY_S, 'Daily'], [WEEK_S, 'Weekly'], [MONTH_S, 'Monthly'], [YEAR_S, 'Yearly'],
];

export const isYearly = (i: number) => i !== 0 && i % YEAR_S === 0;
export const isMonthly = (i: number) => i !== 0 && i % MONTH_S === 0;
export const isWeekly = (i: number) => i !== 0 && i % WEEK_S === 0;

/** The editor's repetition text: "Daily", "Weekly", … or "Every 2 weeks". */
export function repeatText(interval: number): string {
  const fixed = REPEAT_CHOICES.find(([s]) => s === interval);
  if (fixed) return fixed[1];
  const [unit, n] = isYearly(interval) ? ['year', interval / YEAR_S] : isMonthly(interval) ? ['month', interval / MONTH_S]
    : isWeekly(interval) ? ['week', interval / WEEK_S] : ['day', Math.round(interval / DAY_S)];
  return `Every ${n} ${unit}s`;
}

/** Monday 1 … Sunday 64, from a JavaScript weekday (Sunday 0). */
export function weekdayBit(jsDay: number): number {
  return 1 << ((jsDay + 6) % 7);
}

/** The rule the editor sets when an interval is picked, for an event starting at `startMs`. */
export function defaultRule(interval: number, startMs: number): number {
  if (isWeekly(interval)) return weekdayBit(new Date(startMs).getUTCDay());
  if (isMonthly(interval) || isYearly(interval)) return REPEAT_SAME_DAY;
  return 0;
}

/** Weekdays Monday-first, with their bits, for the weekly rule's dialog. */
export const WEEKDAYS_MONDAY_FIRST = [1, 2, 3, 4, 5, 6, 0].map((js) => ({ name: DAY_NAMES[js]!, bit: weekdayBit(js) }));

/** The rule row's text: "Tue, Thu" (weekly), "Same day" / "Last day of the month". */
export function ruleText(r: Repeat): string {
  if (isWeekly(r.interval)) {
    if (r.rule === 127) return 'Every day';
    return WEEKDAYS_MONDAY_FIRST.filter((d) => (r.rule & d.bit) !== 0).map((d) => d.name.slice(0, 3)).join(', ');
  }
  return r.rule === REPEAT_LAST_DAY ? 'Last day of the month' : 'Same day';
}

/** The "Repeat till" row's text. */
export function limitText(limit: number, dateText: (ms: number) => string): string {
  if (limit === 0) return 'Forever';
  if (limit < 0) return `${-limit} times`;
  return dateText(limit * 1000);
}

const DAY_MS = DAY_S * 1000;

/** The day `day` of the month `m` months after `baseMs`'s month, at the same time; null when the month is shorter. */
function monthDay(baseMs: number, m: number, lastDay: boolean): number | null {
  const d = new Date(baseMs);
  const y = d.getUTCFullYear();
  const month = d.getUTCMonth() + m;
  const days = new Date(Date.UTC(y, month + 1, 0)).getUTCDate();
  const day = lastDay ? days : d.getUTCDate();
  if (day > days) return null;
  return Date.UTC(y, month, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds());
}

/**
 * The starts (ms) of a repeating event's occurrences that begin before `untilMs`, the first one
 * included, in order; `durationMs` lets an occurrence that started earlier still overlap `fromMs`.
 * At most `cap` are generated (the views ask for a bounded window).
 */
export function occurrenceStarts(startMs: number, r: Repeat, fromMs: number, untilMs: number, durationMs: number, cap = 2000): number[] {
  if (r.interval <= 0) return startMs < untilMs ? [startMs] : [];
  const out: number[] = [];
  let count = 0;
  const maxCount = r.limit < 0 ? -r.limit : Infinity;
  const lastStart = r.limit > 0 ? r.limit * 1000 + DAY_MS - 1 : Infinity;
  const take = (s: number): boolean => {
    if (s >= untilMs || s > lastStart || count >= maxCount) return false;
    count++;
    if (s + Math.max(durationMs, 1) > fromMs || s >= fromMs) out.push(s);
    return out.length < cap;
  };
  if (isWeekly(r.interval)) {
    const weeks = r.interval / WEEK_S;
    const rule = r.rule || weekdayBit(new Date(startMs).getUTCDay());
    // Weeks run Monday to Sunday; occurrences on or after the first start.
    const monday = startMs - ((new Date(startMs).getUTCDay() + 6) % 7) * DAY_MS;
    for (let w = 0; ; w += weeks) {
      for (let i = 0; i < 7; i++) {
        const s = monday + (w * 7 + i) * DAY_MS;
        if (s < startMs || (rule & (1 << i)) === 0) continue;
        if (!take(s)) return out;
      }
      if (monday + w * 7 * DAY_MS >= untilMs) return out;
    }
  }
  if (isMonthly(r.interval) || isYearly(r.interval)) {
    const step = isYearly(r.interval) ? 12 * (r.interval / YEAR_S) : r.interval / MONTH_S;
    const last = isMonthly(r.interval) && r.rule === REPEAT_LAST_DAY;
    for (let m = 0; m < 12 * 400; m += step) {
      const s = monthDay(startMs, m, last);
      if (s === null || s < startMs) continue;
      if (!take(s)) return out;
    }
    return out;
  }
  for (let s = startMs; ; s += r.interval * 1000) if (!take(s)) return out;
}
