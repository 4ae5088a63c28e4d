import { z } from 'zod';
import { defineTask, type Difficulty, type TaskTag, type TaskTemplate } from '../../task.js';
import type { Device } from '../../../device/device.js';
import { putSetting, settingVerdict, type SettingsNamespace } from '../../validators/settings.js';
import { met } from '../../verdict.js';
import { openSettingsPath, pageOpen, settingsOpen, switchIsOn } from './common.js';

/**
 * Settings switches (Wi-Fi, Bluetooth, airplane mode, dark theme, 24-hour time, location, battery
 * saver): one family, a thin definition per switch and direction, as AndroidWorld's
 * SystemWifiTurnOn/Off share one class. The state is the Settings provider value; the oracle walks
 * the Settings pages to the switch and taps it.
 */
interface SwitchDef {
  name: string;
  /** What the instruction calls it. */
  what: string;
  ns: SettingsNamespace;
  key: string;
  on: string;
  off: string;
  /** Titles to tap from the top-level list, then the switch row's label. */
  path: readonly string[];
  row: string;
  difficulty: Difficulty;
}

const SWITCHES: readonly SwitchDef[] = [
  { name: 'Wifi', what: 'Wi-Fi', ns: 'global', key: 'wifi_on', on: '1', off: '0', path: ['Network & internet', 'Internet'], row: 'Wi‑Fi', difficulty: 'easy' },
  { name: 'Bluetooth', what: 'Bluetooth', ns: 'global', key: 'bluetooth_on', on: '1', off: '0', path: ['Connected devices', 'Connection preferences', 'Bluetooth'], row: 'Use Bluetooth', difficulty: 'medium' },
  { name: 'AirplaneMode', what: 'airplane mode', ns: 'global', key: 'airplane_mode_on', on: '1', off: '0', path: ['Network & internet'], row: 'Airplane mode', difficulty: 'easy' },
  { name: 'DarkTheme', what: 'dark theme', ns: 'secure', key: 'ui_night_mode', on: '2', off: '1', path: ['Display'], row: 'Dark theme', difficulty: 'easy' },
  { name: 'TimeFormat24h', what: 'the 24-hour time format', ns: 'system', key: 'time_12_24', on: '24', off: '12', path: ['System', 'Date & time'], row: 'Use 24-hour format', difficulty: 'medium' },
  { name: 'Location', what: 'location', ns: 'secure', key: 'location_mode', on: '3', off: '0', path: ['Location'], row: 'Use location', difficulty: 'medium' },
  { name: 'BatterySaver', what: 'Battery Saver', ns: 'global', key: 'low_power', on: '1', off: '0', path: ['Battery'], row: 'Battery Saver', difficulty: 'easy' },
];

const NoParams = z.object({});

function switchTask(d: SwitchDef, turnOn: boolean): TaskTemplate<z.infer<typeof NoParams>> {
  const want = turnOn ? d.on : d.off;
  const start = turnOn ? d.off : d.on;
  const toggled = (device: Device) => settingVerdict(device, d.ns, d.key, want, undefined, `${d.what} ${turnOn ? 'on' : 'off'} (${d.ns}/${d.key} = ${want})`);
  const tags: TaskTag[] = ['toggle'];
  if (d.path.length > 1) tags.push('complex_ui');
  if (['Location', 'Battery', 'System'].includes(d.path[0]!)) tags.push('needs_scrolling');
  return defineTask({
    id: `System${d.name}Turn${turnOn ? 'On' : 'Off'}`,
    apps: ['Settings'],
    difficulty: d.difficulty,
    tags,
    kind: 'completion',
    template: `Turn ${d.what} ${turnOn ? 'on' : 'off'}.`,
    params: NoParams,
    generate: () => ({}),
    initialize: async (device) => {
      await putSetting(device, d.ns, d.key, start);
    },
    check: async (device) => toggled(device),
    subgoals: () => [
      settingsOpen,
      pageOpen(d.path[d.path.length - 1]!),
      {
        name: `${d.what} ${turnOn ? 'on' : 'off'}`,
        check: async ({ device }) => met(await toggled(device)),
      },
    ],
    *oracle(_p, ui) {
      yield* openSettingsPath(ui, d.path);
      // Already in the goal state (AndroidWorld's *Verify instances start there): leave it.
      if (switchIsOn(ui, d.row) !== turnOn) yield ui.tap({ text: d.row });
      yield ui.complete();
    },
  });
}

export const SWITCH_TASKS: readonly TaskTemplate[] = SWITCHES.flatMap((d) => [switchTask(d, true), switchTask(d, false)]);
