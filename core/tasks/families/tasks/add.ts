import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import { dateParts, longDate, time12 } from '../../../seed-data/dates.js';
import { TODO_NOTES } from '../../../seed-data/todos.js';
import { IMPORTANCE_WORD, listTasks, type TaskRecord } from './tasks-db.js';
import { dueWords, othersUntouchedCondition, drawTitles, dueInDaysFromToday, editorOpen, installSeeds, newRows, norm, SeedTask, seedTasks, stateReached, tasksOpen, titleTyped } from './common.js';
import { createTask, openTasks } from './steps.js';
import { condition, holds, listed, verdictOf, type CheckCondition, type CheckVerdict } from '../../verdict.js';

/**
 * Creating tasks through the editor: a plain one, one with a priority, one due on a date (the date
 * picker), and one with a date, a time (the time picker) and a description. Distractor tasks are
 * already in the list and must stay as they were; exactly one task may be added.
 */
const Base = { title: z.string().min(1), tasks: z.array(SeedTask) };

function distractors(rng: Parameters<TaskTemplate['generate']>[0], count: [number, number]) {
  const titles = drawTitles(rng, rng.int(count[0], count[1]) + 1);
  return { title: titles[0]!, tasks: seedTasks(rng, titles.slice(1), { completedChance: 0.2 }) };
}

/**
 * The single task the agent added: one new task with this title, the seeds untouched, the new
 * task open; then `fields` on the new task, where there is one.
 */
function addedVerdict(rows: readonly TaskRecord[], p: { title: string; tasks: SeedTask[] }, fields: (r: TaskRecord) => CheckCondition[] = () => []): CheckVerdict {
  const fresh = newRows(rows, p.tasks);
  const one = fresh.length === 1 && norm(fresh[0]!.title) === norm(p.title);
  const conditions = [
    holds(`one new task "${p.title}"`, one, { expected: JSON.stringify(p.title), found: listed(fresh.map((r) => r.title)) }),
    othersUntouchedCondition(rows, p.tasks),
  ];
  if (one) conditions.push(condition(`task "${p.title}" open`, 'open', fresh[0]!.completed === 0 ? 'open' : 'completed'), ...fields(fresh[0]!));
  return verdictOf(conditions);
}

const dueDayCondition = (r: TaskRecord, p: { title: string; dueDate: number }) =>
  holds(`task "${p.title}" due ${dueWords(p.dueDate)}`, dueDayIs(r, p.dueDate), { expected: dueWords(p.dueDate), found: dueWords(r.dueDate) });

const Add = z.object(Base);

export const AddTask = defineTask({
  id: 'TasksAddTask',
  apps: ['Tasks'],
  difficulty: 'easy',
  tags: ['data_entry'],
  kind: 'completion',
  template: "Add a task in Tasks titled '{title}'.",
  params: Add,
  generate: (rng) => distractors(rng, [2, 6]),
  initialize: async (device, p) => installSeeds(device, p.tasks),
  check: async (device, p) => addedVerdict(await listTasks(device), p),
  subgoals: (p) => [tasksOpen, editorOpen, titleTyped(p.title), stateReached('task saved', (rows) => addedVerdict(rows, p).ok)],
  *oracle(p, ui) {
    yield* openTasks(ui);
    yield* createTask(ui, { title: p.title });
    yield ui.complete();
  },
});

const WithPriority = z.object({ ...Base, importance: z.int().min(0).max(2) });

const priorityVerdict = (rows: readonly TaskRecord[], p: z.infer<typeof WithPriority>) => addedVerdict(rows, p, (r) => [
  condition(`task "${p.title}" ${IMPORTANCE_WORD[p.importance]} priority`, IMPORTANCE_WORD[p.importance]!, IMPORTANCE_WORD[r.importance] ?? String(r.importance)),
]);

export const AddTaskWithPriority = defineTask({
  id: 'TasksAddTaskWithPriority',
  apps: ['Tasks'],
  difficulty: 'medium',
  tags: ['data_entry', 'complex_ui'],
  kind: 'completion',
  template: "In Tasks, add a {priority}-priority task titled '{title}'.",
  params: WithPriority,
  generate: (rng) => ({ ...distractors(rng, [2, 6]), importance: rng.int(0, 2) }),
  instruction: (p) => `In Tasks, add a ${IMPORTANCE_WORD[p.importance]}-priority task titled '${p.title}'.`,
  initialize: async (device, p) => installSeeds(device, p.tasks),
  check: async (device, p) => priorityVerdict(await listTasks(device), p),
  subgoals: (p) => [
    tasksOpen, editorOpen, titleTyped(p.title),
    stateReached(`task saved with ${IMPORTANCE_WORD[p.importance]} priority`, (rows) => priorityVerdict(rows, p).ok),
  ],
  *oracle(p, ui) {
    yield* openTasks(ui);
    yield* createTask(ui, { title: p.title, importance: p.importance });
    yield ui.complete();
  },
});

