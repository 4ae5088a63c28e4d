import { afterAll, describe, expect, it } from 'vitest';
import { resetForTask } from '../../core/episode/runner.js';
import { instantiate } from '../../core/tasks/instance.js';
import type { TaskTemplate } from '../../core/tasks/task.js';
import { RecordAudio, RecordAudioWithFileName, RecordWavWithName } from '../../core/tasks/families/recorder/record.js';
import { BookmarkRecording, DeleteRecording, RenameRecording } from '../../core/tasks/families/recorder/manage.js';
import { SetFormat } from '../../core/tasks/families/recorder/settings.js';
import { durationAnswerMatches, LongestRecordingQuestion, RecordingDurationQuestion } from '../../core/tasks/families/recorder/questions.js';
import { RECORD_DB } from '../../core/tasks/families/recorder/recorder-db.js';
import { device, find, sh, tap, typeInto } from '../helpers/simdroid.js';

/** Each Audio Recorder checker accepts the right end state and rejects near misses. */
const d = device();
afterAll(() => d.close());

async function start<P>(t: TaskTemplate<P>, seed = 2): Promise<P> {
  const inst = instantiate(t, seed);
  await resetForTask(d, inst);
  return inst.params;
}

const check = <P>(t: TaskTemplate<P>, p: P, answer?: string) => t.check(d, p, { actions: [], ...(answer !== undefined ? { answer } : {}) }).then((v) => v.ok);
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const sql = (stmt: string) => sh(d, `sqlite3 ${RECORD_DB} ${q(stmt)}`);
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
const DIR = '/sdcard/Android/data/com.dimowner.audiorecorder/files/Music/records';

function open(): void {
  sh(d, 'am start -n com.dimowner.audiorecorder/com.dimowner.audiorecorder.app.main.MainActivity');
}

/** Records through the UI; answers the rename prompt with `name` (or keeps the default). */
async function recordInUi(ms: number, name?: string): Promise<void> {
  open();
  tap(d, { contentDesc: 'Record' });
  await d.idle(ms);
  tap(d, { contentDesc: 'Stop recording' });
  if (!find(d, { text: 'New name' })) {
    if (name === undefined) return;
    // No prompt after recording (the setting is off): rename from the main screen.
    tap(d, { resourceId: 'txt_name' });
  }
  if (name !== undefined) {
    for (let i = 0; i < 12; i++) d.inputSync({ kind: 'key', key: 'DEL' });
    typeInto(d, { resourceId: 'input_name' }, name);
  }
  tap(d, { text: 'Save' });
}

describe('AudioRecorderRecordAudio', () => {
  it('needs a new row and its file; a stray file or row is not a recording', async () => {
    const p = await start(RecordAudio);
    expect(await check(RecordAudio, p)).toBe(false);
    sh(d, `echo audio > ${DIR}/Record-9.m4a`);
    expect(await check(RecordAudio, p)).toBe(false);
    sh(d, `rm ${DIR}/Record-9.m4a`);
    sql(`INSERT INTO records (name, duration, created, added, path, format, size, sample_rate, channel_count, bitrate) VALUES ('Ghost', 5000, 0, 0, '/storage/emulated/0/Android/data/com.dimowner.audiorecorder/files/Music/records/Ghost.m4a', 'm4a', 10, 44100, 2, 128000)`);
    expect(await check(RecordAudio, p)).toBe(false);
    sql("DELETE FROM records WHERE name = 'Ghost'");
    await recordInUi(3000);
    expect(await check(RecordAudio, p)).toBe(true);
  });

  it('rejects two recordings, or one recorded over a deleted old one', async () => {
    const p = await start(RecordAudio, 5);
    expect(p.seeded.length).toBeGreaterThan(0);
    await recordInUi(1000);
    await recordInUi(1000);
    expect(await check(RecordAudio, p)).toBe(false);
    await resetForTask(d, instantiate(RecordAudio, 5));
    await recordInUi(1000);
    const old = p.seeded[0]!;
    sh(d, `rm ${q(`${DIR}/${old.name}.${old.format}`)}`);
    expect(await check(RecordAudio, p)).toBe(false);
  });
});

describe('AudioRecorderRecordAudioWithFileName', () => {
  it('wants exactly the name, on the row and the file', async () => {
    const p = await start(RecordAudioWithFileName);
    await recordInUi(2000);
    expect(await check(RecordAudioWithFileName, p)).toBe(false);
    await resetForTask(d, instantiate(RecordAudioWithFileName, 2));
    await recordInUi(2000, p.name.toLowerCase());
    expect(await check(RecordAudioWithFileName, p)).toBe(false);
    await resetForTask(d, instantiate(RecordAudioWithFileName, 2));
    await recordInUi(2000, p.name);
    expect(await check(RecordAudioWithFileName, p)).toBe(true);
    // The row alone, its file gone, is not a saved recording.
    sh(d, `rm ${q(`${DIR}/${p.name}.m4a`)}`);
    expect(await check(RecordAudioWithFileName, p)).toBe(false);
  });
});

