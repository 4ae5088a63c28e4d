import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BOOT_SNAPSHOT } from '../../../core/device/device.js';
import { addTasks, clearTasks, dueOn, Importance, listTasks, TASKS_DB, type NewTask } from '../../../core/tasks/families/tasks/tasks-db.js';
import { device, elements, find, get, longPress, scroll, sh, tap, texts, typeInto } from '../../helpers/simdroid.js';

/** Tasks.org in SimDroid, driven through the UI and read back with sqlite3. */
const d = device();
afterAll(() => d.close());

const PKG = 'org.tasks';
const NOW = Date.UTC(2023, 9, 15, 15, 34);
const day = (offset: number) => ({ year: 2023, month: 10, day: 15 + offset });
const open = () => {
  sh(d, `am start -n ${PKG}/com.todoroo.astrid.activity.MainActivity`);
  if (find(d, { text: 'Allow' })) tap(d, { text: 'Allow' });
};
const back = () => d.inputSync({ kind: 'key', key: 'BACK' });
const sql = (q: string) => sh(d, `sqlite3 ${TASKS_DB} "${q}"`).trim();
const titles = () => elements(d).filter((e) => e.node.resourceId === `${PKG}:id/title` && e.node.className === 'android.widget.TextView').map((e) => e.node.text);
const rowOf = async (title: string) => (await listTasks(d)).find((t) => t.title === title);

async function seed(tasks: NewTask[]): Promise<void> {
  await clearTasks(d);
  await addTasks(d, tasks);
}

beforeEach(async () => {
  await d.loadSnapshot(BOOT_SNAPSHOT);
});
afterEach(() => {
  expect(d.wm.state.crashes).toEqual([]);
});

describe('Tasks app: the list', () => {
  it('boots with a few tasks; the list shows the open ones and hides completed ones', async () => {
    open();
    const all = await listTasks(d);
    expect(all.length).toBeGreaterThanOrEqual(3);
    const open_ = all.filter((t) => t.completed === 0 && t.deleted === 0).map((t) => t.title);
    expect([...titles()].sort()).toEqual([...open_].sort());
    expect(get(d, { resourceId: 'toolbar_title' }).node.text).toBe('My Tasks');
  });

  it('shows due dates the way Tasks.org words them, overdue ones included', async () => {
    await seed([
      { title: 'Today plain', dueDate: dueOn(day(0)) },
      { title: 'Today timed', dueDate: dueOn(day(0), { hour: 18, minute: 5 }) },
      { title: 'Tomorrow', dueDate: dueOn(day(1)) },
      { title: 'Yesterday', dueDate: dueOn(day(-1), { hour: 9, minute: 0 }) },
      { title: 'This week', dueDate: dueOn(day(5)) },
      { title: 'Later', dueDate: dueOn(day(10)) },
      { title: 'No date' },
    ]);
    open();
    const due = (t: string) => {
      const row = get(d, { text: t, resourceId: 'title' }).parent!.parent!;
      const label = row.node.children.flatMap((c) => [c, ...c.children]).find((n) => n.resourceId.endsWith(':id/due_date'));
      return label?.text ?? '';
    };
    expect(due('Today plain')).toBe('Today');
    expect(due('Today timed')).toBe('6:05 PM');
    expect(due('Tomorrow')).toBe('Tmrw');
    expect(due('Yesterday')).toBe('Yest 9:00 AM');
    expect(due('This week')).toBe('Fri');
    expect(due('Later')).toBe('Oct 25');
    expect(due('No date')).toBe('');
    // Smart sort: overdue first, undated last.
    expect(titles()[0]).toBe('Yesterday');
    expect(titles().at(-1)).toBe('No date');
  });

  it('sorts by title and by priority from the sort dialog, and remembers the choice', async () => {
    await seed([
      { title: 'Charlie', importance: Importance.LOW },
      { title: 'alpha', importance: Importance.NONE },
      { title: 'Bravo', importance: Importance.HIGH },
    ]);
    open();
    tap(d, { contentDesc: 'Sort' });
    tap(d, { text: 'By title' });
    expect(titles()).toEqual(['alpha', 'Bravo', 'Charlie']);
    tap(d, { contentDesc: 'Sort' });
    expect(get(d, { text: 'By title' }).node.checked).toBe(true);
    tap(d, { text: 'By priority' });
    expect(titles()).toEqual(['Bravo', 'Charlie', 'alpha']);
    back();
    open();
    expect(titles()).toEqual(['Bravo', 'Charlie', 'alpha']);
  });

  it('scrolls a list longer than the screen', async () => {
    await seed(Array.from({ length: 25 }, (_, i) => ({ title: `Task ${String(i + 1).padStart(2, '0')}` })));
    open();
    tap(d, { contentDesc: 'Sort' });
    tap(d, { text: 'By title' });
    expect(find(d, { text: 'Task 25' })).toBeUndefined();
    for (let i = 0; i < 6 && !find(d, { text: 'Task 25' }); i++) scroll(d, 'down');
    expect(find(d, { text: 'Task 25' })).toBeDefined();
  });

  it('searches titles and descriptions as you type; Back closes the search', async () => {
    await seed([{ title: 'Buy milk' }, { title: 'Call Bob', notes: 'About the milk order' }, { title: 'Pay rent' }]);
    open();
    tap(d, { contentDesc: 'Search' });
    d.inputSync({ kind: 'text', text: 'milk' });
    expect([...titles()].sort()).toEqual(['Buy milk', 'Call Bob']);
    back(); // keyboard
    back(); // search
    expect(titles()).toHaveLength(3);
    expect(get(d, { resourceId: 'toolbar_title' }).node.text).toBe('My Tasks');
    back();
    expect(d.wm.foreground().package).not.toBe(PKG);
  });
});

