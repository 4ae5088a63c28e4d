/**
 * Tolerant reading of times and counts in an agent's answer. A time may be written "4:34 AM",
 * "4:34am", "4.34 p.m.", "04:34", "16:34", "4 PM" or inside a sentence ("It is 4:34 AM in Tokyo");
 * without AM/PM a 12-hour reading is allowed too. Every time mentioned must be a right one, so
 * hedging with two times fails.
 */
export interface HourMinute {
  hour: number;
  minute: number;
}

const TIME = /(?<![\d:.])(\d{1,2})(?:\s*[:.h]\s*(\d{2}))?\s*(?:([ap])\.?\s?m\.?|(?=\D|$))/gi;

/** The minutes-of-day each time in the text can mean. */
export function timesIn(text: string): number[][] {
  const out: number[][] = [];
  for (const m of text.matchAll(TIME)) {
    const h = Number(m[1]);
    const hasMinutes = m[2] !== undefined;
    const meridiem = m[3]?.toLowerCase();
    // A bare number ("9 hours", "Oct 15") is not a time.
    if (!hasMinutes && !meridiem) continue;
    const min = hasMinutes ? Number(m[2]) : 0;
    if (min > 59) continue;
    if (meridiem) {
      if (h < 1 || h > 12) continue;
      out.push([((h % 12) + (meridiem === 'p' ? 12 : 0)) * 60 + min]);
    } else {
      if (h > 23) continue;
      out.push(h >= 1 && h <= 12 ? [(h % 12) * 60 + min, ((h % 12) + 12) * 60 + min] : [h * 60 + min]);
    }
  }
  return out;
}

/** True when the answer names at least one time and every time it names is one of `accepted`. */
export function timeAnswerMatches(answer: string | undefined, accepted: readonly HourMinute[]): boolean {
  if (answer === undefined) return false;
  const ok = new Set(accepted.map((t) => t.hour * 60 + t.minute));
  const times = timesIn(answer);
  return times.length > 0 && times.every((meanings) => meanings.some((m) => ok.has(m)));
}

const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];

/** A count answered as digits or a word ("3", "three", "3 alarms", "There are three."). */
export function countAnswerMatches(answer: string | undefined, expected: number): boolean {
  if (answer === undefined) return false;
  const found = new Set<number>();
  for (const m of answer.toLowerCase().matchAll(/\b(\d+|[a-z]+)\b/g)) {
    const w = m[1]!;
    if (/^\d+$/.test(w)) found.add(Number(w));
    else if (WORDS.includes(w)) found.add(WORDS.indexOf(w));
  }
  return found.size === 1 && found.has(expected);
}
