import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import { shellOk, type Device } from '../../../device/device.js';
import { scrollTo, type OracleUi } from '../../oracle.js';
import { defineTask, type Subgoal, type TaskTemplate } from '../../task.js';
import { WORLD_CITIES, cityId, type WorldCity } from '../../../seed-data/world-cities.js';
import { sqlExec, sqlInsert, sqlObjects } from '../../validators/sqlite.js';
import { inActivity } from '../../validators/ui.js';
import { ALARMS_DB, CITY_SELECTION, CLOCK_PKG, clockOpen, openClockTab, tabSelected } from './common.js';
import { timeAnswerMatches, type HourMinute } from './answers.js';
import { verdictOf } from '../../verdict.js';
import { exactRecords, recordKind } from '../../validators/records.js';
import { answerJudged } from '../../validators/answers.js';

/**
 * World clocks: the `cities` table behind the Clock tab, edited in the city chooser
 * (CitySelectionActivity), and the time in a city as a question.
 */
const City = z.object({ name: z.string(), offset: z.int() });

async function setCities(device: Device, cities: readonly WorldCity[]): Promise<void> {
  const rows = cities.map((c) => sqlInsert('cities', { city_id: cityId(c.name), name: c.name, utc_offset_minutes: c.offset }));
  await sqlExec(device, ALARMS_DB, `DELETE FROM cities; ${rows.join(' ')}`);
}

async function readCityNames(device: Device): Promise<string[]> {
  return (await sqlObjects(device, ALARMS_DB, ['name'] as const, 'cities')).map((r) => String(r.name).toLowerCase()).sort();
}

/** World clock cities by lower-cased name (as `readCityNames` gives them), as a multiset. */
const CITY = recordKind<string, string>('world clock', (c) => JSON.stringify(c), (c) => c, [{ name: 'city', got: (c) => c, want: (c) => c }]);

/** Opens the city chooser from the Clock tab and searches for a city. */
function* searchCity(ui: OracleUi, name: string): Generator<Action, void, void> {
  yield* openClockTab(ui, 'clock');
  yield ui.tap({ contentDesc: 'Add city' });
  yield ui.tap({ contentDesc: 'Search' });
  yield ui.type({ resourceId: 'search_src_text' }, name);
}

const chooserOpen: Subgoal = {
  name: 'city chooser open',
  check: async ({ obs }) => inActivity(obs, CLOCK_PKG, CITY_SELECTION),
};

const Add = z.object({ city: City, others: z.array(City) });

export const AddWorldClockCity = defineTask({
  id: 'ClockAddWorldClockCity',
  apps: ['Clock'],
  difficulty: 'medium',
  tags: ['data_entry', 'search'],
  kind: 'completion',
  template: 'Add {name} to my world clocks.',
  params: Add,
  generate: (rng) => {
    const [city, ...others] = rng.sample(WORLD_CITIES, rng.int(1, 4));
    return { city: city!, others };
  },
  instruction: (p) => `Add ${p.city.name} to my world clocks.`,
  initialize: async (device, p) => setCities(device, p.others),
  check: async (device, p) => verdictOf(exactRecords(CITY, await readCityNames(device), [...p.others.map((c) => c.name), p.city.name].map((n) => n.toLowerCase()), 'listed')),
  subgoals: (p) => [
    clockOpen,
    tabSelected('clock', 'Clock'),
    chooserOpen,
    { name: `${p.city.name} added`, check: async ({ device }) => (await readCityNames(device)).includes(p.city.name.toLowerCase()) },
  ],
  *oracle(p, ui) {
    yield* searchCity(ui, p.city.name);
    yield ui.tap({ resourceId: 'city_name', text: p.city.name });
    yield ui.complete();
  },
});

