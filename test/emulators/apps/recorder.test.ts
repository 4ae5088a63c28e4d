import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { BOOT_SNAPSHOT } from '../../../core/device/device.js';
import { boundsCenter } from '../../../core/a11y/ui-tree.js';
import { device, elements, find, get, longPress, sh, tap, typeInto } from '../../helpers/simdroid.js';

/**
 * Audio Recorder driven through its UI. Recording length is virtual time: every tap costs 1 s of
 * device time and d.idle() lets more pass, so durations are exact.
 */
const d = device();
afterAll(() => d.close());

const PKG = 'com.dimowner.audiorecorder';
const DB = `/data/data/${PKG}/databases/record.db`;
const PREFS = `/data/data/${PKG}/shared_prefs/com.dimowner.audiorecorder.data.PrefsImpl.xml`;
const DIR = '/sdcard/Android/data/com.dimowner.audiorecorder/files/Music/records';
/** Where the app says it keeps them (the path stored in the database). */
const FULL = '/storage/emulated/0/Android/data/com.dimowner.audiorecorder/files/Music/records';

const sql = (q: string) => sh(d, `sqlite3 ${DB} "${q}"`).trim();
const ls = () => sh(d, `ls -1 ${DIR}`).split('\n').filter(Boolean).sort();
const back = () => d.inputSync({ kind: 'key', key: 'BACK' });
const text = (id: string) => get(d, { resourceId: id }).node.text;
const prefs = () => sh(d, `cat ${PREFS}`);

/** As AndroidWorld opens it: the APK's launcher activity, which forwards to MainActivity. */
function open(): void {
  sh(d, `am start -n ${PKG}/${PKG}.app.welcome.WelcomeActivity`);
}

/** Record for `ms` of idle time (plus the second the Record tap takes), then stop. */
async function record(ms: number): Promise<void> {
  tap(d, { contentDesc: 'Record' });
  await d.idle(ms);
  tap(d, { contentDesc: 'Stop recording' });
}

beforeEach(() => {
  d.loadSnapshotSync(BOOT_SNAPSHOT);
  open();
});

