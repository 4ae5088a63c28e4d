import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import { dateParts, longDate } from '../../../seed-data/dates.js';
import { onScreen } from '../../validators/ui.js';
import { pickDate } from '../../pickers.js';
import { IMPORTANCE_WORD, listTasks, type TaskRecord } from './tasks-db.js';
import { dueWords, noNewTasks, othersUntouchedCondition, taskState, drawTitles, dueInDaysFromToday, dueTodayList, DueTodayList, editorOpen, installSeeds, isDeleted, rowFor, SeedTask, seedTasks, stateReached, tasksOpen, type SeedOptions } from './common.js';
import { completeTask, isTodayLabel, openTask, openTasks, visibleRows } from './steps.js';
import { condition, eachHolds, holds, verdictOf, type CheckCondition, type CheckVerdict } from '../../verdict.js';

/**
 * Changing existing tasks: completing one (sometimes below the fold), deleting one, moving a due
 * date, clearing the completed ones, and completing everything due today. Everything the
 * instruction does not name must be left exactly as seeded, and no task may be added.
 */
const Targeted = z.object({ target: z.string().min(1), tasks: z.array(SeedTask) });
type TargetedP = z.infer<typeof Targeted>;

/** A target among `count` incomplete-or-not distractors, shuffled into the list. */
function targeted(rng: Parameters<TaskTemplate['generate']>[0], count: [number, number], opts: SeedOptions = {}): TargetedP {
  const titles = drawTitles(rng, rng.int(count[0], count[1]) + 1);
  const tasks = seedTasks(rng, titles, { completedChance: 0.15, ...opts });
  tasks[0]!.completed = false;
  return { target: titles[0]!, tasks: rng.shuffle(tasks) };
}

const target = (p: TargetedP): SeedTask => p.tasks.find((t) => t.title === p.target)!;

/** The target's conditions, then the other tasks untouched and nothing added. */
function onlyTargetVerdict(rows: readonly TaskRecord[], p: TargetedP, targetConditions: readonly CheckCondition[]): CheckVerdict {
  return verdictOf([...targetConditions, othersUntouchedCondition(rows, p.tasks, [p.target]), noNewTasks(rows, p.tasks)]);
}

/** The target still there (not deleted) with its priority and, unless `dueChanges`, its due date as seeded. */
function targetKept(rows: readonly TaskRecord[], p: TargetedP, r: TaskRecord | undefined, o: { dueChanges?: boolean } = {}): CheckCondition[] {
  const s = target(p);
  if (r === undefined || r.deleted > 0) return [];
  return [
    condition(`task "${p.target}" priority unchanged`, IMPORTANCE_WORD[s.importance] ?? String(s.importance), IMPORTANCE_WORD[r.importance] ?? String(r.importance)),
    ...(o.dueChanges ? [] : [holds(`task "${p.target}" due date unchanged`, r.dueDate === s.dueDate, { expected: dueWords(s.dueDate), found: dueWords(r.dueDate) })]),
  ];
}

function completedVerdict(rows: readonly TaskRecord[], p: TargetedP): CheckVerdict {
  const r = rowFor(rows, p.target);
  const done = r !== undefined && r.deleted === 0 && r.completed > 0;
  return onlyTargetVerdict(rows, p, [holds(`task "${p.target}" completed`, done, { expected: 'completed', found: taskState(rows, p.target) }), ...targetKept(rows, p, r)]);
}

export const CompleteTask = defineTask({
  id: 'TasksCompleteTask',
  apps: ['Tasks'],
  difficulty: 'easy',
  tags: ['data_edit', 'needs_scrolling'],
  kind: 'completion',
  template: "Mark the task '{target}' as completed in Tasks.",
  params: Targeted,
  generate: (rng) => {
    const p = targeted(rng, [8, 20]);
    // Often undated and unprioritised: Smart sort puts it at the bottom, below the fold.
    if (rng.chance(0.5)) Object.assign(target(p), { dueDate: 0, importance: 3 });
    return p;
  },
  initialize: async (device, p) => installSeeds(device, p.tasks),
  check: async (device, p) => completedVerdict(await listTasks(device), p),
  subgoals: (p) => [tasksOpen, stateReached(`"${p.target}" completed`, (rows) => completedVerdict(rows, p).ok)],
  *oracle(p, ui) {
    yield* openTasks(ui);
    yield* completeTask(ui, p.target);
    yield ui.complete();
  },
});

