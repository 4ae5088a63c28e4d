import { afterAll, describe, expect, it } from 'vitest';
import { resetForTask } from '../../core/episode/runner.js';
import { instantiate } from '../../core/tasks/instance.js';
import type { TaskTemplate } from '../../core/tasks/task.js';
import { sqlLiteral } from '../../core/tasks/validators/sqlite.js';
import { AddTask, AddTaskWithDetails, AddTaskWithDueDate, AddTaskWithPriority } from '../../core/tasks/families/tasks/add.js';
import { CompleteAllDueToday, CompleteTask, DeleteCompletedTasks, DeleteTask, RescheduleTask } from '../../core/tasks/families/tasks/modify.js';
import { DueTodayQuestion, HighPriorityQuestion, IncompleteCountQuestion } from '../../core/tasks/families/tasks/questions.js';
import { TASKS_APP_TASKS } from '../../core/tasks/families/tasks/index.js';
import { addTask, TASKS_DB } from '../../core/tasks/families/tasks/tasks-db.js';
import { TODO_TITLES } from '../../core/seed-data/todos.js';
import { device, find, sh, tap, typeInto } from '../helpers/simdroid.js';

/** Each Tasks checker accepts the right end state and rejects near misses. */
const d = device();
afterAll(() => d.close());

const none = { actions: [] };
const answer = (text: string) => ({ actions: [], answer: text });
const DAY = 86_400_000;
const NOW = Date.UTC(2023, 9, 15, 15, 34);

async function start<P>(t: TaskTemplate<P>, seed = 0): Promise<P> {
  const inst = instantiate(t, seed);
  await resetForTask(d, inst);
  return inst.params;
}

/** The first seed whose parameters satisfy a predicate. */
function seedWhere<P>(t: TaskTemplate<P>, pred: (p: P) => boolean): number {
  for (let s = 0; s < 200; s++) if (pred(instantiate(t, s).params)) return s;
  throw new Error(`no seed of ${t.id} fits`);
}

const sql = (q: string) => sh(d, `sqlite3 ${TASKS_DB} ${JSON.stringify(q)}`).trim();
const update = (title: string, set: string) => sql(`UPDATE tasks SET ${set} WHERE title = ${sqlLiteral(title)}`);
const complete = (title: string) => update(title, `completed = ${NOW}, modified = ${NOW}`);
const markDeleted = (title: string) => update(title, `deleted = ${NOW}, modified = ${NOW}`);
const open = () => {
  sh(d, 'am start -n org.tasks/com.todoroo.astrid.activity.MainActivity');
  if (find(d, { text: 'Allow' })) tap(d, { text: 'Allow' });
};
const noon = (ms: number) => Math.floor(ms / DAY) * DAY + 12 * 3_600_000;

describe('Tasks templates', () => {
  it('has at least seven templates with unique ids, a mix of difficulties and kinds, and varied instances', () => {
    expect(TASKS_APP_TASKS.length).toBeGreaterThanOrEqual(7);
    expect(new Set(TASKS_APP_TASKS.map((t) => t.id)).size).toBe(TASKS_APP_TASKS.length);
    expect(new Set(TASKS_APP_TASKS.map((t) => t.difficulty))).toEqual(new Set(['easy', 'medium', 'hard']));
    expect(TASKS_APP_TASKS.filter((t) => t.kind === 'information_retrieval').length).toBeGreaterThanOrEqual(2);
    for (const t of TASKS_APP_TASKS) {
      expect(t.id.startsWith('Tasks')).toBe(true);
      const instructions = new Set([0, 1, 2, 3, 4, 5].map((s) => JSON.stringify(instantiate(t, s).params)));
      expect(instructions.size, t.id).toBeGreaterThan(3);
    }
  });

  it('draws titles that list answers can be split back into', () => {
    expect(new Set(TODO_TITLES.map((t) => t.toLowerCase())).size).toBe(TODO_TITLES.length);
    for (const t of TODO_TITLES) expect(t, t).not.toMatch(/,|;|\band\b/i);
  });
});