describe('Tasks app: completing and deleting', () => {
  it('completes a task with its check box, shows it under Completed, and un-completes it', async () => {
    await seed([{ title: 'Water plants' }, { title: 'Walk dog' }]);
    open();
    tap(d, { contentDesc: 'Walk dog', className: 'android.widget.CheckBox' });
    const done = await rowOf('Walk dog');
    expect(done!.completed).toBeGreaterThanOrEqual(NOW);
    expect((await rowOf('Water plants'))!.completed).toBe(0);
    expect(titles()).toEqual(['Water plants']);
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Show completed' });
    expect(find(d, { text: 'Completed (1)' })).toBeDefined();
    const box = get(d, { contentDesc: 'Walk dog', className: 'android.widget.CheckBox' });
    expect(box.node.checked).toBe(true);
    tap(d, { text: 'Completed (1)' });
    expect(find(d, { contentDesc: 'Walk dog' })).toBeUndefined();
    tap(d, { text: 'Completed (1)' });
    tap(d, { contentDesc: 'Walk dog', className: 'android.widget.CheckBox' });
    expect((await rowOf('Walk dog'))!.completed).toBe(0);
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Hide completed' });
    expect(find(d, { text: /^Completed/ })).toBeUndefined();
  });

  it('deletes a task from the editor after confirmation (marking it deleted)', async () => {
    await seed([{ title: 'Keep me' }, { title: 'Remove me' }]);
    open();
    tap(d, { text: 'Remove me' });
    tap(d, { contentDesc: 'Delete task' });
    expect(find(d, { text: 'Delete this task?' })).toBeDefined();
    tap(d, { text: 'Cancel' });
    expect((await rowOf('Remove me'))!.deleted).toBe(0);
    tap(d, { contentDesc: 'Delete task' });
    tap(d, { text: 'OK' });
    expect((await rowOf('Remove me'))!.deleted).toBeGreaterThanOrEqual(NOW);
    expect((await rowOf('Keep me'))!.deleted).toBe(0);
    expect(titles()).toEqual(['Keep me']);
    expect(sql("SELECT COUNT(*) FROM tasks WHERE deleted = 0")).toBe('1');
  });

  it('selects rows by long-press and deletes the selection after confirmation', async () => {
    await seed([{ title: 'One' }, { title: 'Two' }, { title: 'Three' }]);
    open();
    longPress(d, { text: 'One' });
    expect(find(d, { text: '1 selected' })).toBeDefined();
    tap(d, { text: 'Three' });
    expect(find(d, { text: '2 selected' })).toBeDefined();
    expect(find(d, { contentDesc: 'Create new task' })).toBeDefined();
    tap(d, { text: 'Three' });
    tap(d, { text: 'Two' });
    back();
    expect(find(d, { text: /selected$/ })).toBeUndefined();
    longPress(d, { text: 'One' });
    tap(d, { text: 'Three' });
    tap(d, { contentDesc: 'Delete' });
    expect(find(d, { text: 'Delete selected tasks?' })).toBeDefined();
    tap(d, { text: 'OK' });
    expect(sql('SELECT title FROM tasks WHERE deleted > 0 ORDER BY title').split('\n')).toEqual(['One', 'Three']);
    expect(titles()).toEqual(['Two']);
    expect(d.frame().toast).toBe('2 deleted');
  });

  it('clears completed tasks after confirmation, leaving open ones', async () => {
    await seed([{ title: 'Open one' }, { title: 'Done one', completed: true }, { title: 'Done two', completed: true }]);
    open();
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Clear Completed' });
    tap(d, { text: 'Cancel' });
    expect(sql('SELECT COUNT(*) FROM tasks WHERE deleted > 0')).toBe('0');
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Clear Completed' });
    expect(find(d, { text: 'Clear completed tasks?' })).toBeDefined();
    tap(d, { text: 'OK' });
    expect(sql('SELECT title FROM tasks WHERE deleted > 0 ORDER BY title').split('\n')).toEqual(['Done one', 'Done two']);
    expect((await rowOf('Open one'))!.deleted).toBe(0);
    expect(d.frame().toast).toBe('2 deleted');
  });
});

