import type { ActivityContext, ActivityDef, DialogView, Json, MenuView } from '../../runtime/app.js';
import { EXTERNAL_STORAGE } from '../../system/fs.js';
import { W, type Stroke, type ViewSpec } from '../../view/spec.js';
import { appBar, column, dialog, iconButton, radio, row, screen, strip, text, textField } from '../../view/widgets.js';
import { folderPickerDialog, humanizePath } from '../simple-commons/folder-picker.js';
import { DRAW_EXTENSIONS, encodeDrawing, type DrawExtension } from './export.js';

/**
 * Simple Draw Pro's MainActivity: a white canvas (my_canvas) a finger draws lines on, a row of
 * colours, Undo, Redo, Save (dialog_save_image: the folder, the file name, PNG/SVG/JPG), and Clear in
 * the overflow. A finger streamed across the canvas (the Live view) draws its way; `input swipe`, which is
 * AndroidWorld's swipe action, draws a straight line between its two ends.
 */
export const PKG = 'com.simplemobiletools.draw.pro';
export const MAIN_ACTIVITY = `${PKG}.activities.MainActivity`;

const COLORS: ReadonlyArray<[string, `#${string}`]> = [['Black', '#000000'], ['Red', '#E53935'], ['Green', '#43A047'], ['Blue', '#1E88E5'], ['Yellow', '#FDD835']];
const BRUSH_DP = 6;

type Dialog =
  | { kind: 'save'; folder: string; ext: DrawExtension }
  | { kind: 'folder'; folder: string; ext: DrawExtension; at: string };

interface DrawState {
  strokes: Json[];
  redo: Json[];
  color: string;
  menu: boolean;
  dialog: Json;
}

type Ctx = ActivityContext<DrawState>;
const FILE_FIELD = 'save_image_filename';

const strokesOf = (ctx: Ctx) => ctx.s.strokes as unknown as Stroke[];
const clamp = (v: number) => Math.min(1, Math.max(0, v));

function addStroke(ctx: Ctx, points: number[]): void {
  ctx.s.strokes.push({ color: ctx.s.color, width: BRUSH_DP, points: points.map(clamp) });
  ctx.s.redo = [];
}

function setDialog(ctx: Ctx, d: Dialog | null): void {
  ctx.s.dialog = d as unknown as Json;
}

/** "image_2023_10_15_12_00_00", the name Simple Draw proposes. */
function defaultName(now: number): string {
  const d = new Date(now);
  const p = (n: number) => String(n).padStart(2, '0');
  return `image_${d.getUTCFullYear()}_${p(d.getUTCMonth() + 1)}_${p(d.getUTCDate())}_${p(d.getUTCHours())}_${p(d.getUTCMinutes())}_${p(d.getUTCSeconds())}`;
}

function openSave(ctx: Ctx): void {
  ctx.s.menu = false;
  ctx.fields[FILE_FIELD] = defaultName(ctx.sys.clock.now());
  const folder = ctx.app.prefs.lastSaveFolder ?? EXTERNAL_STORAGE;
  const ext = (ctx.app.prefs.lastSaveExtension as DrawExtension | undefined) ?? 'png';
  setDialog(ctx, { kind: 'save', folder, ext });
}