describe('TasksAddTask', () => {
  it('accepts the new task whatever the case and spacing of its title', async () => {
    const p = await start(AddTask);
    await addTask(d, { title: `  ${p.title.toUpperCase()} ` });
    expect((await AddTask.check(d, p, none)).ok).toBe(true);
  });

  it('rejects a misspelt title, a duplicate, a completed task, and a touched distractor', async () => {
    let p = await start(AddTask, 1);
    await addTask(d, { title: `${p.title}s` });
    expect((await AddTask.check(d, p, none)).ok).toBe(false);

    p = await start(AddTask, 1);
    await addTask(d, { title: p.title });
    await addTask(d, { title: p.title });
    expect((await AddTask.check(d, p, none)).ok).toBe(false);

    p = await start(AddTask, 1);
    await addTask(d, { title: p.title, completed: true });
    expect((await AddTask.check(d, p, none)).ok).toBe(false);

    p = await start(AddTask, 1);
    await addTask(d, { title: p.title });
    markDeleted(p.tasks[0]!.title);
    expect((await AddTask.check(d, p, none)).ok).toBe(false);
  });
});

describe('TasksAddTaskWithPriority', () => {
  it('rejects the wrong priority chosen in the editor, accepts the right one', async () => {
    let p = await start(AddTaskWithPriority, 2);
    open();
    tap(d, { contentDesc: 'Create new task' });
    typeInto(d, { resourceId: 'title', className: 'android.widget.EditText' }, p.title);
    tap(d, { contentDesc: p.importance === 0 ? 'Medium priority' : 'High priority' });
    tap(d, { contentDesc: 'Save' });
    expect((await AddTaskWithPriority.check(d, p, none)).ok).toBe(false);

    p = await start(AddTaskWithPriority, 2);
    await addTask(d, { title: p.title });
    expect((await AddTaskWithPriority.check(d, p, none)).ok).toBe(false);

    p = await start(AddTaskWithPriority, 2);
    await addTask(d, { title: p.title, importance: p.importance });
    expect((await AddTaskWithPriority.check(d, p, none)).ok).toBe(true);
  });
});

describe('TasksAddTaskWithDueDate', () => {
  it('accepts the right day (with or without a time) and rejects the day after or no date', async () => {
    let p = await start(AddTaskWithDueDate, 3);
    await addTask(d, { title: p.title, dueDate: p.dueDate });
    expect((await AddTaskWithDueDate.check(d, p, none)).ok).toBe(true);

    p = await start(AddTaskWithDueDate, 3);
    await addTask(d, { title: p.title, dueDate: noon(p.dueDate) - 3 * 3_600_000 + 1000 });
    expect((await AddTaskWithDueDate.check(d, p, none)).ok).toBe(true);

    p = await start(AddTaskWithDueDate, 3);
    await addTask(d, { title: p.title, dueDate: p.dueDate + DAY });
    expect((await AddTaskWithDueDate.check(d, p, none)).ok).toBe(false);

    p = await start(AddTaskWithDueDate, 3);
    await addTask(d, { title: p.title });
    expect((await AddTaskWithDueDate.check(d, p, none)).ok).toBe(false);
  });
});

describe('TasksAddTaskWithDetails', () => {
  it('needs the date, the exact time and the description', async () => {
    const at = (p: { dueDate: number; hour: number; minute: number }, minute = p.minute) =>
      Math.floor(p.dueDate / DAY) * DAY + p.hour * 3_600_000 + minute * 60_000 + 1000;
    let p = await start(AddTaskWithDetails, 4);
    await addTask(d, { title: p.title, dueDate: at(p), notes: p.notes });
    expect((await AddTaskWithDetails.check(d, p, none)).ok).toBe(true);

    p = await start(AddTaskWithDetails, 4);
    await addTask(d, { title: p.title, dueDate: at(p, (p.minute + 5) % 60), notes: p.notes });
    expect((await AddTaskWithDetails.check(d, p, none)).ok).toBe(false);

    p = await start(AddTaskWithDetails, 4);
    await addTask(d, { title: p.title, dueDate: noon(p.dueDate), notes: p.notes });
    expect((await AddTaskWithDetails.check(d, p, none)).ok).toBe(false);

    p = await start(AddTaskWithDetails, 4);
    await addTask(d, { title: p.title, dueDate: at(p) });
    expect((await AddTaskWithDetails.check(d, p, none)).ok).toBe(false);
  });
});

