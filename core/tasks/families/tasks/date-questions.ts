import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import { defineTask, type Difficulty, type TaskTemplate } from '../../task.js';
import { dateParts, DAY_MS, DEVICE_NOW, msOf, type DateParts } from '../../../seed-data/dates.js';
import type { Rng } from '../../../util/rng.js';
import { monthNumber } from '../../../util/calendar-names.js';
import type { UiElement } from '../../../a11y/ui-tree.js';
import { OracleError, screenSummary, type OracleUi } from '../../oracle.js';
import { resolveDay, wordDay, type BareWeekday } from '../../day-phrases.js';
import { answerListVerdict, answerVerdict } from '../../validators/answers.js';
import { drawTitles, installSeeds, PRIORITY_DESC, SeedTask, seedTasks, tasksOpen } from './common.js';
import { openTasks, sortBy, visibleRows, type ListRow } from './steps.js';

/**
 * Questions about due dates, worded as AndroidWorld's Tasks information-retrieval templates word
 * them (TasksDueOnDate, TasksHighPriorityTasksDueOnDate, TasksDueNextWeek, TasksCompletedTasksForDate,
 * TasksIncompleteTasksOnDate): tasks due around today, half of the others done. The list says
 * "Today", "Tmrw", "Yest", a weekday within six days either side (the same word for a day before and
 * a day after), or "Oct 25". The oracle reads today in a new task's date picker (it opens on today),
 * reads the rows, and where a weekday could be either day, opens the task's date picker to see which.
 */
const Params = z.object({ day: z.string(), tasks: z.array(SeedTask) });
type P = z.infer<typeof Params>;

const TODAY = dateParts(DEVICE_NOW);
const WEEKDAY_ABBR = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTH_ABBR = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const shift = (d: DateParts, n: number) => dateParts(msOf(d) + n * DAY_MS);
const same = (a: DateParts, b: DateParts) => a.year === b.year && a.month === b.month && a.day === b.day;
const dueDay = (t: SeedTask) => (t.dueDate > 0 ? dateParts(t.dueDate) : null);

/** The days a list label can mean: one, or two for a weekday (this week's past one and the coming one); none without a due date. */
export function labelDays(label: string, today: DateParts): DateParts[] {
  const l = label.trim();
  if (!l) return [];
  if (/^\d{1,2}:\d{2}( [AP]M)?$/.test(l) || l.startsWith('Today')) return [today];
  if (l.startsWith('Tmrw')) return [shift(today, 1)];
  if (l.startsWith('Yest')) return [shift(today, -1)];
  const wd = WEEKDAY_ABBR.indexOf(l.slice(0, 3));
  if (wd >= 0 && (l.length === 3 || l[3] === ' ')) {
    const dow = new Date(msOf(today)).getUTCDay();
    const ahead = (wd - dow + 7) % 7;
    return [shift(today, ahead - 7), shift(today, ahead)].filter((d) => Math.abs(Math.round((msOf(d) - msOf(today)) / DAY_MS)) <= 6);
  }
  const m = /^(\w{3}) (\d{1,2})(?:, (\d{4}))?/.exec(l);
  if (m && MONTH_ABBR.includes(m[1]!)) return [{ year: m[3] ? Number(m[3]) : today.year, month: MONTH_ABBR.indexOf(m[1]!) + 1, day: Number(m[2]) }];
  throw new OracleError(`Unread due date label ${JSON.stringify(label)}`, '');
}

/** The day a date picker has selected ("24 October 2023"). */
function pickerDay(ui: OracleUi): DateParts {
  const el = ui.obs.elements.find((e) => e.node.selected && /^\d{1,2} \w+ \d{4}$/.test(e.node.contentDesc));
  if (!el) throw new OracleError('No day selected in the date picker', screenSummary(ui.obs));
  const [d, month, y] = el.node.contentDesc.split(' ');
  return { year: Number(y), month: monthNumber(month!), day: Number(d) };
}