function save(ctx: Ctx, d: Extract<Dialog, { kind: 'save' }>): void {
  const name = (ctx.fields[FILE_FIELD] ?? '').trim();
  if (name === '') {
    ctx.nav.toast('Empty name');
    return;
  }
  if (/[/\\:*?"<>|]/.test(name)) {
    ctx.nav.toast('Filename contains invalid characters');
    return;
  }
  const fs = ctx.sys.fs;
  if (!fs.exists(d.folder)) fs.mkdirp(d.folder);
  fs.writeFile(`${d.folder}/${name}.${d.ext}`, encodeDrawing(strokesOf(ctx), d.ext));
  ctx.app.prefs.lastSaveFolder = d.folder;
  ctx.app.prefs.lastSaveExtension = d.ext;
  setDialog(ctx, null);
  ctx.nav.hideKeyboard();
  ctx.nav.toast('File saved successfully');
}

function saveDialog(ctx: Ctx, d: Extract<Dialog, { kind: 'save' }>): DialogView {
  const close = () => { setDialog(ctx, null); ctx.nav.hideKeyboard(); };
  const body: ViewSpec[] = [
    text('Path', { size: 12, fg: 'onSurfaceVariant', pad: [0, 24, 0, 24] }),
    text(humanizePath(d.folder), { id: 'save_image_path', size: 16, pad: [4, 24, 8, 24], onClick: () => setDialog(ctx, { kind: 'folder', folder: d.folder, ext: d.ext, at: d.folder }) }),
    textField({ field: FILE_FIELD, hint: 'Filename', id: FILE_FIELD, pad: [4, 20, 4, 20] }),
    column(DRAW_EXTENSIONS.map((ext) => radio({
      label: ext.toUpperCase(), id: `save_image_radio_${ext}`, checked: d.ext === ext, onSelect: () => setDialog(ctx, { ...d, ext }),
    })), { id: 'save_image_radio_group', pad: [0, 8, 0, 8] }),
  ];
  return {
    spec: dialog({ title: 'Save as', body, buttons: [{ label: 'Cancel', onClick: close }, { label: 'OK', onClick: () => save(ctx, d) }] }),
    onCancel: close,
  };
}

function dialogView(ctx: Ctx): DialogView | undefined {
  const d = ctx.s.dialog as unknown as Dialog | null;
  if (!d) return undefined;
  if (d.kind === 'save') return saveDialog(ctx, d);
  const back = () => setDialog(ctx, { kind: 'save', folder: d.folder, ext: d.ext });
  return folderPickerDialog({
    path: d.at, fs: ctx.sys.fs, onCancel: back,
    go: (at) => setDialog(ctx, { ...d, at }),
    onPick: (folder) => setDialog(ctx, { kind: 'save', folder, ext: d.ext }),
  });
}

function menuView(ctx: Ctx): MenuView | undefined {
  if (!ctx.s.menu) return undefined;
  const close = () => { ctx.s.menu = false; };
  return {
    items: [
      { label: 'Clear', id: 'menu_clear', onClick: () => { close(); ctx.s.strokes = []; ctx.s.redo = []; } },
      { label: 'Save as', id: 'menu_save', onClick: () => openSave(ctx) },
    ],
    onDismiss: close,
  };
}

function canvas(ctx: Ctx): ViewSpec {
  return strip({
    cls: W.View, id: 'my_canvas', h: 'fill', desc: 'Drawing canvas', strokes: strokesOf(ctx), style: { bg: '#FFFFFF' },
    onDrag: (points) => addStroke(ctx, [...points]),
    // A tap leaves a dot, as a finger down and up in place does.
    onTapAt: (fx, fy) => addStroke(ctx, [fx, fy]),
  });
}

function colorBar(ctx: Ctx): ViewSpec {
  const swatches = COLORS.map(([name, c]) => strip({
    cls: W.ImageButton, id: 'color_picker', desc: name, w: 40, h: 40, selected: ctx.s.color === c, onClick: () => { ctx.s.color = c; },
    style: { variant: 'avatar', bg: c, radius: 20, ...(ctx.s.color === c ? { icon: 'check', iconColor: c === '#FDD835' ? '#000000' : '#FFFFFF' } : {}) },
  }));
  return row(swatches, { id: 'bottom_colors', h: 64, pad: [12, 16, 12, 16], gap: 16, style: { bg: 'surface' } });
}

export const drawActivity: ActivityDef<DrawState> = {
  name: MAIN_ACTIVITY,
  create: () => ({ strokes: [], redo: [], color: COLORS[0]![1], menu: false, dialog: null }),
  render: (ctx) => {
    const actions = [
      iconButton('undo', 'Undo', () => { const s = ctx.s.strokes.pop(); if (s !== undefined) ctx.s.redo.push(s); }, { id: 'menu_undo', enabled: ctx.s.strokes.length > 0 }),
      iconButton('redo', 'Redo', () => { const s = ctx.s.redo.pop(); if (s !== undefined) ctx.s.strokes.push(s); }, { id: 'menu_redo', enabled: ctx.s.redo.length > 0 }),
      iconButton('save', 'Save', () => openSave(ctx), { id: 'menu_confirm' }),
    ];
    const d = dialogView(ctx);
    const m = menuView(ctx);
    return {
      body: screen({
        appBar: appBar({ title: 'Simple Draw', actions, onOverflow: () => { ctx.s.menu = true; } }),
        body: [canvas(ctx)],
        bottom: colorBar(ctx),
      }),
      ...(d ? { dialog: d } : {}),
      ...(m ? { menu: m } : {}),
    };
  },
};
