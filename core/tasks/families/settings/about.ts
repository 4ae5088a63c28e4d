import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import type { Device } from '../../../device/device.js';
import { FIRST_NAMES } from '../../../seed-data/people.js';
import { putSetting, settingVerdict } from '../../validators/settings.js';
import { met } from '../../verdict.js';
import { answerVerdict } from '../../validators/answers.js';
import { fieldHolds, onScreen } from '../../validators/ui.js';
import { openSettingsPath, pageOpen, settingsOpen } from './common.js';

/** "About emulated device": renaming the device (a dialog with a text field) and reading device facts. */
const DEVICE_NAMES = ['Pixel', 'Phone', 'Tablet', 'Handset', 'Mobile'];

const Rename = z.object({ name: z.string().min(1), previous: z.string().min(1) });

const renamedVerdict = (device: Device, name: string) => settingVerdict(device, 'global', 'device_name', name, undefined, `device named ${name}`);

export const RenameDevice = defineTask({
  id: 'SystemRenameDevice',
  apps: ['Settings'],
  difficulty: 'medium',
  tags: ['data_entry', 'dialog', 'needs_scrolling'],
  kind: 'completion',
  template: 'Rename this device to "{name}".',
  params: Rename,
  generate: (rng) => {
    const owner = rng.pick(FIRST_NAMES);
    const name = `${owner}'s ${rng.pick(DEVICE_NAMES)}`;
    let previous = `${rng.pick(FIRST_NAMES)}'s ${rng.pick(DEVICE_NAMES)}`;
    if (previous === name) previous = 'SimDroid';
    return { name, previous };
  },
  initialize: async (device, p) => putSetting(device, 'global', 'device_name', p.previous),
  check: async (device, p) => renamedVerdict(device, p.name),
  subgoals: (p) => [
    settingsOpen,
    pageOpen('About emulated device'),
    { name: 'rename dialog open', check: async ({ obs }) => onScreen(obs, { text: 'Device name', resourceId: 'android:id/alertTitle' }) },
    { name: 'new name typed', check: async ({ obs }) => fieldHolds(obs, p.name) },
    { name: 'device renamed', check: async ({ device }) => met(await renamedVerdict(device, p.name)) },
  ],
  *oracle(p, ui) {
    yield* openSettingsPath(ui, ['About emulated device', 'Device name']);
    yield ui.type({ className: 'android.widget.EditText' }, p.name, { clear: true });
    yield ui.tap({ text: 'Rename' });
    yield ui.complete();
  },
});

/** Facts shown on the About page, asked as questions. */
const FACTS = [
  { question: 'What is the Android version of this device?', answer: '13', row: 'Android version' },
  { question: 'What is the build number of this device?', answer: 'TE1A.220922.012', row: 'Build number' },
  { question: "What is this device's IP address?", answer: '10.0.2.16', row: 'IP address' },
  { question: 'What is the model of this device?', answer: 'SimDroid Pixel', row: 'Model' },
] as const;

const Fact = z.object({ fact: z.int().min(0).max(FACTS.length - 1) });

export const AboutDeviceFact = defineTask({
  id: 'SystemAboutDeviceQuestion',
  apps: ['Settings'],
  difficulty: 'easy',
  tags: ['information_retrieval', 'needs_scrolling', 'screen_reading'],
  kind: 'information_retrieval',
  template: '{question}',
  params: Fact,
  generate: (rng) => ({ fact: rng.int(0, FACTS.length - 1) }),
  instruction: (p) => `${FACTS[p.fact]!.question} Answer with the value only.`,
  initialize: async () => {},
  check: async (_device, p, episode) => answerVerdict(episode.answer, FACTS[p.fact]!.answer),
  subgoals: () => [settingsOpen, pageOpen('About emulated device')],
  *oracle(p, ui) {
    yield* openSettingsPath(ui, ['About emulated device']);
    yield ui.answer(ui.valueNextTo({ text: FACTS[p.fact]!.row }));
  },
});

const Name = z.object({ name: z.string().min(1) });

export const DeviceNameQuestion = defineTask({
  id: 'SystemDeviceNameQuestion',
  apps: ['Settings'],
  difficulty: 'easy',
  tags: ['information_retrieval', 'needs_scrolling'],
  kind: 'information_retrieval',
  template: "What is this device's name?",
  params: Name,
  generate: (rng) => ({ name: `${rng.pick(FIRST_NAMES)}'s ${rng.pick(DEVICE_NAMES)}` }),
  initialize: async (device, p) => putSetting(device, 'global', 'device_name', p.name),
  check: async (_device, p, episode) => answerVerdict(episode.answer, p.name),
  subgoals: () => [settingsOpen, pageOpen('About emulated device')],
  *oracle(_p, ui) {
    yield* openSettingsPath(ui, ['About emulated device']);
    yield ui.answer(ui.valueNextTo({ text: 'Device name' }));
  },
});

export const ABOUT_TASKS: readonly TaskTemplate[] = [RenameDevice, AboutDeviceFact, DeviceNameQuestion];
