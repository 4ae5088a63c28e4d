import type { ActivityContext, ActivityDef, DialogView, MenuView } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { W } from '../../view/spec.js';
import { column, fill, iconButton, row, stack, strip, text } from '../../view/widgets.js';
import { deleteDialog, infoDialog, recordMenu, renameDialog, renameError, RENAME_FIELD } from './dialogs.js';
import { formatOf, readPrefs, themeOf, writePrefs, THEME_COLOR } from './prefs.js';
import {
  activeRecord, deleteRecord, downloadRecord, formatDuration, getRecord, recordInfo, renameRecord, saveRecording, type RecordRow,
} from './store.js';

/**
 * MainActivity: the big record button, the elapsed time (virtual device time between Record and
 * Stop, minus pauses), the last recording with play, and the way to Records and Settings. A
 * recording in progress is plain data in this activity's state (the app's recording service).
 */
export const MAIN_ACTIVITY = 'com.dimowner.audiorecorder.app.main.MainActivity';
/** The APK's launcher activity (AndroidWorld starts it by name). */
export const WELCOME_ACTIVITY = 'com.dimowner.audiorecorder.app.welcome.WelcomeActivity';
export const RECORDS_ACTIVITY = 'com.dimowner.audiorecorder.app.records.RecordsActivity';
export const SETTINGS_ACTIVITY = 'com.dimowner.audiorecorder.app.settings.SettingsActivity';

interface Recording {
  startedAt: number;
  pausedTotal: number;
  pausedAt: number | null;
}

/** Playback position is virtual time since startedAt (shifted on resume), stopped at the end. */
export interface Playback {
  id: number;
  startedAt: number;
  pausedAt: number | null;
}

type Dialog =
  | { kind: 'rename'; id: number; error: string | null; afterRecord: boolean; dontAsk: boolean }
  | { kind: 'discard' }
  | { kind: 'delete'; id: number }
  | { kind: 'info'; id: number };

export interface MainState {
  rec: Recording | null;
  play: Playback | null;
  dialog: Dialog | null;
  menu: boolean;
}

type Ctx = ActivityContext<MainState>;

const WHITE = '#FFFFFF';

export function recordingElapsed(r: Recording, now: number): number {
  return Math.max(0, (r.pausedAt ?? now) - r.startedAt - r.pausedTotal);
}

export function playbackPosition(p: Playback, rec: RecordRow, now: number): number {
  return Math.min(rec.duration, Math.max(0, (p.pausedAt ?? now) - p.startedAt));
}

/** Play/pause toggling shared by the main screen and the records list. */
export function togglePlay(play: Playback | null, rec: RecordRow, now: number): Playback {
  if (!play || play.id !== rec._id || playbackPosition(play, rec, now) >= rec.duration) return { id: rec._id, startedAt: now, pausedAt: null };
  if (play.pausedAt === null) return { ...play, pausedAt: now };
  return { id: play.id, startedAt: play.startedAt + (now - play.pausedAt), pausedAt: null };
}

function startRecording(ctx: Ctx): void {
  ctx.s.play = null;
  ctx.s.rec = { startedAt: ctx.sys.clock.now(), pausedTotal: 0, pausedAt: null };
}

function stopRecording(ctx: Ctx): void {
  const r = ctx.s.rec;
  if (!r) return;
  const now = ctx.sys.clock.now();
  ctx.s.rec = null;
  const id = saveRecording(ctx.app.db, ctx.sys.fs, recordingElapsed(r, now), now);
  if (readPrefs(ctx.sys.fs).is_ask_rename_after_stop_recording) openRename(ctx, id, true);
}

function togglePause(ctx: Ctx): void {
  const r = ctx.s.rec;
  if (!r) return;
  const now = ctx.sys.clock.now();
  if (r.pausedAt === null) r.pausedAt = now;
  else {
    r.pausedTotal += now - r.pausedAt;
    r.pausedAt = null;
  }
}

function openRename(ctx: Ctx, id: number, afterRecord: boolean): void {
  const rec = getRecord(ctx.app.db, id);
  if (!rec) return;
  ctx.fields[RENAME_FIELD] = rec.name;
  ctx.s.dialog = { kind: 'rename', id, error: null, afterRecord, dontAsk: false };
  ctx.nav.focus(RENAME_FIELD);
}