function deletedVerdict(rows: readonly TaskRecord[], p: TargetedP): CheckVerdict {
  return onlyTargetVerdict(rows, p, [holds(`task "${p.target}" deleted`, isDeleted(rowFor(rows, p.target)), { expected: 'deleted', found: taskState(rows, p.target) })]);
}

export const DeleteTask = defineTask({
  id: 'TasksDeleteTask',
  apps: ['Tasks'],
  difficulty: 'medium',
  tags: ['deletion', 'dialog'],
  kind: 'completion',
  template: "Delete the task '{target}' in Tasks.",
  params: Targeted,
  generate: (rng) => targeted(rng, [4, 12]),
  initialize: async (device, p) => installSeeds(device, p.tasks),
  check: async (device, p) => deletedVerdict(await listTasks(device), p),
  subgoals: (p) => [
    tasksOpen, editorOpen,
    { name: 'delete confirmation shown', check: async ({ obs }) => onScreen(obs, { text: 'Delete this task?' }) },
    stateReached(`"${p.target}" deleted`, (rows) => deletedVerdict(rows, p).ok),
  ],
  *oracle(p, ui) {
    yield* openTasks(ui);
    yield* openTask(ui, p.target);
    yield ui.tap({ contentDesc: 'Delete task' });
    yield ui.tap({ text: 'OK' });
    yield ui.complete();
  },
});

const Reschedule = z.object({ ...Targeted.shape, dueDate: z.int().positive() });
type RescheduleP = z.infer<typeof Reschedule>;

function rescheduledVerdict(rows: readonly TaskRecord[], p: RescheduleP): CheckVerdict {
  const r = rowFor(rows, p.target);
  const s = target(p);
  const there = r !== undefined && r.deleted === 0;
  const conditions = [holds(`task "${p.target}" kept`, there, { expected: s.completed ? 'completed' : 'open', found: taskState(rows, p.target) })];
  if (there) {
    conditions.push(condition(`task "${p.target}" ${s.completed ? 'still completed' : 'still open'}`, s.completed ? 'completed' : 'open', r.completed > 0 ? 'completed' : 'open'));
    conditions.push(...targetKept(rows, p, r, { dueChanges: true }));
    conditions.push(holds(`task "${p.target}" due ${dueWords(p.dueDate)}`, r.dueDate > 0 && Math.floor(r.dueDate / 86_400_000) === Math.floor(p.dueDate / 86_400_000),
      { expected: dueWords(p.dueDate), found: dueWords(r.dueDate) }));
  }
  return onlyTargetVerdict(rows, p, conditions);
}

export const RescheduleTask = defineTask({
  id: 'TasksRescheduleTask',
  apps: ['Tasks'],
  difficulty: 'medium',
  tags: ['data_edit', 'date_time'],
  kind: 'completion',
  template: "In Tasks, change the due date of '{target}' to {date}.",
  params: Reschedule,
  generate: (rng) => {
    const p = targeted(rng, [4, 9]);
    const from = rng.int(-2, 6);
    let to = rng.int(2, 40);
    if (to === from) to += 1;
    target(p).dueDate = dueInDaysFromToday(from);
    return { ...p, dueDate: dueInDaysFromToday(to) };
  },
  instruction: (p) => `In Tasks, change the due date of '${p.target}' to ${longDate(dateParts(p.dueDate))}.`,
  initialize: async (device, p) => installSeeds(device, p.tasks),
  check: async (device, p) => rescheduledVerdict(await listTasks(device), p),
  subgoals: (p) => [tasksOpen, editorOpen, stateReached('due date changed', (rows) => rescheduledVerdict(rows, p).ok)],
  *oracle(p, ui) {
    yield* openTasks(ui);
    yield* openTask(ui, p.target);
    yield ui.tap({ contentDesc: 'Due date' });
    yield* pickDate(ui, dateParts(p.dueDate));
    yield ui.tap({ contentDesc: 'Save' });
    yield ui.complete();
  },
});

const Bulk = z.object({ tasks: z.array(SeedTask) });
type BulkP = z.infer<typeof Bulk>;