export const RemoveWorldClockCity = defineTask({
  id: 'ClockRemoveWorldClockCity',
  apps: ['Clock'],
  difficulty: 'medium',
  tags: ['deletion'],
  kind: 'completion',
  template: 'Remove {name} from my world clocks.',
  params: Add,
  generate: (rng) => {
    const [city, ...others] = rng.sample(WORLD_CITIES, rng.int(2, 5));
    return { city: city!, others };
  },
  instruction: (p) => `Remove ${p.city.name} from my world clocks.`,
  initialize: async (device, p) => setCities(device, [...p.others, p.city].sort((a, b) => a.offset - b.offset)),
  check: async (device, p) => verdictOf(exactRecords(CITY, await readCityNames(device), p.others.map((c) => c.name.toLowerCase()), 'listed')),
  subgoals: (p) => [
    clockOpen,
    chooserOpen,
    { name: `${p.city.name} removed`, check: async ({ device }) => !(await readCityNames(device)).includes(p.city.name.toLowerCase()) },
  ],
  *oracle(p, ui) {
    yield* openClockTab(ui, 'clock');
    yield ui.tap({ contentDesc: 'Add city' });
    // Selected cities are listed first, checked.
    const row = yield* scrollTo(ui, { resourceId: 'city_name', text: p.city.name });
    yield ui.tap(row);
    yield ui.complete();
  },
});

const Ask = z.object({ city: City, listed: z.boolean(), others: z.array(City) });

/** The device's time now (`date +%s`, which answers on an emulator too). */
async function deviceNow(device: Device): Promise<number> {
  return Number((await shellOk(device, 'date +%s')).trim()) * 1000;
}

/** Times the city had during the last `minutes` minutes (an answer read a little earlier still counts). */
function recentCityTimes(now: number, offset: number, minutes = 15): HourMinute[] {
  const out: HourMinute[] = [];
  for (let i = 0; i <= minutes; i++) {
    const d = new Date(now - i * 60_000 + offset * 60_000);
    out.push({ hour: d.getUTCHours(), minute: d.getUTCMinutes() });
  }
  return out;
}

export const TimeInCityQuestion = defineTask({
  id: 'ClockTimeInCityQuestion',
  apps: ['Clock'],
  difficulty: 'medium',
  tags: ['information_retrieval', 'date_time', 'search'],
  kind: 'information_retrieval',
  template: 'What time is it in {name} right now?',
  params: Ask,
  generate: (rng) => {
    const [city, ...others] = rng.sample(WORLD_CITIES.filter((c) => c.offset !== 0), rng.int(2, 4));
    return { city: city!, listed: rng.chance(0.5), others };
  },
  instruction: (p) => `What time is it in ${p.city.name} right now?`,
  initialize: async (device, p) => setCities(device, p.listed ? [...p.others, p.city] : p.others),
  check: async (device, p, episode) => {
    const times = recentCityTimes(await deviceNow(device), p.city.offset);
    const hhmm = (t: HourMinute) => `${String(t.hour).padStart(2, '0')}:${String(t.minute).padStart(2, '0')}`;
    // Any of the last minutes counts; the words name the newest and the oldest accepted.
    return verdictOf([answerJudged(episode.answer, `${hhmm(times[0]!)} (or back to ${hhmm(times[times.length - 1]!)})`, timeAnswerMatches(episode.answer, times))]);
  },
  subgoals: () => [clockOpen, tabSelected('clock', 'Clock')],
  *oracle(p, ui) {
    yield* openClockTab(ui, 'clock');
    if (ui.exists({ resourceId: 'city_name', text: p.city.name })) {
      yield ui.answer(cityCardTime(ui, p.city.name));
      return;
    }
    // Not a world clock yet: the city chooser shows every city's time.
    yield ui.tap({ contentDesc: 'Add city' });
    yield ui.tap({ contentDesc: 'Search' });
    yield ui.type({ resourceId: 'search_src_text' }, p.city.name);
    yield ui.answer(ui.valueNextTo({ resourceId: 'city_name', text: p.city.name }));
  },
});

/** The time on a city's card in the Clock tab (the card's `digital_clock`). */
function cityCardTime(ui: OracleUi, name: string): string {
  const nameEl = ui.require({ resourceId: 'city_name', text: name });
  for (let p = nameEl.parent; p; p = p.parent) {
    if (!p.node.resourceId.endsWith(':id/city_item')) continue;
    const clock = ui.findAll({ resourceId: 'digital_clock' }).find((e) => {
      for (let q = e.parent; q; q = q.parent) if (q.ordinal === p.ordinal) return true;
      return false;
    });
    if (clock) return clock.node.text;
  }
  return ui.require({ resourceId: 'digital_clock' }).node.text;
}

export const WORLD_CLOCK_TASKS: readonly TaskTemplate[] = [AddWorldClockCity, RemoveWorldClockCity, TimeInCityQuestion];
