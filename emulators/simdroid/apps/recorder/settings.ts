import type { ActivityContext, ActivityDef, DialogView } from '../../runtime/app.js';
import type { Handler, ViewSpec } from '../../view/spec.js';
import { W } from '../../view/spec.js';
import { button, caption, chip, column, dialog, fill, iconButton, radio, row, scroll, strip, text } from '../../view/widgets.js';
import { SETTINGS_ACTIVITY } from './main.js';
import {
  BITRATES, FORMATS, SAMPLE_RATES, THEMES, THEME_COLOR, THEME_LABEL, formatOf, readPrefs, themeOf, writePrefs, type Prefs,
} from './prefs.js';
import { formatDuration, recordInfo } from './store.js';

/**
 * SettingsActivity: theme colour, "Keep screen ON while recording", "Show rename dialog after
 * recording is completed", and the recording settings as chip groups (format, sample rate, bitrate,
 * channels) with Reset; totals at the bottom. Everything is written to the app's shared_prefs file.
 */
export interface SettingsState {
  themeDialog: boolean;
}

type Ctx = ActivityContext<SettingsState>;

const WHITE = '#FFFFFF';
const FORMAT_LABELS: Record<string, string> = { m4a: 'M4a', wav: 'Wav', '3gp': '3gp' };
const RATE_LABELS: Record<number, string> = { 8000: '8kHz', 16000: '16kHz', 22050: '22kHz', 32000: '32kHz', 44100: '44.1kHz', 48000: '48kHz' };

/** A SettingView: a label over wrapped chips, one checked. */
function settingView<T extends string | number>(
  id: string, label: string, options: ReadonlyArray<[T, string]>, current: T, onPick: (v: T) => void, perRow = 3,
): ViewSpec {
  const rows: ViewSpec[] = [];
  for (let i = 0; i < options.length; i += perRow) {
    rows.push(row(
      options.slice(i, i + perRow).map(([v, l]) => {
        // Chips share the row evenly; unchecked ones are outlined on the theme colour with white text.
        const { w: _w, ...c } = chip(l, v === current, () => onPick(v), { id: 'chip' });
        return v === current ? c : { ...c, style: { ...c.style, fg: WHITE } };
      }),
      { gap: 8, pad: [4, 16, 4, 16] },
    ));
  }
  return column([text(label, { size: 16, bold: true, fg: WHITE, pad: [12, 16, 4, 16] }), ...rows], { id });
}

/** A switch row (label and Switch) in the app's white-on-theme colours; the whole row toggles. */
function switchLine(id: string, label: string, checked: boolean, onToggle: Handler): ViewSpec {
  return row(
    [
      column([fill(), text(label, { size: 16, fg: WHITE, pad: 0 }), fill()], { weight: 1 }),
      strip({ cls: W.Switch, id, checkable: true, checked, w: 60, focusable: true }),
    ],
    { clickable: true, onClick: onToggle, pad: [14, 16, 14, 16], gap: 8 },
  );
}

function link(label: string, icon: string, id: string, onClick: Handler): ViewSpec {
  return strip({
    cls: W.TextView, id, text: label, clickable: true, onClick, pad: [14, 16, 14, 16],
    style: { icon, iconColor: WHITE, fg: WHITE, size: 16 },
  });
}

function themeDialog(ctx: Ctx, prefs: Prefs): DialogView | undefined {
  if (!ctx.s.themeDialog) return undefined;
  const close = () => { ctx.s.themeDialog = false; };
  return {
    spec: dialog({
      title: 'Theme',
      body: THEMES.map((t) => radio({
        label: THEME_LABEL[t], checked: themeOf(prefs) === t, id: 'theme_option',
        onSelect: () => {
          writePrefs(ctx.sys.fs, { setting_theme_color: t });
          close();
        },
      })),
      buttons: [{ label: 'Cancel', onClick: close }],
    }),
    onCancel: close,
  };
}

function totals(ctx: Ctx): { count: number; duration: number } {
  const r = ctx.app.db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(duration), 0) AS d FROM records').get() as { n: number; d: number };
  return { count: r.n, duration: r.d };
}