const WithDue = z.object({ ...Base, dueDate: z.int().positive() });

/** Same day as the target (any time of day is fine: the instruction names a date only). */
function dueDayIs(r: TaskRecord | undefined, dueDate: number): boolean {
  return r !== undefined && r.dueDate > 0 && Math.floor(r.dueDate / 86_400_000) === Math.floor(dueDate / 86_400_000);
}

const dueVerdict = (rows: readonly TaskRecord[], p: z.infer<typeof WithDue>) => addedVerdict(rows, p, (r) => [dueDayCondition(r, p)]);

export const AddTaskWithDueDate = defineTask({
  id: 'TasksAddTaskWithDueDate',
  apps: ['Tasks'],
  difficulty: 'medium',
  tags: ['data_entry', 'date_time'],
  kind: 'completion',
  template: "In Tasks, add a task titled '{title}' that is due on {date}.",
  params: WithDue,
  // Mostly later this month or next, so the picker sometimes has to change month.
  generate: (rng) => ({ ...distractors(rng, [2, 6]), dueDate: dueInDaysFromToday(rng.int(1, 45)) }),
  instruction: (p) => `In Tasks, add a task titled '${p.title}' that is due on ${longDate(dateParts(p.dueDate))}.`,
  initialize: async (device, p) => installSeeds(device, p.tasks),
  check: async (device, p) => dueVerdict(await listTasks(device), p),
  subgoals: (p) => [tasksOpen, editorOpen, titleTyped(p.title), stateReached('task saved with the due date', (rows) => dueVerdict(rows, p).ok)],
  *oracle(p, ui) {
    yield* openTasks(ui);
    yield* createTask(ui, { title: p.title, due: dateParts(p.dueDate) });
    yield ui.complete();
  },
});

const Details = z.object({
  ...Base,
  dueDate: z.int().positive(),
  hour: z.int().min(0).max(23),
  minute: z.int().min(0).max(59),
  notes: z.string().min(1),
});

const hhmm = (h: number, m: number) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;

/** The new task's details: due day, due time, description. */
function detailsConditions(r: TaskRecord, p: z.infer<typeof Details>): CheckCondition[] {
  const d = new Date(r.dueDate);
  const timeOk = r.dueDate % 60000 > 0 && d.getUTCHours() === p.hour && d.getUTCMinutes() === p.minute;
  return [
    dueDayCondition(r, p),
    holds(`task "${p.title}" due at ${hhmm(p.hour, p.minute)}`, timeOk, { expected: hhmm(p.hour, p.minute), found: r.dueDate % 60000 > 0 ? hhmm(d.getUTCHours(), d.getUTCMinutes()) : 'no due time' }),
    holds(`task "${p.title}" description`, norm(r.notes) === norm(p.notes), { expected: JSON.stringify(p.notes), found: JSON.stringify(r.notes) }),
  ];
}

const detailsVerdict = (rows: readonly TaskRecord[], p: z.infer<typeof Details>) => addedVerdict(rows, p, (r) => detailsConditions(r, p));

export const AddTaskWithDetails = defineTask({
  id: 'TasksAddTaskWithDetails',
  maxSteps: 30,
  apps: ['Tasks'],
  difficulty: 'hard',
  tags: ['data_entry', 'date_time', 'complex_ui'],
  kind: 'completion',
  template: "In Tasks, create a task '{title}' due on {date} at {time}, with the description '{notes}'.",
  params: Details,
  generate: (rng) => ({
    ...distractors(rng, [3, 7]),
    dueDate: dueInDaysFromToday(rng.int(0, 30)),
    hour: rng.int(7, 21),
    minute: rng.pick([0, 10, 15, 20, 30, 40, 45, 50]),
    notes: rng.pick(TODO_NOTES),
  }),
  instruction: (p) => `In Tasks, create a task '${p.title}' due on ${longDate(dateParts(p.dueDate))} at ${time12(p.hour, p.minute)}, with the description '${p.notes}'.`,
  initialize: async (device, p) => installSeeds(device, p.tasks),
  check: async (device, p) => detailsVerdict(await listTasks(device), p),
  subgoals: (p) => [
    tasksOpen, editorOpen, titleTyped(p.title),
    stateReached('task saved with date, time and description', (rows) => detailsVerdict(rows, p).ok),
  ],
  *oracle(p, ui) {
    yield* openTasks(ui);
    yield* createTask(ui, { title: p.title, due: dateParts(p.dueDate), time: { hour: p.hour, minute: p.minute }, notes: p.notes });
    yield ui.complete();
  },
});

export const ADD_TASKS: readonly TaskTemplate[] = [AddTask, AddTaskWithPriority, AddTaskWithDueDate, AddTaskWithDetails];