/** Today, as a new task's date picker opens on it (the new task is then dropped: nothing was entered). */
function* todayInTasks(ui: OracleUi): Generator<Action, DateParts, void> {
  yield ui.tap({ contentDesc: 'Create new task' });
  yield ui.tap({ contentDesc: 'Due date' });
  const today = pickerDay(ui);
  yield ui.tap({ text: 'Cancel' });
  yield* leaveEditor(ui);
  return today;
}

/** Back out of the task editor (the keyboard first, if it is up); nothing was changed, so nothing is asked. */
function* leaveEditor(ui: OracleUi): Generator<Action, void, void> {
  for (let i = 0; i < 3 && ui.exists({ resourceId: 'title', className: 'android.widget.EditText' }); i++) yield ui.back();
}

/** The title element of a row on screen with this title, due label and check box. */
function rowOnScreen(ui: OracleUi, r: ListRow): UiElement | undefined {
  return ui.findAll({ resourceId: 'rowBody' }).map((row) => {
    const under = (id: string) => ui.findAll({ resourceId: id }).find((e) => isWithin(e, row));
    const title = under('title');
    const ok = title?.node.text === r.title && (under('due_date')?.node.text ?? '') === r.due && (under('completeBox')?.node.checked ?? false) === r.checked;
    return ok ? title : undefined;
  }).find((e) => e !== undefined);
}

function isWithin(el: UiElement, ancestor: UiElement): boolean {
  for (let p = el.parent; p; p = p.parent) if (p.node === ancestor.node) return true;
  return false;
}

/** Brings a task's row into view (up the list to its top, then down to the row) and opens it. */
function* showRow(ui: OracleUi, r: ListRow): Generator<Action, void, void> {
  for (let i = 0; i < 40 && !rowOnScreen(ui, r); i++) {
    const before = ui.fingerprint();
    yield ui.scroll('up', { resourceId: 'recycler_view' });
    if (ui.fingerprint() === before) break;
  }
  for (let i = 0; i < 40 && !rowOnScreen(ui, r); i++) {
    const before = ui.fingerprint();
    yield ui.scroll('down', { resourceId: 'recycler_view' });
    if (ui.fingerprint() === before) break;
  }
  const el = rowOnScreen(ui, r);
  if (!el) throw new OracleError(`No row ${JSON.stringify(r)}`, screenSummary(ui.obs));
  yield ui.tap(el);
}

/** The due day of a task whose label is a weekday, from its date picker. */
function* dueInPicker(ui: OracleUi, r: ListRow): Generator<Action, DateParts, void> {
  yield* showRow(ui, r);
  yield ui.tap({ contentDesc: 'Due date' });
  const d = pickerDay(ui);
  yield ui.tap({ text: 'Cancel' });
  yield* leaveEditor(ui);
  return d;
}

/** Shows completed tasks (overflow › Show completed) and their section expanded. */
function* showCompleted(ui: OracleUi): Generator<Action, void, void> {
  yield ui.tap({ contentDesc: 'More options' });
  if (ui.exists({ text: 'Show completed' })) yield ui.tap({ text: 'Show completed' });
  else yield ui.back();
  if (ui.exists({ contentDesc: 'Expand completed' })) yield ui.tap({ contentDesc: 'Expand completed' });
}

/** The rows whose due day satisfies `want`; a weekday row that could be either day is looked up in its picker. */
function* rowsWhere(ui: OracleUi, rows: readonly ListRow[], today: DateParts, want: (d: DateParts) => boolean): Generator<Action, ListRow[], void> {
  const out: ListRow[] = [];
  for (const r of rows) {
    const days = labelDays(r.due, today);
    const verdicts = days.map(want);
    if (verdicts.length === 0 || verdicts.every((v) => !v)) continue;
    if (verdicts.every((v) => v)) out.push(r);
    else if (want(yield* dueInPicker(ui, r))) out.push(r);
  }
  return out;
}