function dialogView(ctx: Ctx): DialogView | undefined {
  const d = ctx.s.dialog;
  if (!d) return undefined;
  const close = () => {
    ctx.s.dialog = null;
    ctx.nav.hideKeyboard();
  };
  const { db } = ctx.app;
  const fs = ctx.sys.fs;
  switch (d.kind) {
    case 'rename': {
      const finish = () => {
        if (d.afterRecord && d.dontAsk) writePrefs(fs, { is_ask_rename_after_stop_recording: false });
        close();
      };
      return renameDialog({
        error: d.error,
        ...(d.afterRecord ? { dontAsk: { checked: d.dontAsk, onToggle: () => { d.dontAsk = !d.dontAsk; } } } : {}),
        onCancel: finish,
        onSave: () => {
          const problem = renameRecord(db, fs, d.id, ctx.fields[RENAME_FIELD] ?? '');
          if (problem) d.error = renameError(problem);
          else finish();
        },
      });
    }
    case 'discard':
      return deleteDialog('Delete this record?', {
        onCancel: close,
        onDelete: () => {
          ctx.s.rec = null;
          close();
        },
      });
    case 'delete': {
      const rec = getRecord(db, d.id);
      if (!rec) return undefined;
      return deleteDialog(`Delete record ${rec.name} forever?`, {
        onCancel: close,
        onDelete: () => {
          deleteRecord(db, fs, d.id);
          if (ctx.s.play?.id === d.id) ctx.s.play = null;
          close();
        },
      });
    }
    case 'info': {
      const rec = getRecord(db, d.id);
      return rec ? infoDialog(rec, close) : undefined;
    }
  }
}

function menuView(ctx: Ctx, rec: RecordRow | undefined): MenuView | undefined {
  if (!ctx.s.menu || !rec) return undefined;
  const close = () => { ctx.s.menu = false; };
  const then = (fn: () => void) => () => { close(); fn(); };
  return {
    items: recordMenu({
      share: then(() => ctx.nav.toast(`Share record: ${rec.name}`)),
      info: then(() => { ctx.s.dialog = { kind: 'info', id: rec._id }; }),
      rename: then(() => openRename(ctx, rec._id, false)),
      download: then(() => ctx.nav.toast(downloadRecord(ctx.sys.fs, rec))),
      remove: then(() => { ctx.s.dialog = { kind: 'delete', id: rec._id }; }),
    }),
    onDismiss: close,
  };
}

function bigText(value: string, id: string, size: number, o: { onClick?: () => void; bold?: boolean } = {}): ViewSpec {
  return text(value, { id, size, align: 'center', fg: WHITE, pad: [4, 24, 4, 24], lines: 2, ...o });
}

function recordButton(ctx: Ctx): ViewSpec {
  const recording = ctx.s.rec !== null;
  return strip({
    cls: W.ImageButton, id: 'btn_record', desc: recording ? 'Stop recording' : 'Record', w: 88, h: 88,
    onClick: () => (recording ? stopRecording(ctx) : startRecording(ctx)),
    style: { icon: recording ? 'stop' : 'record', iconSize: 40, iconColor: '#E53935', bg: WHITE, radius: 44 },
  });
}