/** Completed seeds gone, the rest unchanged, nothing added. */
function clearedVerdict(rows: readonly TaskRecord[], p: BulkP): CheckVerdict {
  const done = p.tasks.filter((t) => t.completed).map((t) => t.title);
  return verdictOf([
    eachHolds(`the ${done.length} completed tasks deleted`, done, (t) => isDeleted(rowFor(rows, t)), (t) => `${t} (${taskState(rows, t)})`),
    othersUntouchedCondition(rows, p.tasks, done), noNewTasks(rows, p.tasks),
  ]);
}

export const DeleteCompletedTasks = defineTask({
  id: 'TasksDeleteCompletedTasks',
  apps: ['Tasks'],
  difficulty: 'medium',
  tags: ['deletion', 'dialog', 'complex_ui'],
  kind: 'completion',
  template: 'Delete all completed tasks in Tasks, and keep the others.',
  params: Bulk,
  generate: (rng) => {
    const titles = drawTitles(rng, rng.int(6, 12));
    const tasks = seedTasks(rng, titles);
    const nDone = rng.int(2, 4);
    tasks.forEach((t, i) => { t.completed = i < nDone; });
    return { tasks: rng.shuffle(tasks) };
  },
  initialize: async (device, p) => installSeeds(device, p.tasks),
  check: async (device, p) => clearedVerdict(await listTasks(device), p),
  subgoals: (p) => [
    tasksOpen,
    { name: 'clear confirmation shown', check: async ({ obs }) => onScreen(obs, { text: 'Clear completed tasks?' }) },
    stateReached('completed tasks deleted', (rows) => clearedVerdict(rows, p).ok),
  ],
  *oracle(_p, ui) {
    yield* openTasks(ui);
    yield ui.tap({ contentDesc: 'More options' });
    yield ui.tap({ text: 'Clear Completed' });
    yield ui.tap({ text: 'OK' });
    yield ui.complete();
  },
});

function allTodayVerdict(rows: readonly TaskRecord[], p: DueTodayList): CheckVerdict {
  const done = (t: string) => {
    const r = rowFor(rows, t);
    return r !== undefined && r.deleted === 0 && r.completed > 0;
  };
  return verdictOf([
    eachHolds(`the ${p.today.length} tasks due today completed`, p.today, done, (t) => `${t} (${taskState(rows, t)})`),
    othersUntouchedCondition(rows, p.tasks, p.today), noNewTasks(rows, p.tasks),
  ]);
}

export const CompleteAllDueToday = defineTask({
  id: 'TasksCompleteAllDueToday',
  maxSteps: 30,
  apps: ['Tasks'],
  difficulty: 'hard',
  tags: ['data_edit', 'date_time', 'needs_scrolling', 'screen_reading'],
  kind: 'completion',
  template: 'In Tasks, mark every task that is due today as completed.',
  params: DueTodayList,
  generate: (rng) => dueTodayList(rng, [12, 22]),
  initialize: async (device, p) => installSeeds(device, p.tasks),
  check: async (device, p) => allTodayVerdict(await listTasks(device), p),
  subgoals: (p) => [
    tasksOpen,
    stateReached('one task due today completed', (rows) => p.today.some((t) => (rowFor(rows, t)?.completed ?? 0) > 0)),
    stateReached('all tasks due today completed', (rows) => allTodayVerdict(rows, p).ok),
  ],
  *oracle(_p, ui) {
    yield* openTasks(ui);
    // Tick the first row due today on screen, again and again (ticked rows leave the list), then
    // scroll on until the end of the list.
    for (let guard = 0; guard < 60; guard++) {
      const row = visibleRows(ui).find((r) => !r.checked && isTodayLabel(r.due));
      if (row) {
        yield ui.tap({ className: 'android.widget.CheckBox', contentDesc: row.title });
        continue;
      }
      if (!ui.find({ resourceId: 'recycler_view' })?.node.scrollable) break;
      const before = ui.fingerprint();
      yield ui.scroll('down', { resourceId: 'recycler_view' });
      if (ui.fingerprint() === before) break;
    }
    yield ui.complete();
  },
});

export const MODIFY_TASKS: readonly TaskTemplate[] = [CompleteTask, DeleteTask, RescheduleTask, DeleteCompletedTasks, CompleteAllDueToday];
