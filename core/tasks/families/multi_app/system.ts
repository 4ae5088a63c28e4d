import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import type { Device } from '../../../device/device.js';
import { copyAllOf, launch, OracleError, screenSummary } from '../../oracle.js';
import { openSms } from '../sms/common.js';
import { clipboardHolds, setClipboard } from '../../validators/clipboard.js';
import { randomAddress } from '../../../seed-data/addresses.js';
import { enterTime } from '../../pickers.js';
import { DAY_MS, DEVICE_NOW, dateParts, msOf } from '../../../seed-data/dates.js';
import { randomTitles } from '../../../seed-data/text.js';
import { putSetting, settingCondition } from '../../validators/settings.js';
import { fieldHolds, inActivity } from '../../validators/ui.js';
import { APP_CATALOG, requireApp } from '../../../device/app-catalog.js';
import { openSettingsPath, pageOpen, settingsOpen, switchIsOn } from '../settings/common.js';
import { addEvents, clearEvents } from '../calendar/calendar-db.js';
import { calendarOpen, dayOpen, EventSchema, openCalendar, openDay, timedEvent, toInput } from '../calendar/common.js';
import {
  alarmHas, alarmsAtCondition, otherAlarmsKept, AlarmSpec, alarmsWhere, clockOpen, openClockTab, partitionAt, randomAlarms, readAlarms, setAlarms, timePickerOpen,
} from '../clock/common.js';
import { SPLIT_DATA } from '../../splits.js';
import { condition, verdictOf } from '../../verdict.js';

/**
 * Multi-app tasks through the system: change a setting, then open an app (AndroidWorld's
 * TurnOnWifiAndOpenApp); and read the day's first event in the calendar to set an alarm before it.
 */

// The app to open is drawn from apps outside the unseen-app test set, so the template stays a
// training-side template for that regime whatever the seed.
const OPENABLE = APP_CATALOG.filter((a) => a.simulated && a.name !== 'Settings' && !(SPLIT_DATA.unseenApp.testApps as readonly string[]).includes(a.name)).map((a) => a.name);

const WifiApp = z.object({ app: z.string() });

const wifiOn = (device: Device) => settingCondition(device, 'global', 'wifi_on', '1', undefined, 'Wi-Fi on (global/wifi_on = 1)');

export const WifiThenOpenApp = defineTask({
  id: 'MultiWifiThenOpenApp',
  apps: ['Settings'],
  difficulty: 'medium',
  tags: ['multi_app', 'toggle'],
  kind: 'completion',
  template: 'Turn on Wi-Fi, then open the {app} app.',
  params: WifiApp,
  generate: (rng) => ({ app: rng.pick(OPENABLE) }),
  initialize: async (device) => putSetting(device, 'global', 'wifi_on', '0'),
  check: async (device, p) => {
    return verdictOf([await wifiOn(device), condition(`${p.app} in front`, requireApp(p.app).package, (await device.foreground()).package)]);
  },
  subgoals: (p) => [
    settingsOpen,
    pageOpen('Internet'),
    { name: 'Wi-Fi on', check: async ({ device }) => (await wifiOn(device)).ok },
    { name: `${p.app} open`, check: async ({ obs }) => inActivity(obs, requireApp(p.app).package) },
  ],
  *oracle(p, ui) {
    yield* openSettingsPath(ui, ['Network & internet', 'Internet']);
    if (!switchIsOn(ui, 'Wi‑Fi')) yield ui.tap({ text: 'Wi‑Fi' });
    yield* launch(ui, p.app);
    yield ui.complete();
  },
});

const AlarmBefore = z.object({ lead: z.int(), hour: z.int(), minutes: z.int(), events: z.array(EventSchema), alarms: z.array(AlarmSpec) });

/** "9:30 AM - 10:00 AM" → 9:30 as 24-hour parts. */
function firstTime(text: string): { hour: number; minutes: number } | null {
  const m = /(\d{1,2}):(\d{2})\s*(AM|PM)?/.exec(text);
  if (!m) return null;
  const h = Number(m[1]);
  return { hour: m[3] ? (h % 12) + (m[3] === 'PM' ? 12 : 0) : h, minutes: Number(m[2]) };
}

