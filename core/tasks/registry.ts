import type { TaskTemplate } from './task.js';
import { SETTINGS_TASKS } from './families/settings/index.js';
import { CONTACTS_TASKS } from './families/contacts/index.js';
import { SMS_TASKS } from './families/sms/index.js';
import { CLOCK_TASKS } from './families/clock/index.js';
import { MARKOR_TASKS } from './families/markor/index.js';
import { EXPENSE_TASKS } from './families/expense/index.js';
import { CALENDAR_TASKS } from './families/calendar/index.js';
import { TASKS_APP_TASKS } from './families/tasks/index.js';
import { FILES_TASKS } from './families/files/index.js';
import { RECIPES_TASKS } from './families/recipes/index.js';
import { RECORDER_TASKS } from './families/recorder/index.js';
import { MULTI_APP_TASKS } from './families/multi_app/index.js';
import { OPENTRACKS_TASKS } from './families/opentracks/index.js';
import { VLC_TASKS } from './families/vlc/index.js';
import { OSMAND_TASKS } from './families/osmand/index.js';
import { GALLERY_TASKS } from './families/gallery/index.js';
import { DRAW_TASKS } from './families/draw/index.js';
import { JOPLIN_TASKS } from './families/joplin/index.js';
import { RETRO_MUSIC_TASKS } from './families/retro/index.js';
import { CAMERA_TASKS } from './families/camera/index.js';
import { CHROME_TASKS } from './families/chrome/index.js';

/** Every task template, sorted by id. */
export const TASKS: readonly TaskTemplate[] = [
  ...SETTINGS_TASKS, ...CONTACTS_TASKS, ...SMS_TASKS, ...CLOCK_TASKS, ...MARKOR_TASKS, ...EXPENSE_TASKS,
  ...CALENDAR_TASKS, ...TASKS_APP_TASKS, ...FILES_TASKS, ...RECIPES_TASKS, ...RECORDER_TASKS, ...MULTI_APP_TASKS,
  ...OPENTRACKS_TASKS, ...VLC_TASKS, ...OSMAND_TASKS, ...JOPLIN_TASKS, ...RETRO_MUSIC_TASKS,
  ...GALLERY_TASKS, ...DRAW_TASKS,
  ...CAMERA_TASKS, ...CHROME_TASKS,
].sort((a, b) => a.id.localeCompare(b.id));

export class UnknownTemplateError extends Error {
  override name = 'UnknownTemplateError';
  constructor(readonly templateId: string, readonly suggestions: string[]) {
    super(`Unknown task template ${JSON.stringify(templateId)}${suggestions.length ? `; did you mean ${suggestions.join(', ')}?` : ''}`);
  }
}

const BY_ID = new Map(TASKS.map((t) => [t.id, t]));
if (BY_ID.size !== TASKS.length) {
  const seen = new Set<string>();
  const dup = TASKS.find((t) => (seen.has(t.id) ? true : (seen.add(t.id), false)));
  throw new Error(`Duplicate task template id ${dup?.id}`);
}

export function getTemplate(id: string): TaskTemplate {
  const t = BY_ID.get(id);
  if (t) return t;
  const lower = id.toLowerCase();
  const suggestions = TASKS.map((x) => x.id).filter((x) => x.toLowerCase().includes(lower) || lower.includes(x.toLowerCase())).slice(0, 5);
  throw new UnknownTemplateError(id, suggestions);
}