describe('Audio Recorder recording', () => {
  it('opens MainActivity from the launcher WelcomeActivity, one activity deep', () => {
    expect(d.wm.foreground().activity).toBe(`${PKG}.app.main.MainActivity`);
    expect(d.wm.frontTask().stack.map((r) => r.activity)).toEqual([`${PKG}.app.main.MainActivity`]);
  });

  it('starts with an empty main screen', () => {
    expect(text('txt_progress')).toBe('00:00');
    expect(find(d, { contentDesc: 'Record' })).toBeDefined();
    expect(sql('SELECT COUNT(*) FROM records')).toBe('0');
    expect(ls()).toEqual([]);
  });

  it('counts the elapsed time from the virtual clock and saves file and row on Stop', async () => {
    tap(d, { contentDesc: 'Record' });
    await d.idle(5000);
    expect(text('txt_progress')).toBe('00:06');
    expect(find(d, { text: 'Recording…' })).toBeDefined();
    tap(d, { contentDesc: 'Stop recording' });
    // The rename prompt comes up with the default name; Save keeps it.
    expect(text('input_name')).toBe('Record-1');
    tap(d, { text: 'Save' });
    expect(sql("SELECT name, duration, format, path FROM records")).toBe(`Record-1|6000|m4a|${FULL}/Record-1.m4a`);
    expect(ls()).toEqual(['Record-1.m4a']);
    expect(sh(d, `stat -c %s ${DIR}/Record-1.m4a`).trim()).toBe(sql('SELECT size FROM records'));
    expect(text('txt_name')).toBe('Record-1');
    expect(text('txt_progress')).toBe('00:06');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('leaves pauses out of the duration', async () => {
    tap(d, { contentDesc: 'Record' });
    await d.idle(2000);
    tap(d, { contentDesc: 'Pause recording' });
    expect(find(d, { text: 'Paused' })).toBeDefined();
    await d.idle(10_000);
    tap(d, { contentDesc: 'Resume recording' });
    await d.idle(1000);
    tap(d, { contentDesc: 'Stop recording' });
    tap(d, { text: 'Save' });
    // Record→Pause 3 s (tap + idle), Resume→Stop 2 s (tap + idle).
    expect(sql('SELECT duration FROM records')).toBe('5000');
  });

  it('numbers recordings and makes longer ones bigger', async () => {
    await record(2000);
    tap(d, { text: 'Save' });
    await record(20_000);
    expect(text('input_name')).toBe('Record-2');
    tap(d, { text: 'Cancel' });
    const [a, b] = sql('SELECT size FROM records ORDER BY _id').split('\n').map(Number);
    expect(b!).toBeGreaterThan(a!);
    expect(ls()).toEqual(['Record-1.m4a', 'Record-2.m4a']);
  });

  it('names the recording in the prompt, and refuses a name that is taken', async () => {
    await record(1000);
    tap(d, { text: 'Save' });
    await record(1000);
    typeInto(d, { resourceId: 'input_name' }, '');
    for (let i = 0; i < 8; i++) d.inputSync({ kind: 'key', key: 'DEL' });
    d.inputSync({ kind: 'text', text: 'Record-1' });
    tap(d, { text: 'Save' });
    expect(find(d, { text: 'File with this name is already exists!' })).toBeDefined();
    for (let i = 0; i < 8; i++) d.inputSync({ kind: 'key', key: 'DEL' });
    d.inputSync({ kind: 'text', text: 'Lecture 4' });
    tap(d, { text: 'Save' });
    expect(sql('SELECT name, path FROM records ORDER BY _id')).toBe(`Record-1|${FULL}/Record-1.m4a\nLecture 4|${FULL}/Lecture 4.m4a`);
    expect(ls()).toEqual(['Lecture 4.m4a', 'Record-1.m4a']);
  });

  it('discards a recording after confirmation', async () => {
    tap(d, { contentDesc: 'Record' });
    await d.idle(3000);
    tap(d, { contentDesc: 'Delete recording' });
    expect(find(d, { text: 'Delete this record?' })).toBeDefined();
    tap(d, { text: 'Delete' });
    expect(find(d, { contentDesc: 'Record' })).toBeDefined();
    expect(sql('SELECT COUNT(*) FROM records')).toBe('0');
    expect(ls()).toEqual([]);
  });

  it('plays the last recording from the main screen', async () => {
    await record(9000);
    tap(d, { text: 'Save' });
    tap(d, { contentDesc: 'Play' });
    await d.idle(3000);
    expect(text('txt_progress')).toBe('00:04');
    tap(d, { contentDesc: 'Pause' });
    await d.idle(5000);
    expect(text('txt_progress')).toBe('00:04');
    tap(d, { contentDesc: 'Stop' });
    expect(text('txt_progress')).toBe('00:10');
  });
});

describe('Audio Recorder settings', () => {
  it('writes the format to the shared_prefs file and records in it', async () => {
    tap(d, { contentDesc: 'Settings' });
    expect(get(d, { text: 'M4a' }).node.checked).toBe(true);
    tap(d, { text: 'Wav' });
    expect(get(d, { text: 'Wav' }).node.checked).toBe(true);
    expect(prefs()).toContain('<string name="setting_recording_format">wav</string>');
    // Wav is uncompressed: no bitrate choice.
    expect(find(d, { text: 'Bitrate:' })).toBeUndefined();
    back();
    expect(text('txt_record_info')).toBe('Wav, 44.1kHz, Stereo');
    await record(1000);
    tap(d, { text: 'Save' });
    expect(sql('SELECT format, path FROM records')).toBe(`wav|${FULL}/Record-1.wav`);
    expect(ls()).toEqual(['Record-1.wav']);
  });

  it('turns the rename prompt off', async () => {
    tap(d, { contentDesc: 'Settings' });
    tap(d, { text: 'Show rename dialog after recording is completed' });
    expect(get(d, { resourceId: 'swAskToRename' }).node.checked).toBe(false);
    expect(prefs()).toContain('<boolean name="is_ask_rename_after_stop_recording" value="false" />');
    back();
    await record(1000);
    expect(find(d, { text: 'New name' })).toBeUndefined();
    expect(sql('SELECT name FROM records')).toBe('Record-1');
  });

  it('"Don\'t ask again" in the prompt turns it off too', async () => {
    await record(1000);
    tap(d, { text: "Don't ask again" });
    tap(d, { text: 'Save' });
    expect(prefs()).toContain('<boolean name="is_ask_rename_after_stop_recording" value="false" />');
  });

  it('changes the theme colour', () => {
    tap(d, { contentDesc: 'Settings' });
    tap(d, { text: 'Theme Blue Gray' });
    tap(d, { text: 'Theme Teal' });
    expect(prefs()).toContain('<string name="setting_theme_color">teal</string>');
    expect(find(d, { text: 'Theme Teal' })).toBeDefined();
  });
});

describe('Audio Recorder records list', () => {
  beforeEach(async () => {
    for (const ms of [4000, 11_000, 1000]) {
      await record(ms);
      tap(d, { text: 'Save' });
    }
    tap(d, { contentDesc: 'Records' });
  });

  /** Taps "More options" in the named recording's row. */
  const moreFor = (name: string) => {
    const row = elements(d).find((e) => e.node.resourceId.endsWith(':id/container') && JSON.stringify(e.node).includes(`"text":"${name}"`))!;
    const btn = elements(d).find((e) => e.node.resourceId.endsWith(':id/btn_more') && e.parent?.node === row.node)!;
    d.inputSync({ kind: 'tap', ...boundsCenter(btn.node.bounds) });
  };

  it('lists recordings newest first with duration, format and size', () => {
    const names = elements(d).filter((e) => e.node.resourceId.endsWith(':id/list_item_name')).map((e) => e.node.text);
    expect(names).toEqual(['Record-3', 'Record-2', 'Record-1']);
    expect(elements(d).find((e) => e.node.resourceId.endsWith(':id/list_item_description'))!.node.text).toMatch(/^00:02, m4a, \d/);
    expect(text('txt_sub_title')).toBe('3 records · By date (newest)');
  });

  it('sorts by duration', () => {
    tap(d, { contentDesc: 'Sort' });
    tap(d, { text: 'By duration (longest)' });
    const names = elements(d).filter((e) => e.node.resourceId.endsWith(':id/list_item_name')).map((e) => e.node.text);
    expect(names).toEqual(['Record-2', 'Record-1', 'Record-3']);
    expect(prefs()).toContain('<int name="pref_records_order" value="5" />');
  });

  it('deletes a recording from its menu after confirmation', () => {
    const all = elements(d).filter((e) => e.node.resourceId.endsWith(':id/btn_more'));
    tap(d, { contentDesc: 'More options', resourceId: 'btn_more' });
    expect(all).toHaveLength(3);
    tap(d, { text: 'Delete' });
    expect(find(d, { text: 'Delete record Record-3 forever?' })).toBeDefined();
    tap(d, { text: 'Delete', resourceId: 'dialog_positive_btn' });
    expect(sql('SELECT name FROM records ORDER BY _id')).toBe('Record-1\nRecord-2');
    expect(ls()).toEqual(['Record-1.m4a', 'Record-2.m4a']);
  });

  it('renames from the menu, file and row together', () => {
    moreFor('Record-3');
    tap(d, { text: 'Rename' });
    typeInto(d, { resourceId: 'input_name' }, ' final');
    tap(d, { text: 'Save' });
    expect(sql("SELECT path FROM records WHERE name = 'Record-3 final'")).toBe(`${FULL}/Record-3 final.m4a`);
    expect(ls()).toEqual(['Record-1.m4a', 'Record-2.m4a', 'Record-3 final.m4a']);
  });

  it('shows information, bookmarks, and plays', async () => {
    moreFor('Record-3');
    tap(d, { text: 'Information' });
    expect(find(d, { text: 'Duration: 00:02' })).toBeDefined();
    expect(find(d, { text: `${FULL}/Record-3.m4a` })).toBeDefined();
    tap(d, { text: 'Ok' });
    tap(d, { contentDesc: 'Add bookmark' });
    expect(sql('SELECT name FROM records WHERE bookmark = 1')).toBe('Record-3');
    tap(d, { contentDesc: 'Bookmarks' });
    expect(elements(d).filter((e) => e.node.resourceId.endsWith(':id/list_item_name')).map((e) => e.node.text)).toEqual(['Record-3']);
    tap(d, { text: 'Record-3' });
    expect(text('txt_progress')).toBe('00:01 / 00:02');
    await d.idle(5000);
    // Playback stops at the end of the recording.
    expect(text('txt_progress')).toBe('00:02 / 00:02');
    expect(find(d, { contentDesc: 'Play', resourceId: 'btn_play' })).toBeDefined();
  });

  it('downloads a copy into Download', () => {
    moreFor('Record-1');
    tap(d, { text: 'Download' });
    expect(sh(d, 'ls /sdcard/Download').trim()).toBe('Record-1.m4a');
    expect(ls()).toContain('Record-1.m4a');
  });

  it('deletes several recordings in selection mode', () => {
    longPress(d, { text: 'Record-1' });
    tap(d, { text: 'Record-2' });
    expect(text('txt_selected_multi')).toBe('2 selected');
    tap(d, { contentDesc: 'Delete', resourceId: 'btn_delete_multi' });
    tap(d, { text: 'Delete', resourceId: 'dialog_positive_btn' });
    expect(sql('SELECT name FROM records')).toBe('Record-3');
    expect(ls()).toEqual(['Record-3.m4a']);
  });

  it('goes back to the main screen, then home', () => {
    back();
    expect(d.wm.foreground().activity).toBe(`${PKG}.app.main.MainActivity`);
    back();
    expect(d.wm.foreground().package).not.toBe(PKG);
    expect(d.wm.state.crashes).toEqual([]);
  });
});