/**
 * Every row of the list, scrolling to its end. Rows are told apart by title, due label and check
 * box together (a done task may share an open one's title); identical rows are counted as often as
 * one screen shows them side by side.
 */
function* readRows(ui: OracleUi): Generator<Action, ListRow[], void> {
  const seen = new Map<string, { row: ListRow; n: number }>();
  for (let guard = 0; guard < 40; guard++) {
    const here = new Map<string, { row: ListRow; n: number }>();
    for (const r of visibleRows(ui)) {
      const k = `${r.title}|${r.due}|${r.checked}`;
      here.set(k, { row: r, n: (here.get(k)?.n ?? 0) + 1 });
    }
    for (const [k, v] of here) if ((seen.get(k)?.n ?? 0) < v.n) seen.set(k, v);
    if (!ui.find({ resourceId: 'recycler_view' })?.node.scrollable) break;
    const before = ui.fingerprint();
    yield ui.scroll('down', { resourceId: 'recycler_view' });
    if (ui.fingerprint() === before) break;
  }
  return [...seen.values()].flatMap((v) => Array.from({ length: v.n }, () => v.row));
}

/** Tasks, today, and every row (completed ones too when asked), sorted by due date. */
function* readTasks(ui: OracleUi, withCompleted: boolean): Generator<Action, { today: DateParts; rows: ListRow[] }, void> {
  yield* openTasks(ui);
  const today = yield* todayInTasks(ui);
  yield* sortBy(ui, 'By due date');
  if (withCompleted) yield* showCompleted(ui);
  return { today, rows: yield* readRows(ui) };
}

function* isHigh(ui: OracleUi, r: ListRow): Generator<Action, boolean, void> {
  yield* showRow(ui, r);
  const high = ui.require({ contentDesc: PRIORITY_DESC[0] }).node.checked;
  yield* leaveEditor(ui);
  return high;
}

// ------------------------------------------------------------------ templates

interface Question {
  id: string;
  difficulty: Difficulty;
  template: string;
  /** How a bare weekday in the question reads ("completed" asks about days past). */
  bare: BareWeekday;
  generate(rng: Rng): P;
  answer(p: P): string[] | string;
  oracle(p: P, ui: OracleUi): Generator<Action, string, void>;
}

function question(q: Question): TaskTemplate<P> {
  return defineTask({
    id: q.id,
    apps: ['Tasks'],
    difficulty: q.difficulty,
    tags: ['information_retrieval', 'date_time', 'screen_reading', 'needs_scrolling'],
    kind: 'information_retrieval',
    template: q.template,
    params: Params,
    maxSteps: 80,
    generate: q.generate,
    instruction: (p) => q.template.replace('{day}', p.day),
    initialize: async (device, p) => installSeeds(device, p.tasks),
    check: async (_device, p, episode) => {
      const want = q.answer(p);
      return typeof want === 'string' ? answerVerdict(episode.answer, want) : answerListVerdict(episode.answer, want);
    },
    subgoals: () => [tasksOpen],
    *oracle(p, ui) {
      yield ui.answer(yield* q.oracle(p, ui));
    },
  });
}

const ANSWER = 'Answer with the titles only. If there are multiples titles, format your answer in a comma separated list.';

/** Targets due on a day within a week either side of today, among tasks due around it (half of those done). */
function around(rng: Rng, o: { targets: (d: DateParts, titles: string[]) => SeedTask[]; bare: BareWeekday; days?: [number, number]; noise: (t: SeedTask, d: DateParts) => boolean }): P {
  const d = shift(TODAY, rng.int(o.days?.[0] ?? -5, o.days?.[1] ?? 7));
  const titles = drawTitles(rng, rng.int(12, 20));
  const targets = o.targets(d, titles.slice(0, rng.int(1, 3)));
  const days = Array.from({ length: 15 }, (_, i) => i - 7);
  const noise = seedTasks(rng, titles.slice(targets.length), { days, completedChance: 0.5, timeChance: 0.3 }).filter((t) => o.noise(t, d));
  return { day: wordDay(rng, d, TODAY, o.bare), tasks: rng.shuffle([...targets, ...noise]) };
}

