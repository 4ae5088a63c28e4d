import type { ActivityDef } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { appBar, column, list, listItem, screen, switchRow, text, type ListItemOpts } from '../../view/widgets.js';

/**
 * DeskClock's Settings screen (overflow › Settings). The switches persist in the app's shared
 * preferences; the other rows show DeskClock's defaults.
 */
export const CLOCK_SETTINGS = 'com.android.deskclock.settings.SettingsActivity';

function section(title: string): ViewSpec {
  return text(title, { size: 14, bold: true, fg: 'primary', pad: [20, 24, 4, 24] });
}

/** A preference row, indented like the switch rows (which the shared switchRow pads by 24dp). */
function pref(o: ListItemOpts): ViewSpec {
  return column([listItem(o)], { pad: [0, 0, 0, 8] });
}

export const clockSettings: ActivityDef<Record<string, never>> = {
  name: CLOCK_SETTINGS,
  create: () => ({}),
  render: (ctx) => {
    const prefs = ctx.app.prefs;
    const flag = (key: string, label: string, def: boolean, summary?: string) => {
      const on = (prefs[key] ?? (def ? 'true' : 'false')) === 'true';
      return switchRow({ id: key, label, checked: on, ...(summary ? { summary } : {}), onToggle: () => { prefs[key] = on ? 'false' : 'true'; } });
    };
    const rows: ViewSpec[] = [
      section('Clock'),
      pref({ id: 'clock_style', title: 'Style', subtitle: 'Digital' }),
      flag('display_clock_seconds', 'Display time with seconds', false),
      flag('automatic_home_clock', 'Automatic home clock', true, 'While traveling in an area where the time is different, add a clock for home'),
      pref({ id: 'home_time_zone', title: 'Home time zone', subtitle: '(GMT+0:00) Coordinated Universal Time' }),
      pref({ id: 'date_time', title: 'Change date & time' }),
      section('Alarms'),
      pref({ id: 'auto_silence', title: 'Silence after', subtitle: '10 minutes' }),
      pref({ id: 'snooze_duration', title: 'Snooze length', subtitle: '10 minutes' }),
      pref({ id: 'alarm_volume', title: 'Alarm volume' }),
      pref({ id: 'volume_button_setting', title: 'Volume buttons', subtitle: 'Control volume' }),
      pref({ id: 'week_start', title: 'Start week on', subtitle: 'Sunday' }),
      section('Timers'),
      pref({ id: 'timer_ringtone', title: 'Timer sound', subtitle: 'Timer Expired' }),
      flag('timer_crescendo', 'Gradually increase volume', false),
      flag('timer_vibrate', 'Timer vibrate', false),
    ];
    return { body: screen({ appBar: appBar({ title: 'Settings', onBack: () => ctx.nav.finish() }), body: [list('settings', rows, { id: 'recycler_view' })] }) };
  },
};
