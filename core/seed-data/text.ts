import type { Rng } from '../util/rng.js';

export const NOUNS = [
  'meeting', 'project', 'budget', 'garden', 'recipe', 'holiday', 'workout', 'concert', 'invoice', 'report', 'trip',
  'birthday', 'dentist', 'library', 'groceries', 'presentation', 'interview', 'lecture', 'review', 'deadline',
  'picnic', 'rehearsal', 'appointment', 'conference', 'seminar', 'webinar', 'checkup', 'haircut', 'yoga', 'hike',
] as const;

export const ADJECTIVES = [
  'quarterly', 'weekly', 'annual', 'urgent', 'quick', 'final', 'team', 'family', 'morning', 'evening', 'monthly',
  'client', 'summer', 'winter', 'spring', 'autumn', 'daily', 'important', 'personal', 'local',
] as const;

const PHRASES = [
  'Remember to bring the documents', 'Call back before noon', 'Check the updated schedule', 'Buy fresh vegetables',
  'Confirm the reservation', 'Send the slides to the team', 'Water the plants', 'Renew the library books',
  'Pick up the dry cleaning', 'Book the train tickets', 'Review the contract draft', 'Pay the electricity bill',
  'Back up the laptop', 'Prepare questions for the meeting', 'Order a birthday cake', 'Schedule the car service',
  'Update the budget sheet', 'Return the borrowed drill', 'Plan the weekend hike', 'Reply to the landlord',
] as const;

export function randomTitle(rng: Rng): string {
  const adj = rng.pick(ADJECTIVES);
  const noun = rng.pick(NOUNS);
  return `${adj[0]!.toUpperCase()}${adj.slice(1)} ${noun}`;
}

/** Distinct titles. */
export function randomTitles(rng: Rng, count: number): string[] {
  const out = new Set<string>();
  let guard = 0;
  while (out.size < count) {
    out.add(randomTitle(rng));
    if (++guard > 10_000) throw new Error(`Cannot draw ${count} distinct titles`);
  }
  return [...out];
}

export function randomSentence(rng: Rng): string {
  return `${rng.pick(PHRASES)}.`;
}

export function randomParagraph(rng: Rng, sentences = 2): string {
  return rng.sample(PHRASES, sentences).map((p) => `${p}.`).join(' ');
}

/** A file-name-safe slug of words, e.g. "quarterly_budget". */
export function randomSlug(rng: Rng): string {
  return `${rng.pick(ADJECTIVES)}_${rng.pick(NOUNS)}`;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` random letters and digits (AndroidWorld fills some notes and names with such strings). */
export function randomString(rng: Rng, length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += ALPHANUMERIC[rng.int(0, ALPHANUMERIC.length - 1)];
  return s;
}