describe('Tasks app: the editor', () => {
  it('creates a task with title, due date (picker), time (picker), priority and description', async () => {
    await seed([]);
    open();
    expect(find(d, { text: 'There are no tasks here.' })).toBeDefined();
    tap(d, { contentDesc: 'Create new task' });
    expect(d.wm.state.keyboard.visible).toBe(true);
    typeInto(d, { resourceId: 'title', className: 'android.widget.EditText' }, 'Submit report');
    tap(d, { contentDesc: 'Due date' });
    expect(get(d, { resourceId: 'month_navigation_fragment_toggle' }).node.text).toBe('October 2023');
    tap(d, { contentDesc: 'Next month' });
    tap(d, { contentDesc: '3 November 2023' });
    tap(d, { text: 'OK' });
    expect(get(d, { resourceId: 'due_date' }).node.text).toBe('Friday, November 3');
    tap(d, { contentDesc: 'Due time' });
    typeInto(d, { resourceId: 'input_hour' }, '');
    d.inputSync({ kind: 'key', key: 'DEL' });
    d.inputSync({ kind: 'text', text: '4' });
    typeInto(d, { resourceId: 'input_minute' }, '');
    d.inputSync({ kind: 'key', key: 'DEL' });
    d.inputSync({ kind: 'key', key: 'DEL' });
    d.inputSync({ kind: 'text', text: '30' });
    tap(d, { text: 'PM' });
    tap(d, { text: 'OK' });
    expect(get(d, { resourceId: 'due_time' }).node.text).toBe('4:30 PM');
    tap(d, { contentDesc: 'Remove due time' });
    expect(get(d, { resourceId: 'due_time' }).node.text).toBe('No time');
    tap(d, { contentDesc: 'Due time' });
    expect(get(d, { resourceId: 'input_hour' }).node.text).toBe('9');
    typeInto(d, { resourceId: 'input_hour' }, '');
    d.inputSync({ kind: 'key', key: 'DEL' });
    d.inputSync({ kind: 'text', text: '4' });
    typeInto(d, { resourceId: 'input_minute' }, '');
    d.inputSync({ kind: 'key', key: 'DEL' });
    d.inputSync({ kind: 'key', key: 'DEL' });
    d.inputSync({ kind: 'text', text: '30' });
    tap(d, { text: 'PM' });
    tap(d, { text: 'OK' });
    expect(get(d, { resourceId: 'due_time' }).node.text).toBe('4:30 PM');
    tap(d, { contentDesc: 'High priority' });
    expect(get(d, { contentDesc: 'High priority' }).node.checked).toBe(true);
    expect(get(d, { contentDesc: 'No priority' }).node.checked).toBe(false);
    typeInto(d, { resourceId: 'notes' }, 'Send to Dana');
    tap(d, { contentDesc: 'Save' });
    const t = await rowOf('Submit report');
    expect(t).toMatchObject({ importance: 0, notes: 'Send to Dana', completed: 0, deleted: 0, dueDate: Date.UTC(2023, 10, 3, 16, 30, 1) });
    expect(sql("SELECT remoteId IS NOT NULL FROM tasks WHERE title = 'Submit report'")).toBe('1');
    expect(titles()).toEqual(['Submit report']);
    expect(texts(d)).toContain('Nov 3, 4:30 PM');
  });

  it('stores a date-only due date at noon and can remove it again', async () => {
    await seed([{ title: 'Dated', dueDate: dueOn(day(2)) }]);
    open();
    tap(d, { text: 'Dated' });
    expect(get(d, { resourceId: 'due_date' }).node.text).toBe('Tuesday');
    tap(d, { contentDesc: 'Due date' });
    tap(d, { contentDesc: '20 October 2023' });
    tap(d, { text: 'OK' });
    tap(d, { contentDesc: 'Save' });
    expect((await rowOf('Dated'))!.dueDate).toBe(Date.UTC(2023, 9, 20, 12, 0, 0));
    tap(d, { text: 'Dated' });
    tap(d, { contentDesc: 'Remove due date' });
    expect(get(d, { resourceId: 'due_date' }).node.text).toBe('No due date');
    expect(find(d, { contentDesc: 'Due time' })).toBeUndefined();
    tap(d, { contentDesc: 'Save' });
    expect((await rowOf('Dated'))!.dueDate).toBe(0);
  });

  it('edits an existing task and saves it; Enter in the title saves too', async () => {
    await seed([{ title: 'Draft', importance: Importance.NONE, notes: 'old' }]);
    open();
    tap(d, { text: 'Draft' });
    expect(get(d, { resourceId: 'title', className: 'android.widget.EditText' }).node.text).toBe('Draft');
    expect(get(d, { resourceId: 'notes' }).node.text).toBe('old');
    typeInto(d, { resourceId: 'title', className: 'android.widget.EditText' }, ' v2');
    tap(d, { contentDesc: 'Low priority' });
    tap(d, { contentDesc: 'Save' });
    const t = await rowOf('Draft v2');
    expect(t).toMatchObject({ importance: 2, notes: 'old' });
    expect(t!.modified).toBeGreaterThanOrEqual(NOW);
    tap(d, { text: 'Draft v2' });
    typeInto(d, { resourceId: 'title', className: 'android.widget.EditText' }, '!');
    d.inputSync({ kind: 'key', key: 'ENTER' });
    expect(await rowOf('Draft v2!')).toBeDefined();
    expect(titles()).toEqual(['Draft v2!']);
  });

  it('asks before discarding changes on Back, and discards an empty new task silently', async () => {
    await seed([{ title: 'Existing' }]);
    open();
    tap(d, { contentDesc: 'Create new task' });
    back(); // keyboard
    back(); // nothing typed: closes without asking
    expect(titles()).toEqual(['Existing']);
    tap(d, { contentDesc: 'Create new task' });
    tap(d, { contentDesc: 'Save' });
    expect(sql('SELECT COUNT(*) FROM tasks')).toBe('1');
    tap(d, { contentDesc: 'Create new task' });
    d.inputSync({ kind: 'text', text: 'Half typed' });
    back();
    back();
    expect(find(d, { text: 'Are you sure you want to discard your changes?' })).toBeDefined();
    tap(d, { text: 'Keep editing' });
    expect(get(d, { resourceId: 'title', className: 'android.widget.EditText' }).node.text).toBe('Half typed');
    back();
    tap(d, { text: 'Discard' });
    expect(titles()).toEqual(['Existing']);
    expect(sql('SELECT COUNT(*) FROM tasks')).toBe('1');
  });

  it('saves "(No title)" when only the priority was set', async () => {
    await seed([]);
    open();
    tap(d, { contentDesc: 'Create new task' });
    tap(d, { contentDesc: 'Medium priority' });
    tap(d, { contentDesc: 'Save' });
    expect(sql('SELECT title, importance FROM tasks')).toBe('(No title)|1');
  });

  it('tags a task with an existing and a new tag', async () => {
    await seed([{ title: 'Groceries' }]);
    sh(d, `sqlite3 ${TASKS_DB} "INSERT INTO tagdata (remoteId, name, color, td_icon, td_order) VALUES ('t1', 'Home', 0, -1, 0)"`);
    open();
    tap(d, { text: 'Groceries' });
    tap(d, { contentDesc: 'Tags' });
    tap(d, { text: 'Home' });
    typeInto(d, { resourceId: 'new_tag' }, 'Errands');
    tap(d, { text: 'OK' });
    expect(get(d, { resourceId: 'tags' }).node.text).toBe('Errands, Home');
    tap(d, { contentDesc: 'Save' });
    expect(sql("SELECT name FROM tags ORDER BY name").split('\n')).toEqual(['Errands', 'Home']);
    expect(sql("SELECT COUNT(*) FROM tagdata")).toBe('2');
    expect(texts(d)).toEqual(expect.arrayContaining(['Groceries', 'Errands', 'Home']));
  });
});
