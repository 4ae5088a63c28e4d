import type { Action } from '../actions/schema.js';
import { OracleError, screenSummary, type OracleUi } from './oracle.js';
import { monthName, type DateParts } from '../seed-data/dates.js';
import { monthNumber } from '../util/calendar-names.js';

/**
 * Oracle moves for SimDroid's (Material-style) date and time picker dialogs: page months with
 * "Previous month"/"Next month", tap the day by its description, or type the time in keyboard mode.
 */
export function* pickDate(ui: OracleUi, date: DateParts): Generator<Action, void, void> {
  for (let guard = 0; guard < 120; guard++) {
    const header = ui.require({ resourceId: 'month_navigation_fragment_toggle' }).node.text;
    const m = /^(\w+) (\d{4})$/.exec(header);
    if (!m) throw new OracleError(`Unexpected date picker header ${JSON.stringify(header)}`, screenSummary(ui.obs));
    const shown = Number(m[2]) * 12 + (monthNumber(m[1]!) - 1);
    const want = date.year * 12 + (date.month - 1);
    if (shown === want) {
      yield ui.tap({ contentDesc: `${date.day} ${monthName(date.month)} ${date.year}` });
      yield ui.tap({ text: 'OK' });
      return;
    }
    yield ui.tap({ contentDesc: shown < want ? 'Next month' : 'Previous month' });
  }
  throw new OracleError('Date picker never reached the month', screenSummary(ui.obs));
}

/** Types a 24-hour time into the keyboard-mode time picker and confirms. */
export function* enterTime(ui: OracleUi, hour24: number, minute: number): Generator<Action, void, void> {
  const h12 = hour24 % 12 === 0 ? 12 : hour24 % 12;
  yield ui.type({ resourceId: 'input_hour' }, String(h12), { clear: true });
  yield ui.type({ resourceId: 'input_minute' }, String(minute).padStart(2, '0'), { clear: true });
  const pm = hour24 >= 12;
  const radio = ui.require({ text: pm ? 'PM' : 'AM', className: 'android.widget.RadioButton' });
  if (!radio.node.checked) yield ui.tap(radio);
  yield ui.tap({ text: 'OK' });
}
