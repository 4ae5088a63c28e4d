import type { AppEnv, SystemServices } from '../../runtime/app.js';
import type { Rng } from '../../../../core/util/rng.js';
import { insertTask, setTaskTags } from './db.js';
import { dueDateOnly, dueDateTime, startOfDay } from './dates.js';

/** A few everyday to-dos a user might already have, so the app never opens empty. */
const STARTER = [
  { title: 'Buy groceries', notes: 'Milk, eggs, bread and coffee' },
  { title: 'Call the dentist', notes: '' },
  { title: 'Pay the electricity bill', notes: '' },
  { title: 'Renew car insurance', notes: 'Compare quotes first' },
  { title: 'Water the plants', notes: '' },
  { title: 'Book flights for the holidays', notes: '' },
  { title: 'Return library books', notes: '' },
  { title: 'Clean the garage', notes: '' },
] as const;

const DAY_MS = 86_400_000;

export function bootTasks(env: { app: AppEnv; sys: SystemServices; rng: Rng }): void {
  const { rng } = env;
  const db = env.app.db;
  const now = env.sys.clock.now();
  const picks = rng.sample(STARTER, 5);
  picks.forEach((p, i) => {
    const offset = rng.int(-1, 10);
    const day = new Date(startOfDay(now) + offset * DAY_MS);
    const [y, m, d] = [day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate()];
    const dueDate = rng.chance(0.25) ? 0 : rng.chance(0.3) ? dueDateTime(y, m, d, rng.int(8, 19), rng.pick([0, 30])) : dueDateOnly(y, m, d);
    // Created over the past days, so "By creation time" has an order to show.
    const created = now - (picks.length - i) * DAY_MS;
    const id = insertTask(db, { title: p.title, notes: p.notes, importance: rng.int(0, 3), dueDate, completed: i === 4 ? now - 3_600_000 : 0 }, created);
    if (i === 0) setTaskTags(db, id, ['Errands'], created);
  });
}
