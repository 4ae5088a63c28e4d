import { z } from 'zod';
import type { Device } from '../../../device/device.js';
import type { Rng } from '../../../util/rng.js';
import { DEVICE_NOW, DAY_MS, dateParts } from '../../../seed-data/dates.js';
import { TODO_NOTES, TODO_TITLES } from '../../../seed-data/todos.js';
import type { Subgoal } from '../../task.js';
import { fieldHolds, inActivity, onScreen } from '../../validators/ui.js';
import { addTasks, clearTasks, dueOn, listTasks, TASKS_PKG, type TaskRecord } from './tasks-db.js';
import { condition, eachHolds, listed, type CheckCondition } from '../../verdict.js';

/**
 * What the Tasks templates share: the seeded task list (targets and distractors, as parameters),
 * generating it, setting it up, and strict comparisons of the end state with it.
 */
export const SeedTask = z.object({
  title: z.string().min(1),
  notes: z.string(),
  importance: z.int().min(0).max(3),
  /** Tasks.org encoding; 0 = no due date. */
  dueDate: z.int().min(0),
  completed: z.boolean(),
});
export type SeedTask = z.infer<typeof SeedTask>;

export const PRIORITY_DESC = ['High priority', 'Medium priority', 'Low priority', 'No priority'] as const;

/** A due date `days` from today, date-only or (with `time`) at a time. */
export function dueInDaysFromToday(days: number, time?: { hour: number; minute: number }): number {
  return dueOn(dateParts(DEVICE_NOW + days * DAY_MS), time);
}

export interface SeedOptions {
  /** Due dates are drawn from these day offsets (0 = today); null entries mean "no due date". */
  days?: ReadonlyArray<number | null>;
  /** Chance that a due date has a time. */
  timeChance?: number;
  completedChance?: number;
  notesChance?: number;
  /** Importance values to draw from (default all four). */
  importances?: readonly number[];
}

const DEFAULT_DAYS: ReadonlyArray<number | null> = [null, null, null, -3, -1, 1, 2, 3, 5, 8, 12, 20, 34];

/** Draws a task for each title. */
export function seedTasks(rng: Rng, titles: readonly string[], o: SeedOptions = {}): SeedTask[] {
  return titles.map((title) => {
    const day = rng.pick(o.days ?? DEFAULT_DAYS);
    const time = rng.chance(o.timeChance ?? 0.3) ? { hour: rng.int(7, 20), minute: rng.pick([0, 15, 30, 45]) } : undefined;
    return {
      title,
      notes: rng.chance(o.notesChance ?? 0.3) ? rng.pick(TODO_NOTES) : '',
      importance: rng.pick(o.importances ?? [0, 1, 2, 3]),
      dueDate: day === null ? 0 : dueInDaysFromToday(day, time),
      completed: rng.chance(o.completedChance ?? 0),
    };
  });
}

/** `count` distinct titles from the to-do vocabulary. */
export function drawTitles(rng: Rng, count: number): string[] {
  return rng.sample(TODO_TITLES, count);
}

/** Tasks due today among distractors: the targets' titles and the whole seeded list. */
export const DueTodayList = z.object({ today: z.array(z.string().min(1)).min(1), tasks: z.array(SeedTask) });
export type DueTodayList = z.infer<typeof DueTodayList>;

/**
 * A list with a few incomplete tasks due today (some at a time, which the list shows as just the
 * time), one already completed today, and distractors due yesterday, tomorrow, later or never.
 */
export function dueTodayList(rng: Rng, total: [number, number]): DueTodayList {
  const titles = drawTitles(rng, rng.int(total[0], total[1]));
  const nToday = rng.int(2, 4);
  const tasks = titles.map((title, i) => {
    if (i < nToday) return seedTasks(rng, [title], { days: [0], timeChance: 0.4 })[0]!;
    if (i === nToday) return { ...seedTasks(rng, [title], { days: [0] })[0]!, completed: true };
    return seedTasks(rng, [title], { days: [null, -2, -1, 1, 1, 2, 4, 9, 15], completedChance: 0.1 })[0]!;
  });
  return { today: titles.slice(0, nToday), tasks: rng.shuffle(tasks) };
}

