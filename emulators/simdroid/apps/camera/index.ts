import type { ActivityContext, ActivityDef, AppDef } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { W } from '../../view/spec.js';
import { column, fill, iconButton, row, stack, strip, text } from '../../view/widgets.js';
import { saveCapture } from './capture.js';

/**
 * Camera (AOSP Camera2, com.android.camera2, as on AndroidWorld's emulator): a viewfinder over a
 * synthetic scene, a Camera/Video mode strip, the shutter (a photo) or record/stop (a video, its
 * length the device's virtual time between the two), and the last capture's thumbnail. AndroidWorld
 * launches the CameraLauncher alias, which opens CameraActivity. Permissions count as granted at
 * setup: the app asks for none.
 */
export const CAMERA_PKG = 'com.android.camera2';
export const CAMERA_LAUNCHER = 'com.android.camera.CameraLauncher';
export const CAMERA_ACTIVITY = 'com.android.camera.CameraActivity';

export interface CameraState {
  mode: 'photo' | 'video';
  /** Device time recording started, while a video is being recorded. */
  recordingSince: number | null;
  front: boolean;
  /** File name of the last capture, for the thumbnail's description. */
  last: string | null;
}

type Ctx = ActivityContext<CameraState>;

const WHITE = '#FFFFFF';
const BAR = '#202124';

function elapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

/** The synthetic scene: sky, sun, hills and a tree; mirrored by the front camera. */
function scene(front: boolean): ViewSpec {
  const sun = strip({ cls: W.View, w: 72, h: 72, place: { h: front ? 'right' : 'left', v: 'top', margin: 48, w: 72, hgt: 72 }, style: { bg: '#FDD835', radius: 36 } });
  const tree = strip({ cls: W.View, w: 120, h: 120, place: { h: front ? 'left' : 'right', v: 'center', margin: 40, w: 120, hgt: 120 }, style: { icon: 'eco', iconSize: 120, iconColor: '#2E7D32' } });
  const land = column([fill(), strip({ cls: W.View, h: 220, style: { bg: '#66BB6A' } }), strip({ cls: W.View, h: 120, style: { bg: '#43A047' } })], { h: 'fill' });
  return stack([land, sun, tree], { id: 'preview_overlay', desc: 'Viewfinder', h: 'fill', style: { bg: '#90CAF9' } });
}

function modeChip(ctx: Ctx, mode: CameraState['mode'], label: string): ViewSpec {
  const on = ctx.s.mode === mode;
  return strip({
    cls: W.TextView, text: label, desc: `Switch to ${label} Mode`, selected: on, clickable: true, w: 'wrap', h: 40, pad: [8, 16, 8, 16],
    enabled: ctx.s.recordingSince === null, onClick: () => { ctx.s.mode = mode; },
    style: { fg: on ? '#FDD835' : WHITE, bold: on, size: 15, textAlign: 'center' },
  });
}

function shutter(ctx: Ctx): ViewSpec {
  const { s } = ctx;
  const now = ctx.sys.clock.now();
  if (s.mode === 'photo') {
    return strip({
      cls: W.ImageButton, id: 'shutter_button', desc: 'Shutter', w: 80, h: 80,
      onClick: () => { s.last = saveCapture(ctx.sys, 'photo', now).split('/').pop()!; },
      style: { bg: WHITE, radius: 40, border: '#BDBDBD' },
    });
  }
  const recording = s.recordingSince !== null;
  return strip({
    cls: W.ImageButton, id: 'shutter_button', desc: recording ? 'Stop recording' : 'Start recording', w: 80, h: 80,
    onClick: () => {
      if (s.recordingSince === null) s.recordingSince = now;
      else {
        s.last = saveCapture(ctx.sys, 'video', now, now - s.recordingSince).split('/').pop()!;
        s.recordingSince = null;
      }
    },
    style: { bg: WHITE, radius: 40, icon: recording ? 'stop' : 'record', iconColor: '#E53935', iconSize: recording ? 36 : 56 },
  });
}

function render(ctx: Ctx) {
  const { s } = ctx;
  const top = row([
    iconButton('settings', 'Settings', () => ctx.nav.toast('Settings'), { id: 'settings_button', color: WHITE }),
    fill(),
    s.recordingSince !== null
      ? text(`● ${elapsed(ctx.sys.clock.now() - s.recordingSince)}`, { id: 'recording_time', fg: '#FF5252', bold: true, w: 'wrap', size: 16 })
      : { cls: W.View, w: 8 },
    fill(),
    iconButton('refresh', s.front ? 'Switch to back camera' : 'Switch to front camera', () => { s.front = !s.front; }, {
      id: 'camera_toggle_button', color: WHITE, enabled: s.recordingSince === null,
    }),
  ], { h: 56, pad: [4, 8, 4, 8], style: { bg: BAR } });
  const thumb = s.last
    ? strip({ cls: W.ImageView, id: 'rounded_thumbnail_view', desc: `Last capture ${s.last}`, w: 48, h: 48, style: { bg: '#90CAF9', radius: 24, icon: s.last.endsWith('.mp4') ? 'movie' : 'image', iconColor: WHITE } })
    : { cls: W.View, w: 48, h: 48 };
  const side = (v: ViewSpec) => column([fill(), v, fill()], { w: 48 });
  const bottom = column([
    row([fill(), modeChip(ctx, 'photo', 'Camera'), modeChip(ctx, 'video', 'Video'), fill()], { h: 44, id: 'mode_options' }),
    row([{ cls: W.View, w: 48 }, fill(), column([fill(), shutter(ctx), fill()], { w: 80 }), fill(), side(thumb)], { h: 104, pad: [12, 24, 12, 24] }),
  ], { id: 'bottom_bar', style: { bg: BAR } });
  return { body: column([top, scene(s.front), bottom], { h: 'fill', style: { bg: BAR } }) };
}

const camera: ActivityDef<CameraState> = {
  name: CAMERA_ACTIVITY,
  create: () => ({ mode: 'photo', recordingSince: null, front: false, last: null }),
  render,
  // Leaving the camera while recording stops and keeps the clip, as the app's onPause does.
  onPause: (ctx) => {
    const { s } = ctx;
    if (s.recordingSince === null) return;
    const now = ctx.sys.clock.now();
    s.last = saveCapture(ctx.sys, 'video', now, now - s.recordingSince).split('/').pop()!;
    s.recordingSince = null;
  },
};

export const cameraApp: AppDef = {
  package: CAMERA_PKG,
  label: 'Camera',
  icon: { glyph: 'camera', color: '#5F6368' },
  launchActivity: CAMERA_LAUNCHER,
  trampolines: { [CAMERA_LAUNCHER]: CAMERA_ACTIVITY },
  activities: [camera],
};
