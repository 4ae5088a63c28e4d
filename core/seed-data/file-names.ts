import type { Rng } from '../util/rng.js';

/**
 * File and folder names as they pile up on a phone: downloaded documents, camera and screenshot
 * images, music, videos, voice notes. Templates draw targets and distractors from here.
 */
export const DOCUMENT_STEMS = [
  'meeting_notes', 'budget_2023', 'project_plan', 'invoice_1042', 'resume', 'cover_letter', 'travel_itinerary',
  'recipe_collection', 'lecture_slides', 'tax_return', 'lease_agreement', 'grocery_list', 'workout_log', 'reading_list',
  'quarterly_report', 'contract_draft', 'wedding_guests', 'car_insurance', 'utility_bill', 'flight_tickets',
  'bank_statement', 'course_syllabus', 'packing_list', 'thesis_outline', 'team_roster', 'expense_report', 'user_manual',
  'birthday_plan', 'conference_agenda', 'research_paper', 'sales_forecast', 'lab_results', 'hotel_booking', 'warranty_card',
  'study_guide', 'holiday_schedule', 'garden_layout', 'monthly_review', 'product_specs', 'interview_prep',
] as const;

export const DOCUMENT_EXTS = ['txt', 'pdf', 'docx', 'md', 'csv', 'xlsx'] as const;

export const PICTURE_STEMS = [
  'beach_sunset', 'family_dinner', 'mountain_view', 'birthday_cake', 'city_lights', 'garden_flowers', 'dog_park',
  'wedding_photo', 'snow_day', 'road_trip', 'concert_stage', 'museum_visit', 'forest_trail', 'harbor_boats',
] as const;

export const MUSIC_STEMS = [
  'morning_jazz', 'road_trip_mix', 'piano_sonata', 'summer_hits', 'acoustic_session', 'study_beats', 'workout_tracks',
  'lullaby', 'rock_classics', 'guitar_practice', 'violin_concerto', 'dance_party', 'rainy_day', 'podcast_intro',
] as const;

export const VIDEO_STEMS = [
  'vacation_clip', 'graduation', 'first_steps', 'cooking_tutorial', 'drone_footage', 'soccer_match', 'school_play',
  'birthday_party', 'timelapse_city', 'product_demo',
] as const;

/** Sub-folders people make in Documents. */
export const FOLDER_NAMES = [
  'Work', 'Personal', 'Receipts', 'Taxes', 'School', 'Travel', 'Projects', 'Archive', 'Invoices', 'Recipes', 'Contracts',
  'Medical', 'Finance', 'Photos', 'Notes', 'Backups', 'Letters', 'Manuals', 'Reports', 'Drafts',
] as const;

/** Names for voice recordings (Audio Recorder). */
export const RECORDING_NAMES = [
  'Meeting notes', 'Lecture recap', 'Guitar riff', 'Interview', 'Grocery reminder', 'Voice memo', 'Song idea',
  'Podcast draft', 'Birthday message', 'Call summary', 'Book thoughts', 'Speech practice', 'Piano melody', 'Daily journal',
  'Bird song', 'Team standup', 'Recipe steps', 'Language lesson', 'Dream journal', 'Workout plan',
] as const;

export type FileKind = 'document' | 'picture' | 'music' | 'video';

function dateStamp(rng: Rng): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `2023${p(rng.int(1, 10))}${p(rng.int(1, 28))}_${p(rng.int(0, 23))}${p(rng.int(0, 59))}${p(rng.int(0, 59))}`;
}

/** One realistic file name of a kind. */
export function randomFileName(rng: Rng, kind: FileKind): string {
  switch (kind) {
    case 'document':
      return `${rng.pick(DOCUMENT_STEMS)}.${rng.pick(DOCUMENT_EXTS)}`;
    case 'picture': {
      const r = rng.int(0, 2);
      if (r === 0) return `IMG_${dateStamp(rng)}.jpg`;
      if (r === 1) return `Screenshot_${dateStamp(rng).replace('_', '-')}.png`;
      return `${rng.pick(PICTURE_STEMS)}.jpg`;
    }
    case 'music':
      return `${rng.pick(MUSIC_STEMS)}.${rng.pick(['mp3', 'mp3', 'm4a', 'ogg'])}`;
    case 'video':
      return rng.chance(0.5) ? `VID_${dateStamp(rng)}.mp4` : `${rng.pick(VIDEO_STEMS)}.mp4`;
  }
}

/** `count` distinct names of the given kinds (cycled), none in `exclude`. */
export function randomFileNames(rng: Rng, count: number, kinds: readonly FileKind[], exclude: Iterable<string> = []): string[] {
  const taken = new Set(exclude);
  const out: string[] = [];
  let guard = 0;
  while (out.length < count) {
    const name = randomFileName(rng, kinds[out.length % kinds.length]!);
    if (!taken.has(name)) {
      taken.add(name);
      out.push(name);
    }
    if (++guard > 10_000) throw new Error(`Cannot draw ${count} distinct file names`);
  }
  return out;
}

/** `count` distinct sizes in bytes, far enough apart that their formatted sizes differ too. */
export function distinctSizes(rng: Rng, count: number, min = 200, max = 90_000): number[] {
  const out = new Set<number>();
  let guard = 0;
  while (out.size < count) {
    const s = rng.int(min, max);
    if ([...out].every((o) => Math.abs(o - s) > Math.max(50, o * 0.03))) out.add(s);
    if (++guard > 10_000) throw new Error(`Cannot draw ${count} distinct sizes`);
  }
  return [...out];
}