describe('AudioRecorderRecordWavWithName', () => {
  it('rejects the right name in the wrong format', async () => {
    const p = await start(RecordWavWithName);
    await recordInUi(2000, p.name);
    expect(await check(RecordWavWithName, p)).toBe(false);
    await resetForTask(d, instantiate(RecordWavWithName, 2));
    open();
    tap(d, { contentDesc: 'Settings' });
    tap(d, { text: 'Wav' });
    d.inputSync({ kind: 'key', key: 'BACK' });
    await recordInUi(2000, p.name);
    expect(await check(RecordWavWithName, p)).toBe(true);
  });
});

describe('AudioRecorderDeleteRecording', () => {
  it('needs both the row and the file gone, and nothing else', async () => {
    const p = await start(DeleteRecording);
    const t = p.seeded.find((s) => s.name === p.target)!;
    sql(`DELETE FROM records WHERE name = ${lit(t.name)}`);
    expect(await check(DeleteRecording, p)).toBe(false);
    sh(d, `rm ${q(`${DIR}/${t.name}.${t.format}`)}`);
    expect(await check(DeleteRecording, p)).toBe(true);
    const other = p.seeded.find((s) => s.name !== p.target)!;
    sh(d, `rm ${q(`${DIR}/${other.name}.${other.format}`)}`);
    expect(await check(DeleteRecording, p)).toBe(false);
  });

  it('rejects deleting only the file', async () => {
    const p = await start(DeleteRecording);
    const t = p.seeded.find((s) => s.name === p.target)!;
    sh(d, `rm ${q(`${DIR}/${t.name}.${t.format}`)}`);
    expect(await check(DeleteRecording, p)).toBe(false);
  });
});

describe('AudioRecorderRenameRecording', () => {
  it('needs the row and the file renamed together', async () => {
    const p = await start(RenameRecording);
    const t = p.seeded.find((s) => s.name === p.target)!;
    const newPath = `/storage/emulated/0/Android/data/com.dimowner.audiorecorder/files/Music/records/${p.newName}.${t.format}`;
    sql(`UPDATE records SET name = ${lit(p.newName)}, path = ${lit(newPath)} WHERE name = ${lit(t.name)}`);
    expect(await check(RenameRecording, p)).toBe(false);
    sh(d, `mv ${q(`${DIR}/${t.name}.${t.format}`)} ${q(`${DIR}/${p.newName}.${t.format}`)}`);
    expect(await check(RenameRecording, p)).toBe(true);
  });
});

describe('AudioRecorderBookmarkRecording', () => {
  it('bookmarks the target and leaves the others as they were', async () => {
    const p = await start(BookmarkRecording);
    const other = p.seeded.find((s) => s.name !== p.target && !s.bookmark)!;
    expect(await check(BookmarkRecording, p)).toBe(false);
    sql(`UPDATE records SET bookmark = 1 WHERE name IN (${lit(p.target)}, ${lit(other.name)})`);
    expect(await check(BookmarkRecording, p)).toBe(false);
    sql(`UPDATE records SET bookmark = 0 WHERE name = ${lit(other.name)}`);
    expect(await check(BookmarkRecording, p)).toBe(true);
  });
});

describe('AudioRecorderSetFormat', () => {
  it('reads the format back from the shared_prefs file', async () => {
    const p = await start(SetFormat);
    expect(await check(SetFormat, p)).toBe(false);
    open();
    tap(d, { contentDesc: 'Settings' });
    const wrong = ['M4a', 'Wav', '3gp'].find((l) => l.toLowerCase() !== p.format && l.toLowerCase() !== p.start)!;
    tap(d, { text: wrong });
    expect(await check(SetFormat, p)).toBe(false);
    tap(d, { text: { m4a: 'M4a', wav: 'Wav', '3gp': '3gp' }[p.format] });
    expect(await check(SetFormat, p)).toBe(true);
  });
});

describe('Audio Recorder questions', () => {
  it('names the longest recording', async () => {
    const p = await start(LongestRecordingQuestion);
    const sorted = [...p.seeded].sort((a, b) => b.durationMs - a.durationMs);
    expect(await check(LongestRecordingQuestion, p)).toBe(false);
    expect(await check(LongestRecordingQuestion, p, sorted[1]!.name)).toBe(false);
    expect(await check(LongestRecordingQuestion, p, sorted[0]!.name.toUpperCase())).toBe(true);
  });

  it('reads a duration as mm:ss or seconds', async () => {
    const p = await start(RecordingDurationQuestion);
    const ms = p.seeded.find((s) => s.name === p.target)!.durationMs;
    const secs = Math.floor(ms / 1000);
    const mmss = `${String(Math.floor(secs / 60)).padStart(2, '0')}:${String(secs % 60).padStart(2, '0')}`;
    expect(await check(RecordingDurationQuestion, p, mmss)).toBe(true);
    expect(await check(RecordingDurationQuestion, p, `${secs} seconds`)).toBe(true);
    expect(await check(RecordingDurationQuestion, p, `${secs + 1}`)).toBe(false);
    expect(durationAnswerMatches('1:05', 65_400)).toBe(true);
    expect(durationAnswerMatches('01:05', 66_000)).toBe(false);
    expect(durationAnswerMatches('1:01:05', 3_665_000)).toBe(true);
  });
});