export const AlarmBeforeFirstEvent = defineTask({
  id: 'MultiAlarmBeforeFirstEvent',
  apps: ['Clock', 'Calendar'],
  difficulty: 'hard',
  maxSteps: 30,
  tags: ['multi_app', 'date_time', 'screen_reading', 'math_counting'],
  kind: 'completion',
  template: 'Set an alarm {lead} minutes before my first event tomorrow in Simple Calendar Pro.',
  params: AlarmBefore,
  generate: (rng) => {
    const tomorrow = dateParts(DEVICE_NOW + DAY_MS);
    const lead = rng.pick([15, 30, 45, 60]);
    const count = rng.int(2, 4);
    const titles = randomTitles(rng, count + 2);
    const starts = rng.sample([7, 8, 9, 10, 11, 13, 14, 16], count).sort((a, b) => a - b).map((h) => ({ h, m: rng.pick([0, 15, 30, 45]) }));
    const tomorrowEvents = starts.map((s, i) => ({ ...timedEvent(rng, titles[i]!, tomorrow), start: msOf(tomorrow, s.h, s.m), end: msOf(tomorrow, s.h, s.m) + 45 * 60_000 }));
    // An earlier event today and one the day after tomorrow: the "first event tomorrow" is neither.
    const others = [timedEvent(rng, titles[count]!, dateParts(DEVICE_NOW), { fromHour: 6, toHour: 7 }), timedEvent(rng, titles[count + 1]!, dateParts(DEVICE_NOW + 2 * DAY_MS), { fromHour: 5, toHour: 6 })];
    const first = tomorrowEvents[0]!.start - lead * 60_000;
    const t = { hour: new Date(first).getUTCHours(), minutes: new Date(first).getUTCMinutes() };
    return { lead, ...t, events: rng.shuffle([...tomorrowEvents, ...others]), alarms: randomAlarms(rng, rng.int(1, 3), [t]) };
  },
  initialize: async (device, p) => {
    await clearEvents(device);
    await addEvents(device, p.events.map(toInput));
    await setAlarms(device, p.alarms);
  },
  check: async (device, p) => {
    const [at, rest] = partitionAt(await readAlarms(device), p);
    return verdictOf([
      alarmsAtCondition(p, at, 1), ...alarmHas(at, p, 'on', 'on', (a) => (a.enabled ? 'on' : 'off'), (a) => a.enabled), ...otherAlarmsKept(rest, p.alarms),
    ]);
  },
  subgoals: (p) => [
    calendarOpen,
    dayOpen(dateParts(DEVICE_NOW + DAY_MS)),
    clockOpen,
    timePickerOpen,
    alarmsWhere('alarm set before the first event', (alarms) => partitionAt(alarms, p)[0].some((a) => a.enabled)),
  ],
  *oracle(p, ui) {
    yield* openCalendar(ui);
    yield* openDay(ui, dateParts(DEVICE_NOW + DAY_MS));
    // The day view lists events by start time; the first row's time is the first event's.
    const timeText = ui.require({ resourceId: 'event_item_time' }).node.text;
    const start = firstTime(timeText);
    if (!start) throw new OracleError(`No start time in ${JSON.stringify(timeText)}`, screenSummary(ui.obs));
    const total = start.hour * 60 + start.minutes - p.lead;
    yield* openClockTab(ui, 'alarm');
    yield ui.tap({ contentDesc: 'Add alarm' });
    yield* enterTime(ui, Math.floor(total / 60), total % 60);
    yield ui.complete();
  },
});

const CopyText = z.object({ text: z.string().min(1) });

/**
 * AndroidWorld's SystemCopyToClipboard: the text must end up on the clipboard (read back through
 * Clipper, as AndroidWorld reads it). Any text field will do; the oracle types it into Simple SMS
 * Messenger's search (nothing is kept there), selects it all and copies it.
 */
export const CopyToClipboard = defineTask({
  id: 'SystemCopyToClipboard',
  apps: ['Simple SMS Messenger'],
  difficulty: 'medium',
  tags: ['data_entry', 'long_press', 'memorization'],
  kind: 'completion',
  template: 'Copy the following text to the clipboard: {text}',
  params: CopyText,
  generate: (rng) => ({ text: rng.chance(0.5) ? randomAddress(rng) : `${randomTitles(rng, 1)[0]!} ${rng.int(10, 9999)}` }),
  initialize: async (device) => setClipboard(device, ' '),
  check: async (device, p) => verdictOf([await clipboardHolds(device, p.text)]),
  subgoals: (p) => [
    { name: 'text typed', check: async ({ obs }) => fieldHolds(obs, p.text) },
    { name: 'text copied', check: async ({ device }) => (await clipboardHolds(device, p.text)).ok },
  ],
  *oracle(p, ui) {
    yield* openSms(ui);
    yield ui.tap({ contentDesc: 'Search' });
    yield ui.type({ resourceId: 'search_src_text' }, p.text);
    yield* copyAllOf(ui, { resourceId: 'search_src_text' });
    yield ui.complete();
  },
});

export const SYSTEM_TASKS: readonly TaskTemplate[] = [WifiThenOpenApp, AlarmBeforeFirstEvent, CopyToClipboard];