describe('TasksCompleteTask', () => {
  it('accepts the target ticked in the list', async () => {
    const p = await start(CompleteTask, 5);
    open();
    for (let i = 0; i < 6 && !find(d, { contentDesc: p.target }); i++) {
      d.inputSync({ kind: 'swipe', x1: 540, y1: 1600, x2: 540, y2: 700, durationMs: 300 });
    }
    tap(d, { contentDesc: p.target, className: 'android.widget.CheckBox' });
    expect((await CompleteTask.check(d, p, none)).ok).toBe(true);
  });

  it('rejects the wrong task, an extra task, or deleting the target instead', async () => {
    const seed = seedWhere(CompleteTask, (p) => p.tasks.some((t) => !t.completed && t.title !== p.target));
    const other = (p: { target: string; tasks: Array<{ title: string; completed: boolean }> }) => p.tasks.find((t) => !t.completed && t.title !== p.target)!.title;
    let p = await start(CompleteTask, seed);
    complete(other(p));
    expect((await CompleteTask.check(d, p, none)).ok).toBe(false);

    p = await start(CompleteTask, seed);
    complete(p.target);
    complete(other(p));
    expect((await CompleteTask.check(d, p, none)).ok).toBe(false);

    p = await start(CompleteTask, seed);
    markDeleted(p.target);
    expect((await CompleteTask.check(d, p, none)).ok).toBe(false);
  });
});

describe('TasksDeleteTask', () => {
  it('accepts the target deleted through the editor, or purged', async () => {
    let p = await start(DeleteTask, 6);
    open();
    for (let i = 0; i < 6 && !find(d, { text: p.target }); i++) {
      d.inputSync({ kind: 'swipe', x1: 540, y1: 1600, x2: 540, y2: 700, durationMs: 300 });
    }
    tap(d, { text: p.target });
    tap(d, { contentDesc: 'Delete task' });
    tap(d, { text: 'OK' });
    expect((await DeleteTask.check(d, p, none)).ok).toBe(true);

    p = await start(DeleteTask, 6);
    sql(`DELETE FROM tasks WHERE title = ${sqlLiteral(p.target)}`);
    expect((await DeleteTask.check(d, p, none)).ok).toBe(true);
  });

  it('rejects deleting another task, or completing the target instead', async () => {
    let p = await start(DeleteTask, 7);
    markDeleted(p.target);
    markDeleted(p.tasks.find((t) => t.title !== p.target)!.title);
    expect((await DeleteTask.check(d, p, none)).ok).toBe(false);

    p = await start(DeleteTask, 7);
    complete(p.target);
    expect((await DeleteTask.check(d, p, none)).ok).toBe(false);
  });
});

describe('TasksRescheduleTask', () => {
  it('accepts the new day and rejects a wrong day or other changes to the task', async () => {
    let p = await start(RescheduleTask, 8);
    update(p.target, `dueDate = ${p.dueDate}`);
    expect((await RescheduleTask.check(d, p, none)).ok).toBe(true);

    p = await start(RescheduleTask, 8);
    update(p.target, `dueDate = ${p.dueDate - DAY}`);
    expect((await RescheduleTask.check(d, p, none)).ok).toBe(false);

    p = await start(RescheduleTask, 8);
    update(p.target, `dueDate = ${p.dueDate}, completed = ${NOW}`);
    expect((await RescheduleTask.check(d, p, none)).ok).toBe(false);

    p = await start(RescheduleTask, 8);
    update(p.target, `dueDate = ${p.dueDate}, importance = ${(p.tasks.find((t) => t.title === p.target)!.importance + 1) % 4}`);
    expect((await RescheduleTask.check(d, p, none)).ok).toBe(false);
  });
});

