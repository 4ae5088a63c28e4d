import type { Rng } from '../util/rng.js';

/**
 * Vocabulary for notes and documents (Markor, and file tasks that touch notes): file names in
 * AndroidWorld's style (snake_case topics with an extension), folder names, and short sentences
 * for note bodies.
 */
export const NOTE_TOPICS = [
  'grocery_list', 'meeting_notes', 'project_ideas', 'travel_plans', 'workout_log', 'recipe_ideas', 'book_summary',
  'budget_plan', 'reading_list', 'journal_entry', 'weekend_todo', 'lecture_notes', 'gift_ideas', 'packing_list',
  'birthday_plans', 'garden_journal', 'movie_watchlist', 'car_maintenance', 'interview_prep', 'study_guide',
  'podcast_notes', 'home_repairs', 'wedding_planning', 'quarterly_goals', 'language_practice', 'daily_standup',
  'research_notes', 'shopping_list', 'event_checklist', 'course_outline',
] as const;

export const NOTE_QUALIFIERS = [
  'weekly', 'draft', 'final', 'october', 'summer', 'team', 'personal', 'v2', 'archive', 'ideas', 'summary', 'q4',
  'monday', 'family', 'work', 'old', 'new', 'backup',
] as const;

/** AndroidWorld's Markor sub-folders, and a few more. */
export const FOLDER_NAMES = [
  'BookNotes', 'CodeSnippets', 'DailyNotes', 'FitnessPlans', 'MeetingMinutes', 'PersonalJournal', 'RecipeCollections',
  'StudyGuides', 'TravelItineraries', 'WorkProjects', 'Archive', 'Drafts', 'Finance', 'HealthRecords', 'Ideas',
  'Templates',
] as const;

export const NOTE_SENTENCES = [
  'Buy fresh basil and tomatoes for the pasta.', 'Call the dentist to move the appointment.',
  'The quarterly report is due on Friday.', 'Remember to water the plants on the balcony.',
  'Book a table for four at the Italian place.', 'Send the slides to the team before noon.',
  'Finish chapter seven of the novel.', 'Renew the car insurance this month.',
  'Pick up the dry cleaning on Tuesday.', 'Try the new running route along the river.',
  'Ask Maria about the conference schedule.', 'Back up the laptop to the external drive.',
  'Plan a picnic in the park for Sunday.', 'Order a birthday cake for the party.',
  'Check the train times to the airport.', 'Pay the electricity bill online.',
  'Prepare three questions for the interview.', 'Replace the kitchen light bulb.',
  'Practice the guitar for thirty minutes.', 'Return the library books by Thursday.',
  'Draft the newsletter for next week.', 'Compare prices for a new vacuum cleaner.',
  'Write a thank-you note to the neighbors.', 'Schedule the car service for next month.',
  'Review the contract before signing it.', 'Bring a jacket, the forecast says rain.',
  'Clean out the garage this weekend.', 'Look up a recipe for lentil soup.',
  'Update the project timeline with the new dates.', 'Cancel the unused gym membership.',
  'Buy stamps and mail the postcards.', 'Charge the camera batteries before the trip.',
  'Email the landlord about the leaking tap.', 'Sign up for the Spanish evening class.',
  'Organize the photos from the summer holiday.', 'Test the new release on older phones.',
  'Confirm the hotel booking in Lisbon.', 'Make a list of gift ideas for the holidays.',
  'Repot the fern into a bigger pot.', 'Read the article about sleep and memory.',
] as const;

/** Short to-do items (one line of todo.txt each). */
export const TODO_ITEMS = [
  'Call the plumber', 'Buy printer ink', 'Renew passport', 'Pay the phone bill', 'Book flu shot',
  'Return the parcel', 'Clean the fridge', 'Mow the lawn', 'Reply to Sam', 'Back up photos', 'Fix the bike light',
  'Order new glasses', 'Write the report summary', 'Buy birthday card', 'Defrost the freezer', 'Update resume',
  'Water the tomatoes', 'Submit expense report', 'Plan team lunch', 'Check tire pressure',
] as const;

export function randomNoteName(rng: Rng, exts: readonly string[] = ['.md', '.txt']): string {
  const base = rng.chance(0.6) ? `${rng.pick(NOTE_TOPICS)}_${rng.pick(NOTE_QUALIFIERS)}` : rng.pick(NOTE_TOPICS);
  return base + rng.pick(exts);
}

/**
 * `count` distinct note names, none in `exclude`, and no two sharing a base name (so "plan.md"
 * and "plan.txt" never both appear, which would make an instruction ambiguous).
 */
export function randomNoteNames(rng: Rng, count: number, exclude: readonly string[] = [], exts?: readonly string[]): string[] {
  const base = (n: string) => n.replace(/\.[^.]+$/, '');
  const taken = new Set(exclude.map(base));
  const out: string[] = [];
  for (let guard = 0; out.length < count; guard++) {
    if (guard > 10_000) throw new Error(`Cannot draw ${count} distinct note names`);
    const name = randomNoteName(rng, exts);
    if (taken.has(base(name))) continue;
    taken.add(base(name));
    out.push(name);
  }
  return out;
}

/** A note body of `lines` distinct sentences, one per line. */
export function randomNoteText(rng: Rng, lines = 1): string {
  return rng.sample(NOTE_SENTENCES, lines).join('\n');
}