export const settings: ActivityDef<SettingsState> = {
  name: SETTINGS_ACTIVITY,
  create: () => ({ themeDialog: false }),
  render: (ctx) => {
    const fs = ctx.sys.fs;
    const prefs = readPrefs(fs);
    const format = formatOf(prefs);
    const set = (patch: Partial<Prefs>) => writePrefs(fs, patch);
    const rate = Number(prefs.setting_sample_rate);
    const bitrate = Number(prefs.setting_bitrate);
    const channels = Number(prefs.setting_channel_count);
    const { count, duration } = totals(ctx);
    const perMin = format === 'wav' ? (rate * channels * 2 * 60) / 1_000_000 : (bitrate / 8 * 60) / 1_000_000;
    const content: ViewSpec[] = [
      strip({
        cls: W.TextView, id: 'themeColor', text: THEME_LABEL[themeOf(prefs)], clickable: true, onClick: () => { ctx.s.themeDialog = true; },
        pad: [14, 16, 14, 16], style: { icon: 'palette', iconColor: WHITE, fg: WHITE, size: 16 },
      }),
      switchLine('swKeepScreenOn', 'Keep screen ON while recording', prefs.keep_screen_on === true, () => set({ keep_screen_on: !prefs.keep_screen_on })),
      switchLine(
        'swAskToRename', 'Show rename dialog after recording is completed', prefs.is_ask_rename_after_stop_recording === true,
        () => set({ is_ask_rename_after_stop_recording: !prefs.is_ask_rename_after_stop_recording }),
      ),
      row([
        column([
          caption(`${perMin.toFixed(2)} Mb/min expected size`, { id: 'txt_size_per_min', fg: WHITE, pad: [4, 16, 0, 16] }),
          caption(recordInfo(format, rate, bitrate, channels).replace(/, /g, '/'), { id: 'txt_information', fg: WHITE, pad: [0, 16, 4, 16] }),
        ], { weight: 1 }),
        button('Reset', () => set({ setting_recording_format: 'm4a', setting_sample_rate: 44100, setting_bitrate: 128000, setting_channel_count: 2 }), { id: 'btnReset', variant: 'tonal', w: 'wrap' }),
      ], { id: 'info_panel', pad: [8, 8, 8, 0], style: { bg: '#00000033', radius: 8 } }),
      settingView('setting_recording_format', 'Recording format:', FORMATS.map((f) => [f, FORMAT_LABELS[f]!] as [string, string]), format, (v) => set({ setting_recording_format: v })),
      settingView('setting_frequency', 'Sample rate:', SAMPLE_RATES.map((r) => [r, RATE_LABELS[r]!] as [number, string]), rate, (v) => set({ setting_sample_rate: v })),
    ];
    // Wav is uncompressed: the app hides the bitrate choice for it.
    if (format !== 'wav') {
      content.push(settingView('setting_bitrate', 'Bitrate:', BITRATES.map((b) => [b, `${b / 1000} kbps`] as [number, string]), bitrate, (v) => set({ setting_bitrate: v })));
    }
    content.push(
      settingView('setting_channels', 'Channel count:', [[2, 'Stereo'], [1, 'Mono']], channels, (v) => set({ setting_channel_count: v })),
      link('Rate app', 'star_outline', 'btnRate', () => ctx.nav.toast('Play Store is not available')),
      link('Request or feedback', 'message', 'btnRequest', () => ctx.nav.toast('Not found any Email client')),
      text(`Total records count: ${count}`, { id: 'txt_records_count', fg: WHITE, pad: [8, 16, 0, 16] }),
      text(`Total recorded duration: ${formatDuration(duration)}`, { id: 'txt_total_duration', fg: WHITE, pad: [0, 16, 0, 16] }),
      text('Available space: 5h:32m:10s', { id: 'txt_available_space', fg: WHITE, pad: [0, 16, 8, 16] }),
      text('Audio Recorder 0.9.92', { id: 'txtAbout', fg: WHITE, align: 'center', pad: [8, 16, 16, 16] }),
    );
    const bg = THEME_COLOR[themeOf(prefs)];
    const body = column([
      row([
        iconButton('arrow_back', 'Navigate up', () => ctx.nav.finish(), { id: 'btnBack', color: WHITE }),
        column([fill(), text('Settings', { size: 20, fg: WHITE, pad: [0, 8, 0, 8], id: 'toolbar_title' }), fill()], { weight: 1 }),
      ], { id: 'toolbar', h: 64, pad: [8, 4, 8, 4] }),
      scroll('settings', content),
    ], { cls: W.FrameLayout, h: 'fill', style: { bg } });
    const d = themeDialog(ctx, prefs);
    return { body, ...(d ? { dialog: d } : {}) };
  },
};