function render(ctx: Ctx) {
  const { s } = ctx;
  const now = ctx.sys.clock.now();
  const prefs = readPrefs(ctx.sys.fs);
  const bg = THEME_COLOR[themeOf(prefs)];
  const rec = s.rec ? undefined : activeRecord(ctx.app.db, ctx.sys.fs);
  const playing = rec && s.play?.id === rec._id ? s.play : null;
  const position = rec && playing ? playbackPosition(playing, rec, now) : 0;
  const isPlaying = playing !== null && playing.pausedAt === null && rec !== undefined && position < rec.duration;

  let time: string;
  let name: ViewSpec | null = null;
  let info: string;
  if (s.rec) {
    time = formatDuration(recordingElapsed(s.rec, now));
    name = bigText(s.rec.pausedAt === null ? 'Recording…' : 'Paused', 'txt_name', 20);
    info = recordInfo(formatOf(prefs), Number(prefs.setting_sample_rate), Number(prefs.setting_bitrate), Number(prefs.setting_channel_count));
  } else if (rec) {
    time = formatDuration(playing ? position : rec.duration);
    name = bigText(rec.name, 'txt_name', 22, { onClick: () => openRename(ctx, rec._id, false) });
    info = recordInfo(rec.format, rec.sample_rate, rec.bitrate, rec.channel_count);
  } else {
    time = '00:00';
    info = recordInfo(formatOf(prefs), Number(prefs.setting_sample_rate), Number(prefs.setting_bitrate), Number(prefs.setting_channel_count));
  }

  const toolbar = row([
    { cls: W.View, w: 48 },
    column([fill(), text('Audio Recorder', { size: 22, align: 'center', fg: WHITE, pad: 0, id: 'toolbar_title' }), fill()], { weight: 1 }),
    rec && !s.rec ? iconButton('more_vert', 'More options', () => { s.menu = true; }, { id: 'btn_share', color: WHITE }) : { cls: W.View, w: 48 },
  ], { id: 'toolbar', h: 64, pad: [8, 4, 8, 4] });

  const playControls: ViewSpec[] = [];
  if (rec && !s.rec) {
    playControls.push(iconButton(isPlaying ? 'pause' : 'play', isPlaying ? 'Pause' : 'Play', () => { s.play = togglePlay(s.play, rec, now); }, { id: 'btn_play', color: WHITE }));
    if (playing) playControls.push(iconButton('stop', 'Stop', () => { s.play = null; }, { id: 'btn_stop', color: WHITE }));
  }
  const waveform = strip({
    cls: W.ImageView, id: s.rec ? 'recording_view' : 'record', h: 160,
    style: { icon: 'waveform', iconSize: s.rec && s.rec.pausedAt === null ? 140 : 96, iconColor: s.rec ? '#FFCDD2' : '#B0BEC5' },
  });
  const progress = rec && !s.rec && rec.duration > 0 ? position / rec.duration : 0;

  const center: ViewSpec[] = [];
  if (s.rec) {
    center.push(iconButton('delete', 'Delete recording', () => { s.dialog = { kind: 'discard' }; }, { id: 'btn_record_delete', color: WHITE }));
  }
  center.push(recordButton(ctx));
  if (s.rec) {
    const paused = s.rec.pausedAt !== null;
    center.push(iconButton(paused ? 'record' : 'pause', paused ? 'Resume recording' : 'Pause recording', () => togglePause(ctx), { id: 'btn_record_pause', color: WHITE }));
  }
  const bottom = row([
    iconButton('settings', 'Settings', () => ctx.nav.start(SETTINGS_ACTIVITY), { id: 'btn_settings', color: WHITE }),
    fill(),
    row(center, { w: 'wrap', gap: 16 }),
    fill(),
    iconButton('list', 'Records', () => ctx.nav.start(RECORDS_ACTIVITY), { id: 'btn_records_list', color: WHITE }),
  ], { h: 112, pad: [12, 12, 12, 12] });

  const content: ViewSpec[] = [
    toolbar,
    column([fill(), waveform, row([fill(), ...playControls, fill()], { h: 48, gap: 24 }), fill()], { h: 'fill' }),
    bigText(time, 'txt_progress', 54, { bold: true }),
  ];
  if (name) content.push(name);
  content.push(text(info, { id: 'txt_record_info', size: 14, align: 'center', fg: '#ECEFF1', pad: [2, 24, 8, 24] }));
  content.push(strip({
    cls: W.SeekBar, id: 'play_progress', h: 32, pad: [0, 16, 0, 16], enabled: rec !== undefined && !s.rec,
    style: { variant: 'slider', progress },
  }));
  content.push(bottom);
  const body = stack([column(content, { h: 'fill' })], { style: { bg } });
  const dialog = dialogView(ctx);
  const menu = menuView(ctx, rec);
  return { body, ...(dialog ? { dialog } : {}), ...(menu ? { menu } : {}) };
}

export const main: ActivityDef<MainState> = {
  name: MAIN_ACTIVITY,
  create: () => ({ rec: null, play: null, dialog: null, menu: false }),
  render,
};
