import type { Rng } from '../util/rng.js';
import { DAY_NAMES, MONTH_NAMES, monthNumber } from '../util/calendar-names.js';
import { dateParts, DAY_MS, msOf, type DateParts } from '../seed-data/dates.js';

/**
 * Days as instructions word them relative to the device's today, and back: "today", "tomorrow",
 * "yesterday", "this Thursday", "Thursday", "the Thursday after next", "in two weeks from today",
 * "October 24", "October 24 2023" (AndroidWorld's wordings: information_retrieval/datetime_utils and
 * its calendar templates). Templates draw a wording for a day; oracles read the day back against
 * the today they read on screen, never from the instance's parameters.
 */
export class DayPhraseError extends Error {
  override name = 'DayPhraseError';
  constructor(readonly phrase: string) {
    super(`Not a day as instructions word one: ${JSON.stringify(phrase)}`);
  }
}

/**
 * How a bare weekday ("Tuesday") is read: AndroidWorld words days up to a week ahead *and* up to a
 * week back so. A question about what is still to come reads it as the coming one; a question
 * about what was done ("which tasks have I completed for Tuesday") as the one just past.
 */
export type BareWeekday = 'coming' | 'past';

const WEEKDAYS = DAY_NAMES.map((d) => d.toLowerCase());

function shift(d: DateParts, days: number): DateParts {
  return dateParts(msOf(d) + days * DAY_MS);
}

function weekdayOf(d: DateParts): number {
  return new Date(msOf(d)).getUTCDay();
}

/** The next `weekday` (0 = Sunday) after today, within a week: today itself is never "this Sunday". */
function coming(today: DateParts, weekday: number): DateParts {
  return shift(today, ((weekday - weekdayOf(today) + 7) % 7) || 7);
}

function past(today: DateParts, weekday: number): DateParts {
  return shift(today, -(((weekdayOf(today) - weekday + 7) % 7) || 7));
}

/** The day a phrase names, counted from `today`. */
export function resolveDay(phrase: string, today: DateParts, bare: BareWeekday = 'coming'): DateParts {
  const p = phrase.trim().toLowerCase().replace(/^(on|for|by) /, '').replace(/[.,]$/, '');
  if (p === 'today') return today;
  if (p === 'tomorrow') return shift(today, 1);
  if (p === 'yesterday') return shift(today, -1);
  if (p === 'in two weeks from today' || p === 'in two weeks') return shift(today, 14);
  let m = /^(?:the )?(\w+) after next$/.exec(p);
  if (m && WEEKDAYS.includes(m[1]!)) return shift(coming(today, WEEKDAYS.indexOf(m[1]!)), 7);
  m = /^this (\w+)$/.exec(p);
  if (m && WEEKDAYS.includes(m[1]!)) return coming(today, WEEKDAYS.indexOf(m[1]!));
  if (WEEKDAYS.includes(p)) return bare === 'coming' ? coming(today, WEEKDAYS.indexOf(p)) : past(today, WEEKDAYS.indexOf(p));
  m = /^(\w+) (\d{1,2})(?:,? (\d{4}))?$/.exec(p);
  if (m && monthNumber(m[1]!) > 0) return { year: m[3] ? Number(m[3]) : today.year, month: monthNumber(m[1]!), day: Number(m[2]) };
  throw new DayPhraseError(phrase);
}

/** "October 24 2023" (AndroidWorld's DATE_FORMAT, '%B %d %Y', which pads the day: "October 05 2023"). */
export function fullDate(d: DateParts, pad = false): string {
  return `${MONTH_NAMES[d.month - 1]} ${pad ? String(d.day).padStart(2, '0') : d.day} ${d.year}`;
}

/**
 * The wordings AndroidWorld may give a day (its _generate_nl_date_options): the date with and
 * without the year; today / tomorrow / yesterday; a weekday (bare or "this") within a week ahead;
 * "the Monday after next" in the week after; a bare weekday within a week back.
 */
export function dayWordings(d: DateParts, today: DateParts): string[] {
  const out = [`${MONTH_NAMES[d.month - 1]} ${d.day}`, fullDate(d)];
  const diff = Math.round((msOf(d) - msOf(today)) / DAY_MS);
  const name = DAY_NAMES[weekdayOf(d)]!;
  if (diff === 0) out.push('today');
  if (diff === 1) out.push('tomorrow');
  if (diff === -1) out.push('yesterday');
  if (diff > 0 && diff <= 7) out.push(name, `this ${name}`);
  else if (diff > 7 && diff <= 14) out.push(`the ${name} after next`);
  if (diff < 0 && diff >= -7) out.push(name);
  return out;
}

/** One of a day's wordings, drawn; a bare weekday only where `bare` reads it back as this day. */
export function wordDay(rng: Rng, d: DateParts, today: DateParts, bare: BareWeekday = 'coming'): string {
  const options = dayWordings(d, today).filter((w) => {
    try {
      const back = resolveDay(w, today, bare);
      return back.year === d.year && back.month === d.month && back.day === d.day;
    } catch {
      return false;
    }
  });
  return rng.pick(options);
}
