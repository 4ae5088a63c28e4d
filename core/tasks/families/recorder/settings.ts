import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import { inActivity } from '../../validators/ui.js';
import { FORMAT_LABEL, FORMATS, openRecorder, RECORDER_PKG, recorderOpen, recordingFormat, setPrefs, SETTINGS_ACTIVITY } from './recorder-db.js';
import { condition, verdictOf } from '../../verdict.js';

/** Audio Recorder's settings: the recording format chips (checked through the shared_prefs file). */
const Params = z.object({ format: z.enum(FORMATS), start: z.enum(FORMATS) });

const SPOKEN: Record<(typeof FORMATS)[number], string> = { m4a: 'M4A', wav: 'WAV', '3gp': '3GP' };

export const SetFormat = defineTask({
  id: 'AudioRecorderSetFormat',
  apps: ['Audio Recorder'],
  difficulty: 'easy',
  tags: ['toggle'],
  kind: 'completion',
  template: 'In Audio Recorder, change the recording format to {format}.',
  params: Params,
  generate: (rng) => {
    const format = rng.pick(FORMATS);
    return { format, start: rng.pick(FORMATS.filter((f) => f !== format)) };
  },
  instruction: (p) => `In Audio Recorder, change the recording format to ${SPOKEN[p.format]}.`,
  initialize: async (device, p) => setPrefs(device, { setting_recording_format: p.start }),
  check: async (device, p) => verdictOf([condition('recording format', p.format, await recordingFormat(device))]),
  subgoals: (p) => [
    recorderOpen,
    { name: 'settings open', check: async ({ obs }) => inActivity(obs, RECORDER_PKG, SETTINGS_ACTIVITY) },
    { name: `format ${p.format}`, check: async ({ device }) => (await recordingFormat(device)) === p.format },
  ],
  *oracle(p, ui) {
    yield* openRecorder(ui);
    yield ui.tap({ contentDesc: 'Settings' });
    yield ui.tap({ text: FORMAT_LABEL[p.format] });
    yield ui.complete();
  },
});

export const SETTINGS_TASKS: readonly TaskTemplate[] = [SetFormat];