function dayOf(p: P, bare: BareWeekday): DateParts {
  return resolveDay(p.day, TODAY, bare);
}

const openOn = (d: DateParts) => (t: SeedTask) => !t.completed && dueDay(t) !== null && same(dueDay(t)!, d);

export const DueOnDateQuestion = question({
  id: 'TasksDueOnDateQuestion',
  difficulty: 'medium',
  template: `What tasks do I have due {day} in Tasks app? ${ANSWER}`,
  bare: 'coming',
  generate: (rng) => around(rng, {
    bare: 'coming', days: [-3, 7],
    targets: (d, titles) => seedTasks(rng, titles, { days: [Math.round((msOf(d) - msOf(TODAY)) / DAY_MS)] }),
    noise: (t, d) => dueDay(t) === null || !same(dueDay(t)!, d),
  }),
  answer: (p) => p.tasks.filter(openOn(dayOf(p, 'coming'))).map((t) => t.title),
  *oracle(p, ui) {
    const { today, rows } = yield* readTasks(ui, false);
    const d = resolveDay(p.day, today, 'coming');
    return (yield* rowsWhere(ui, rows.filter((r) => !r.checked), today, (x) => same(x, d))).map((r) => r.title).join(', ');
  },
});

export const HighPriorityDueOnDateQuestion = question({
  id: 'TasksHighPriorityDueOnDateQuestion',
  difficulty: 'hard',
  template: `Which tasks with high priority are due {day} in the Tasks app? ${ANSWER}`,
  bare: 'coming',
  generate: (rng) => around(rng, {
    bare: 'coming', days: [-3, 7],
    targets: (d, titles) => seedTasks(rng, titles, { days: [Math.round((msOf(d) - msOf(TODAY)) / DAY_MS)], importances: [0] }),
    noise: (t, d) => t.importance !== 0 || dueDay(t) === null || !same(dueDay(t)!, d),
  }),
  answer: (p) => p.tasks.filter((t) => openOn(dayOf(p, 'coming'))(t) && t.importance === 0).map((t) => t.title),
  *oracle(p, ui) {
    const { today, rows } = yield* readTasks(ui, false);
    const d = resolveDay(p.day, today, 'coming');
    const due = yield* rowsWhere(ui, rows.filter((r) => !r.checked), today, (x) => same(x, d));
    const high: string[] = [];
    for (const r of due) if (yield* isHigh(ui, r)) high.push(r.title);
    return high.join(', ');
  },
});

/** Monday to Sunday of the week after today's. */
function nextWeek(today: DateParts): [DateParts, DateParts] {
  const dow = (new Date(msOf(today)).getUTCDay() + 6) % 7;
  return [shift(today, 7 - dow), shift(today, 13 - dow)];
}
const within = (d: DateParts, [a, b]: [DateParts, DateParts]) => msOf(d) >= msOf(a) && msOf(d) <= msOf(b);