/** Clears Tasks and inserts the seeded tasks in order (shuffle them when generating). */
export async function installSeeds(device: Device, seeds: readonly SeedTask[]): Promise<void> {
  await clearTasks(device);
  await addTasks(device, seeds.map((s, i) => ({
    title: s.title, notes: s.notes, importance: s.importance, dueDate: s.dueDate, completed: s.completed,
    created: DEVICE_NOW - (seeds.length - i) * 3_600_000,
  })));
}

export function norm(s: string): string {
  return s.trim().replace(/\s+/g, ' ').toLowerCase();
}

export function isDeleted(r: TaskRecord | undefined): boolean {
  return r === undefined || r.deleted > 0;
}

/** The one row with this title (several, or none, is undefined). */
export function rowFor(rows: readonly TaskRecord[], title: string): TaskRecord | undefined {
  const hits = rows.filter((r) => norm(r.title) === norm(title));
  return hits.length === 1 ? hits[0] : undefined;
}

/** A row still holds exactly what was seeded (and is not deleted). */
function matchesSeed(r: TaskRecord | undefined, s: SeedTask): boolean {
  return r !== undefined && r.deleted === 0 && r.title === s.title && norm(r.notes) === norm(s.notes)
    && r.importance === s.importance && r.dueDate === s.dueDate && (r.completed > 0) === s.completed;
}

/** Visible rows that are not one of the seeds (tasks the agent created). */
export function newRows(rows: readonly TaskRecord[], seeds: readonly SeedTask[]): TaskRecord[] {
  const known = new Set(seeds.map((s) => norm(s.title)));
  return rows.filter((r) => r.deleted === 0 && !known.has(norm(r.title)));
}

/** Reads the tasks and runs a predicate over them (for checks and subgoals). */
export async function withTasks<T>(device: Device, f: (rows: TaskRecord[]) => T): Promise<T> {
  return f(await listTasks(device));
}

// ------------------------------------------------------------------ subgoals

export const tasksOpen: Subgoal = {
  name: 'Tasks open',
  check: async ({ obs }) => inActivity(obs, TASKS_PKG),
};

export const editorOpen: Subgoal = {
  name: 'task editor open',
  check: async ({ obs }) => inActivity(obs, TASKS_PKG) && onScreen(obs, { contentDesc: 'Save' }) && onScreen(obs, { resourceId: 'title', className: 'android.widget.EditText' }),
};

export function titleTyped(title: string): Subgoal {
  return { name: `title "${title}" typed`, check: async ({ obs }) => fieldHolds(obs, title) };
}

export function stateReached(name: string, f: (rows: TaskRecord[]) => boolean): Subgoal {
  return { name, check: async ({ device }) => withTasks(device, f) };
}

// ------------------------------------------------------------------ reasons

/** A due date's day in words ("2024-03-05"), or "no due date". */
export function dueWords(dueDate: number): string {
  return dueDate > 0 ? new Date(dueDate).toISOString().slice(0, 10) : 'no due date';
}

/** What the list holds under a title: "open", "completed", "deleted", "no task" or "3 tasks". */
export function taskState(rows: readonly TaskRecord[], title: string): string {
  const hits = rows.filter((r) => norm(r.title) === norm(title));
  if (hits.length !== 1) return hits.length === 0 ? 'no task' : `${hits.length} tasks`;
  const r = hits[0]!;
  return r.deleted > 0 ? 'deleted' : r.completed > 0 ? 'completed' : 'open';
}

/** Every seed except those titled in `except` is present and unchanged: found names the seeds that changed or went. */
export function othersUntouchedCondition(rows: readonly TaskRecord[], seeds: readonly SeedTask[], except: readonly string[] = []): CheckCondition {
  const skip = new Set(except.map(norm));
  const kept = seeds.filter((s) => !skip.has(norm(s.title)));
  return eachHolds(`the ${kept.length} ${except.length ? 'other ' : ''}tasks unchanged`, kept, (s) => matchesSeed(rowFor(rows, s.title), s), (s) => s.title);
}

/** No task added beyond the seeds: found names the new ones. */
export function noNewTasks(rows: readonly TaskRecord[], seeds: readonly SeedTask[]): CheckCondition {
  return condition('no new tasks', 'none', listed(newRows(rows, seeds).map((r) => r.title)));
}
