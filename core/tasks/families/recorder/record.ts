import { z } from 'zod';
import type { Device } from '../../../device/device.js';
import { defineTask, type Subgoal, type TaskTemplate } from '../../task.js';
import { ADJECTIVES, NOUNS } from '../../../seed-data/text.js';
import { fieldHolds, onScreen } from '../../validators/ui.js';
import { newRecordingConditions, drawRecords, FORMATS, openRecorder, readRecords, recordClip, recorderOpen, recordingFiles, recordingFormat, SeedRecord, seedRecords, setPrefs } from './recorder-db.js';
import { condition, met, verdictOf, type CheckCondition } from '../../verdict.js';

/**
 * Recording with Audio Recorder: the clip's length is virtual device time between Record and Stop
 * (a `wait` makes it longer). A new recording must be saved as both a row and a file, and the
 * recordings that were there must be left alone.
 */
const RecordParams = z.object({ seeded: z.array(SeedRecord), askRename: z.boolean(), seconds: z.int().min(1).max(30) });

/** One new recording saved (row and file), nothing else new, the seeded ones intact. */
async function recordingVerdict(device: Device, seeded: readonly SeedRecord[]) {
  const [rows, files] = await Promise.all([readRecords(device), recordingFiles(device)]);
  return newRecordingConditions(rows, files, seeded);
}

/** A new recording as `recordingVerdict` says, then its name (and format). */
async function recordingNamed(device: Device, seeded: readonly SeedRecord[], name: string, format?: string): Promise<CheckCondition[]> {
  const { conditions, added } = await recordingVerdict(device, seeded);
  if (!added) return conditions;
  return [...conditions, condition('new recording named', name, added.name), ...(format ? [condition('new recording format', format, added.format)] : [])];
}

const recordingSaved = (seeded: readonly SeedRecord[]): Subgoal => ({
  name: 'recording saved', check: async ({ device }) => met((await recordingVerdict(device, seeded)).conditions),
});

const recordingStarted: Subgoal = { name: 'recording started', check: async ({ obs }) => onScreen(obs, { contentDesc: 'Stop recording' }) };

export const RecordAudio = defineTask({
  id: 'AudioRecorderRecordAudio',
  apps: ['Audio Recorder'],
  difficulty: 'easy',
  tags: ['data_entry'],
  kind: 'completion',
  template: 'Record an audio clip using Audio Recorder app and save it.',
  params: RecordParams,
  generate: (rng) => ({ seeded: drawRecords(rng, rng.int(0, 5)), askRename: rng.chance(0.7), seconds: rng.int(2, 8) }),
  initialize: async (device, p) => {
    await seedRecords(device, p.seeded);
    await setPrefs(device, { is_ask_rename_after_stop_recording: p.askRename });
  },
  check: async (device, p) => verdictOf((await recordingVerdict(device, p.seeded)).conditions),
  subgoals: (p) => [recorderOpen, recordingStarted, recordingSaved(p.seeded)],
  *oracle(p, ui) {
    yield* openRecorder(ui);
    yield* recordClip(ui, p.seconds);
    yield ui.complete();
  },
});

const NamedParams = RecordParams.extend({ name: z.string().min(1) });

function clipName(rng: Parameters<TaskTemplate['generate']>[0]): string {
  const adj = rng.pick(ADJECTIVES);
  return `${adj[0]!.toUpperCase()}${adj.slice(1)} ${rng.pick(NOUNS)} ${rng.int(1, 99)}`;
}

export const RecordAudioWithFileName = defineTask({
  id: 'AudioRecorderRecordAudioWithFileName',
  apps: ['Audio Recorder'],
  difficulty: 'medium',
  tags: ['data_entry', 'dialog'],
  kind: 'completion',
  template: 'Record an audio clip and save it with name "{name}" using Audio Recorder app.',
  params: NamedParams,
  generate: (rng) => ({ seeded: drawRecords(rng, rng.int(0, 5)), askRename: rng.chance(0.6), seconds: rng.int(2, 8), name: clipName(rng) }),
  initialize: async (device, p) => {
    await seedRecords(device, p.seeded);
    await setPrefs(device, { is_ask_rename_after_stop_recording: p.askRename });
  },
  check: async (device, p) => verdictOf(await recordingNamed(device, p.seeded, p.name)),
  subgoals: (p) => [
    recorderOpen,
    recordingStarted,
    recordingSaved(p.seeded),
    { name: 'name typed', check: async ({ obs }) => fieldHolds(obs, p.name) },
    { name: `saved as ${p.name}`, check: async ({ device }) => met(await recordingNamed(device, p.seeded, p.name)) },
  ],
  *oracle(p, ui) {
    yield* openRecorder(ui);
    yield* recordClip(ui, p.seconds, p.name);
    yield ui.complete();
  },
});

const WavParams = NamedParams.extend({ startFormat: z.enum(FORMATS) });

export const RecordWavWithName = defineTask({
  id: 'AudioRecorderRecordWavWithName',
  apps: ['Audio Recorder'],
  difficulty: 'hard',
  tags: ['data_entry', 'complex_ui', 'dialog'],
  kind: 'completion',
  template: 'Using Audio Recorder, record an audio clip in WAV format and save it with the name "{name}".',
  params: WavParams,
  generate: (rng) => ({
    seeded: drawRecords(rng, rng.int(0, 4)), askRename: rng.chance(0.5), seconds: rng.int(2, 6), name: clipName(rng),
    startFormat: rng.pick(['m4a', '3gp'] as const),
  }),
  initialize: async (device, p) => {
    await seedRecords(device, p.seeded);
    await setPrefs(device, { is_ask_rename_after_stop_recording: p.askRename, setting_recording_format: p.startFormat });
  },
  check: async (device, p) => verdictOf(await recordingNamed(device, p.seeded, p.name, 'wav')),
  subgoals: (p) => [
    recorderOpen,
    { name: 'format set to wav', check: async ({ device }) => (await recordingFormat(device)) === 'wav' },
    recordingStarted,
    { name: `saved as ${p.name}.wav`, check: async ({ device }) => met(await recordingNamed(device, p.seeded, p.name, 'wav')) },
  ],
  *oracle(p, ui) {
    yield* openRecorder(ui);
    yield ui.tap({ contentDesc: 'Settings' });
    yield ui.tap({ text: 'Wav' });
    yield ui.back();
    yield* recordClip(ui, p.seconds, p.name);
    yield ui.complete();
  },
});

export const RECORD_TASKS: readonly TaskTemplate[] = [RecordAudio, RecordAudioWithFileName, RecordWavWithName];
