import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import type { Device } from '../../../device/device.js';
import { putSetting, settingVerdict } from '../../validators/settings.js';
import { met } from '../../verdict.js';
import { onScreen } from '../../validators/ui.js';
import { openSettingsPath, pageOpen, settingsOpen } from './common.js';

/**
 * Display settings with a value rather than a switch: brightness (0–255 in the Settings provider,
 * a slider in the UI) and screen timeout (a dialog of choices).
 */
const BRIGHTNESS = { ns: 'system', key: 'screen_brightness' } as const;
/** The slider maps the middle 92% of its width to 0–100% (the ends saturate). */
const TRACK_INSET = 0.04;

function brightnessPoint(ui: Parameters<TaskTemplate['oracle']>[1], fraction: number) {
  const b = ui.require({ resourceId: 'brightness_slider' }).node.bounds;
  const fx = fraction <= 0 ? 0.01 : fraction >= 1 ? 0.99 : TRACK_INSET + fraction * (1 - 2 * TRACK_INSET);
  return { action_type: 'click' as const, x: Math.round(b.left + fx * (b.right - b.left)), y: Math.round((b.top + b.bottom) / 2) };
}

const Extreme = z.object({});

function brightnessExtreme(max: boolean): TaskTemplate<z.infer<typeof Extreme>> {
  // The slider's ends: 255 and 1 (Android keeps the screen lit; AndroidWorld checks the same values).
  const want = max ? 255 : 1;
  const atExtreme = (device: Device) => settingVerdict(device, BRIGHTNESS.ns, BRIGHTNESS.key, String(want), (v) => Number(v) === want, `brightness at ${want}`);
  return defineTask({
    id: max ? 'SystemBrightnessMax' : 'SystemBrightnessMin',
    apps: ['Settings'],
    difficulty: 'easy',
    tags: ['toggle'],
    kind: 'completion',
    template: `Turn brightness to the ${max ? 'max' : 'min'} value.`,
    params: Extreme,
    generate: () => ({}),
    initialize: async (device) => putSetting(device, BRIGHTNESS.ns, BRIGHTNESS.key, '128'),
    check: async (device) => atExtreme(device),
    subgoals: () => [
      settingsOpen,
      pageOpen('Display'),
      { name: `brightness at ${want}`, check: async ({ device }) => met(await atExtreme(device)) },
    ],
    *oracle(_p, ui) {
      yield* openSettingsPath(ui, ['Display']);
      yield brightnessPoint(ui, max ? 1 : 0);
      yield ui.complete();
    },
  });
}

const Level = z.object({ percent: z.int().min(10).max(90).multipleOf(10) });

// Within 5 percentage points: a finger cannot hit an exact slider value, and Settings shows whole percents.
const nearLevel = (device: Device, percent: number) => settingVerdict(device, BRIGHTNESS.ns, BRIGHTNESS.key, `${Math.round((percent / 100) * 255)} (${percent}% ± 5)`,
  (v) => Math.abs((Number(v) / 255) * 100 - percent) <= 5, `brightness within 5 points of ${percent}%`);

export const BrightnessLevel = defineTask({
  id: 'SystemBrightnessLevel',
  apps: ['Settings'],
  difficulty: 'medium',
  tags: ['toggle', 'complex_ui'],
  kind: 'completion',
  template: 'Set the screen brightness to {percent}%.',
  params: Level,
  generate: (rng) => ({ percent: rng.int(1, 9) * 10 }),
  initialize: async (device, p) => putSetting(device, BRIGHTNESS.ns, BRIGHTNESS.key, p.percent >= 50 ? '25' : '230'),
  check: async (device, p) => nearLevel(device, p.percent),
  subgoals: (p) => [
    settingsOpen,
    pageOpen('Display'),
    {
      name: `brightness near ${p.percent}%`,
      check: async ({ device }) => met(await nearLevel(device, p.percent)),
    },
  ],
  *oracle(p, ui) {
    yield* openSettingsPath(ui, ['Display']);
    yield brightnessPoint(ui, p.percent / 100);
    yield ui.complete();
  },
});

const TIMEOUTS = [
  ['15 seconds', 15000], ['30 seconds', 30000], ['1 minute', 60000], ['2 minutes', 120000],
  ['5 minutes', 300000], ['10 minutes', 600000], ['30 minutes', 1800000],
] as const;

const Timeout = z.object({ label: z.enum(TIMEOUTS.map(([l]) => l) as [string, ...string[]]) });
const timeoutMs = (label: string) => TIMEOUTS.find(([l]) => l === label)![1];
const timeoutVerdict = (device: Device, label: string) => settingVerdict(device, 'system', 'screen_off_timeout', String(timeoutMs(label)), undefined, `screen timeout ${label} (ms)`);

export const ScreenTimeout = defineTask({
  id: 'SystemScreenTimeout',
  apps: ['Settings'],
  difficulty: 'medium',
  tags: ['dialog'],
  kind: 'completion',
  template: 'Set the screen timeout to {label}.',
  params: Timeout,
  generate: (rng) => ({ label: rng.pick(TIMEOUTS.filter(([, ms]) => ms !== 60000)).at(0) as string }),
  initialize: async (device) => putSetting(device, 'system', 'screen_off_timeout', '60000'),
  check: async (device, p) => timeoutVerdict(device, p.label),
  subgoals: (p) => [
    settingsOpen,
    pageOpen('Display'),
    { name: 'timeout dialog open', check: async ({ obs }) => onScreen(obs, { text: 'Screen timeout', resourceId: 'android:id/alertTitle' }) },
    { name: `timeout ${p.label}`, check: async ({ device }) => met(await timeoutVerdict(device, p.label)) },
  ],
  *oracle(p, ui) {
    yield* openSettingsPath(ui, ['Display', 'Screen timeout']);
    yield ui.tap({ text: p.label, className: 'android.widget.RadioButton' });
    yield ui.complete();
  },
});

export const DISPLAY_TASKS: readonly TaskTemplate[] = [brightnessExtreme(true), brightnessExtreme(false), BrightnessLevel, ScreenTimeout];