export const DueNextWeekQuestion = question({
  id: 'TasksDueNextWeekQuestion',
  difficulty: 'hard',
  template: 'How many tasks do I have due next week in Tasks app? Assume the week starts from Monday. Express your answer as a single integer.',
  bare: 'coming',
  generate: (rng) => {
    const week = nextWeek(TODAY);
    const titles = drawTitles(rng, rng.int(12, 20));
    const n = rng.int(1, 6);
    const offsets = Array.from({ length: 7 }, (_, i) => Math.round((msOf(week[0]) - msOf(TODAY)) / DAY_MS) + i);
    const targets = seedTasks(rng, titles.slice(0, n), { days: offsets });
    const noise = seedTasks(rng, titles.slice(n), { days: Array.from({ length: 15 }, (_, i) => i - 7), completedChance: 0.5 }).filter((t) => dueDay(t) === null || !within(dueDay(t)!, week));
    return { day: '', tasks: rng.shuffle([...targets, ...noise]) };
  },
  answer: (p) => String(p.tasks.filter((t) => !t.completed && dueDay(t) !== null && within(dueDay(t)!, nextWeek(TODAY))).length),
  *oracle(_p, ui) {
    const { today, rows } = yield* readTasks(ui, false);
    const week = nextWeek(today);
    return String((yield* rowsWhere(ui, rows.filter((r) => !r.checked), today, (x) => within(x, week))).length);
  },
});

export const CompletedForDateQuestion = question({
  id: 'TasksCompletedForDateQuestion',
  difficulty: 'hard',
  template: `Which tasks have I completed for {day} in Tasks app? ${ANSWER}`,
  bare: 'past',
  generate: (rng) => around(rng, {
    bare: 'past', days: [-5, 5],
    targets: (d, titles) => seedTasks(rng, titles, { days: [Math.round((msOf(d) - msOf(TODAY)) / DAY_MS)] }).map((t) => ({ ...t, completed: true })),
    noise: (t, d) => dueDay(t) === null || !same(dueDay(t)!, d),
  }),
  answer: (p) => p.tasks.filter((t) => t.completed && dueDay(t) !== null && same(dueDay(t)!, dayOf(p, 'past'))).map((t) => t.title),
  *oracle(p, ui) {
    const { today, rows } = yield* readTasks(ui, true);
    const done = rows.filter((r) => r.checked);
    // A bare weekday asks about the day just past; if no task done was due then, the coming one is meant.
    let found: ListRow[] = [];
    for (const bare of ['past', 'coming'] as const) {
      const d = resolveDay(p.day, today, bare);
      found = yield* rowsWhere(ui, done, today, (x) => same(x, d));
      if (found.length > 0) break;
    }
    return found.map((r) => r.title).join(', ');
  },
});

export const IncompleteByDateQuestion = question({
  id: 'TasksIncompleteByDateQuestion',
  difficulty: 'hard',
  template: `What incomplete tasks do I have still have to do by {day} in Tasks app? ${ANSWER}`,
  bare: 'coming',
  generate: (rng) => {
    const d = shift(TODAY, rng.int(-2, 7));
    const titles = drawTitles(rng, rng.int(12, 20));
    const days = Array.from({ length: 15 }, (_, i) => i - 7);
    const tasks = seedTasks(rng, titles, { days, completedChance: 0.5 });
    // At least one to name.
    if (!tasks.some((t) => !t.completed && dueDay(t) !== null && msOf(dueDay(t)!) <= msOf(d))) tasks[0] = { ...tasks[0]!, completed: false, dueDate: seedTasks(rng, ['x'], { days: [Math.round((msOf(d) - msOf(TODAY)) / DAY_MS)] })[0]!.dueDate };
    return { day: wordDay(rng, d, TODAY, 'coming'), tasks: rng.shuffle(tasks) };
  },
  answer: (p) => p.tasks.filter((t) => !t.completed && dueDay(t) !== null && msOf(dueDay(t)!) <= msOf(dayOf(p, 'coming'))).map((t) => t.title),
  *oracle(p, ui) {
    const { today, rows } = yield* readTasks(ui, false);
    const d = resolveDay(p.day, today, 'coming');
    return (yield* rowsWhere(ui, rows.filter((r) => !r.checked), today, (x) => msOf(x) <= msOf(d))).map((r) => r.title).join(', ');
  },
});

export const DATE_QUESTION_TASKS: readonly TaskTemplate[] = [DueOnDateQuestion, HighPriorityDueOnDateQuestion, DueNextWeekQuestion, CompletedForDateQuestion, IncompleteByDateQuestion];