describe('TasksDeleteCompletedTasks', () => {
  it('accepts "Clear Completed" and rejects leaving one, or deleting an open task too', async () => {
    let p = await start(DeleteCompletedTasks, 9);
    open();
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Clear Completed' });
    tap(d, { text: 'OK' });
    expect((await DeleteCompletedTasks.check(d, p, none)).ok).toBe(true);

    p = await start(DeleteCompletedTasks, 9);
    const done = p.tasks.filter((t) => t.completed).map((t) => t.title);
    done.slice(1).forEach(markDeleted);
    expect((await DeleteCompletedTasks.check(d, p, none)).ok).toBe(false);

    p = await start(DeleteCompletedTasks, 9);
    done.forEach(markDeleted);
    markDeleted(p.tasks.find((t) => !t.completed)!.title);
    expect((await DeleteCompletedTasks.check(d, p, none)).ok).toBe(false);
  });
});

describe('TasksCompleteAllDueToday', () => {
  it('accepts all of today done, rejects one missed or a tomorrow task ticked too', async () => {
    let p = await start(CompleteAllDueToday, 10);
    p.today.forEach(complete);
    expect((await CompleteAllDueToday.check(d, p, none)).ok).toBe(true);

    p = await start(CompleteAllDueToday, 10);
    p.today.slice(1).forEach(complete);
    expect((await CompleteAllDueToday.check(d, p, none)).ok).toBe(false);

    const seed = seedWhere(CompleteAllDueToday, (q) => q.tasks.some((t) => !t.completed && t.dueDate > 0 && !q.today.includes(t.title)));
    p = await start(CompleteAllDueToday, seed);
    p.today.forEach(complete);
    complete(p.tasks.find((t) => !t.completed && t.dueDate > 0 && !p.today.includes(t.title))!.title);
    expect((await CompleteAllDueToday.check(d, p, none)).ok).toBe(false);
  });
});

describe('Tasks questions', () => {
  it('TasksDueTodayQuestion wants exactly the open tasks due today, in any order', async () => {
    const p = await start(DueTodayQuestion, 11);
    const doneToday = p.tasks.find((t) => t.completed && !p.today.includes(t.title) && Math.floor(t.dueDate / DAY) === Math.floor(NOW / DAY))!;
    expect((await DueTodayQuestion.check(d, p, answer([...p.today].reverse().join(', ')))).ok).toBe(true);
    expect((await DueTodayQuestion.check(d, p, answer(p.today.slice(1).join(', ')))).ok).toBe(false);
    expect((await DueTodayQuestion.check(d, p, answer([...p.today, doneToday.title].join(', ')))).ok).toBe(false);
    expect((await DueTodayQuestion.check(d, p, none)).ok).toBe(false);
  });

  it('TasksIncompleteCountQuestion wants the number of open tasks only', async () => {
    const p = await start(IncompleteCountQuestion, 12);
    expect((await IncompleteCountQuestion.check(d, p, answer(String(p.open)))).ok).toBe(true);
    expect((await IncompleteCountQuestion.check(d, p, answer(String(p.tasks.length)))).ok).toBe(false);
    expect((await IncompleteCountQuestion.check(d, p, answer(String(p.open + 1)))).ok).toBe(false);
  });

  it('TasksHighPriorityQuestion wants the open high-priority tasks, not the completed one nor a medium one', async () => {
    const seed = seedWhere(HighPriorityQuestion, (q) => q.tasks.some((t) => t.importance === 1 && !t.completed));
    const p = await start(HighPriorityQuestion, seed);
    const doneHigh = p.tasks.find((t) => t.completed && t.importance === 0)!;
    const medium = p.tasks.find((t) => t.importance === 1 && !t.completed)!;
    expect((await HighPriorityQuestion.check(d, p, answer(p.high.join(' and ')))).ok).toBe(true);
    expect((await HighPriorityQuestion.check(d, p, answer([...p.high, doneHigh.title].join(', ')))).ok).toBe(false);
    expect((await HighPriorityQuestion.check(d, p, answer([...p.high, medium.title].join(', ')))).ok).toBe(false);
  });
});
