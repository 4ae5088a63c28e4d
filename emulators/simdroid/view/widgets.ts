import { W, type Color, type Handler, type Insets, type Style, type ViewSpec } from './spec.js';
import { APP_BAR_DP } from './theme.js';

/**
 * The building blocks apps compose their screens from, modelled on Material components and on
 * the view classes real apps report (a toolbar's ImageButton "Navigate up", a RecyclerView of
 * clickable LinearLayout rows, an outlined EditText…). Everything returns plain ViewSpecs.
 */

type Common = { id?: string; desc?: string; enabled?: boolean };

export function column(children: ViewSpec[], opts: Partial<ViewSpec> = {}): ViewSpec {
  return { cls: W.LinearLayout, layout: 'column', children, ...opts };
}

export function row(children: ViewSpec[], opts: Partial<ViewSpec> = {}): ViewSpec {
  return { cls: W.LinearLayout, layout: 'row', children, ...opts };
}

export function stack(children: ViewSpec[], opts: Partial<ViewSpec> = {}): ViewSpec {
  return { cls: W.FrameLayout, layout: 'stack', children, ...opts };
}

export function spacer(h: number): ViewSpec {
  return { cls: W.View, h };
}

export function fill(): ViewSpec {
  return { cls: W.View, h: 'fill' };
}

export function divider(): ViewSpec {
  return { cls: W.View, h: 1, style: { bg: 'surfaceVariant' } };
}

export interface TextOpts extends Common {
  size?: number;
  bold?: boolean;
  fg?: Color;
  bg?: Color;
  lines?: number;
  align?: 'left' | 'center' | 'right';
  pad?: Insets;
  w?: number | 'wrap';
  h?: number | 'fill';
  onClick?: Handler;
  onLongClick?: Handler;
  selected?: boolean;
}

export function text(value: string, o: TextOpts = {}): ViewSpec {
  const style: Style = {};
  if (o.size !== undefined) style.size = o.size;
  if (o.bold) style.bold = true;
  if (o.fg) style.fg = o.fg;
  if (o.bg) style.bg = o.bg;
  if (o.lines !== undefined) style.lines = o.lines;
  if (o.align) style.textAlign = o.align;
  return strip({
    cls: W.TextView, text: value, id: o.id, desc: o.desc, enabled: o.enabled, pad: o.pad ?? [4, 16, 4, 16],
    w: o.w, h: o.h, onClick: o.onClick, onLongClick: o.onLongClick, selected: o.selected, style,
  });
}

/** A large heading, as at the top of a detail screen. */
export function heading(value: string, o: TextOpts = {}): ViewSpec {
  return text(value, { size: 24, pad: [16, 16, 8, 16], ...o });
}

/** Secondary text (14sp, muted). */
export function caption(value: string, o: TextOpts = {}): ViewSpec {
  return text(value, { size: 14, fg: 'onSurfaceVariant', ...o });
}

export interface ButtonOpts extends Common {
  variant?: 'filled' | 'tonal' | 'outlined' | 'text';
  w?: number | 'wrap';
  icon?: string;
}

export function button(label: string, onClick: Handler, o: ButtonOpts = {}): ViewSpec {
  const variant = o.variant ?? 'filled';
  const style: Style = { variant, textAlign: 'center', bold: true, size: 14, radius: 20 };
  if (o.icon) style.icon = o.icon;
  return strip({ cls: W.Button, text: label, id: o.id, desc: o.desc, enabled: o.enabled, onClick, w: o.w, pad: [10, 24, 10, 24], style });
}

export function iconButton(icon: string, desc: string, onClick: Handler, o: Common & { color?: Color; onLongClick?: Handler } = {}): ViewSpec {
  const style: Style = { icon };
  if (o.color) style.iconColor = o.color;
  return strip({ cls: W.ImageButton, desc, id: o.id, enabled: o.enabled, onClick, onLongClick: o.onLongClick, w: 48, h: 48, style });
}

/** A floating action button, placed at the bottom right of a `screen`. With a label it is extended. */
export function fab(icon: string, desc: string, onClick: Handler, o: Common & { label?: string } = {}): ViewSpec {
  if (o.label) {
    return strip({
      cls: W.Button, text: o.label, desc, id: o.id ?? 'fab', onClick, h: 56, pad: [0, 20, 0, 16],
      style: { variant: 'fab', icon, radius: 16, bold: true, size: 14 },
      place: { h: 'right', v: 'bottom', margin: 16, hgt: 56 },
    });
  }
  return strip({
    cls: W.ImageButton, desc, id: o.id ?? 'fab', onClick, w: 56, h: 56,
    style: { variant: 'fab', icon, radius: 16 },
    place: { h: 'right', v: 'bottom', margin: 16, w: 56, hgt: 56 },
  });
}

export interface FieldOpts extends Common {
  field: string;
  hint?: string;
  multiline?: boolean;
  lines?: number;
  password?: boolean;
  accept?: ViewSpec['accept'];
  onSubmit?: Handler;
  pad?: Insets;
}

/** An outlined text box bound to a form field of the window. */
export function textField(o: FieldOpts): ViewSpec {
  const box: ViewSpec = strip({
    cls: W.EditText, field: o.field, hint: o.hint, id: o.id ?? o.field, desc: o.desc, enabled: o.enabled,
    multiline: o.multiline, password: o.password, accept: o.accept, onSubmit: o.onSubmit,
    pad: [14, 16, 14, 16],
    style: { border: 'outline', radius: 4, ...(o.lines ? {} : {}) },
  });
  if (o.multiline && o.lines) box.h = Math.max(56, o.lines * 22 + 28);
  return column([box], { pad: o.pad ?? [6, 16, 6, 16] });
}

/** A full-width row with a label and a switch, the whole row toggling (as in Settings). */
export function switchRow(o: Common & { label: string; summary?: string; checked: boolean; onToggle: Handler }): ViewSpec {
  const texts: ViewSpec[] = [text(o.label, { size: 18, pad: 0 })];
  if (o.summary) texts.push(caption(o.summary, { pad: 0 }));
  return row(
    [
      column([fill(), ...texts, fill()], { weight: 1 }),
      strip({ cls: W.Switch, id: o.id ? `${o.id}_switch` : 'switch_widget', checkable: true, checked: o.checked, w: 60, enabled: o.enabled, focusable: true }),
    ],
    strip({ id: o.id, clickable: true, onClick: o.onToggle, enabled: o.enabled, pad: [16, 16, 16, 16], gap: 8, style: { textAlign: 'left' } }),
  );
}

export function checkbox(o: Common & { label: string; checked: boolean; onToggle: Handler }): ViewSpec {
  return strip({
    cls: W.CheckBox, text: o.label, id: o.id, desc: o.desc, enabled: o.enabled, checkable: true, checked: o.checked,
    onClick: o.onToggle, pad: [0, 16, 0, 8], style: { textAlign: 'left' },
  });
}

export function radio(o: Common & { label: string; checked: boolean; onSelect: Handler }): ViewSpec {
  return strip({
    cls: W.RadioButton, text: o.label, id: o.id, enabled: o.enabled, checkable: true, checked: o.checked,
    onClick: o.onSelect, pad: [0, 16, 0, 8],
  });
}

export interface ListItemOpts extends Common {
  title: string;
  subtitle?: string;
  /** Right-aligned secondary text (a time, an amount). */
  meta?: string;
  /** A leading icon name, or `{ letter, color }` for a contact-style avatar. */
  leading?: string | { letter: string; color: `#${string}` };
  trailing?: ViewSpec;
  onClick?: Handler;
  onLongClick?: Handler;
  selected?: boolean;
  titleLines?: number;
  subtitleLines?: number;
}

/** A two-line list row (RecyclerView item): clickable LinearLayout holding TextViews. */
export function listItem(o: ListItemOpts): ViewSpec {
  const parts: ViewSpec[] = [];
  if (typeof o.leading === 'string') {
    parts.push(strip({ cls: W.ImageView, w: 40, h: 40, style: { icon: o.leading, iconColor: 'onSurfaceVariant' } }));
  } else if (o.leading) {
    parts.push(strip({ cls: W.TextView, text: o.leading.letter, w: 40, h: 40, style: { variant: 'avatar', bg: o.leading.color, fg: '#FFFFFF', textAlign: 'center', size: 18, radius: 20 } }));
  }
  const lines: ViewSpec[] = [text(o.title, { size: 16, pad: 0, lines: o.titleLines ?? 1, id: o.id ? undefined : 'title' })];
  if (o.subtitle) lines.push(caption(o.subtitle, { pad: 0, lines: o.subtitleLines ?? 2, id: 'subtitle' }));
  parts.push(column([fill(), ...lines, fill()], { weight: 1 }));
  if (o.meta) parts.push(caption(o.meta, { w: 'wrap', pad: [0, 0, 0, 8] }));
  if (o.trailing) parts.push(o.trailing);
  return row(parts, strip({
    id: o.id, desc: o.desc, clickable: o.onClick !== undefined, onClick: o.onClick, onLongClick: o.onLongClick,
    selected: o.selected, enabled: o.enabled, pad: [12, 16, 12, 16], gap: 16,
    style: o.selected ? { bg: 'primaryContainer' } : undefined,
  }));
}

/** A vertically scrolling list (RecyclerView); only rows on screen are reported, as on Android. */
export function list(key: string, items: ViewSpec[], o: { id?: string; empty?: string; pad?: Insets } = {}): ViewSpec {
  if (items.length === 0 && o.empty) {
    return column([fill(), text(o.empty, { align: 'center', fg: 'onSurfaceVariant', id: 'empty_view' }), fill()], { h: 'fill' });
  }
  return strip({ cls: W.RecyclerView, id: o.id ?? 'list', scrollKey: key, layout: 'column', children: items, h: 'fill', pad: o.pad });
}

/** A scrolling form or detail page (ScrollView). */
export function scroll(key: string, children: ViewSpec[], o: { id?: string; pad?: Insets; gap?: number } = {}): ViewSpec {
  return strip({ cls: W.ScrollView, id: o.id, scrollKey: key, layout: 'column', children, h: 'fill', pad: o.pad, gap: o.gap });
}

export interface AppBarOpts {
  title: string;
  subtitle?: string;
  /** Shows the "Navigate up" arrow. */
  onBack?: Handler;
  /** Trailing action icons (iconButton). */
  actions?: ViewSpec[];
  /** Shows the "More options" overflow button. */
  onOverflow?: Handler;
  /** A leading "Open navigation drawer" button instead of Up. */
  onMenu?: Handler;
  id?: string;
}

export function appBar(o: AppBarOpts): ViewSpec {
  const parts: ViewSpec[] = [];
  if (o.onBack) parts.push(iconButton('arrow_back', 'Navigate up', o.onBack));
  else if (o.onMenu) parts.push(iconButton('menu', 'Open navigation drawer', o.onMenu));
  const titles: ViewSpec[] = [text(o.title, { size: 22, pad: [0, 8, 0, 8], lines: 1, id: 'toolbar_title' })];
  if (o.subtitle) titles.push(caption(o.subtitle, { pad: [0, 8, 0, 8], lines: 1 }));
  parts.push(column([fill(), ...titles, fill()], { weight: 1 }));
  parts.push(...(o.actions ?? []));
  if (o.onOverflow) parts.push(iconButton('more_vert', 'More options', o.onOverflow));
  return row(parts, { cls: W.ViewGroup, id: o.id ?? 'toolbar', h: APP_BAR_DP, pad: [8, 4, 8, 4], style: { bg: 'surface' } });
}

/** A standard screen: app bar, body filling the rest, optional floating action button. */
export function screen(o: { appBar?: ViewSpec; body: ViewSpec[]; fab?: ViewSpec; bottom?: ViewSpec; id?: string }): ViewSpec {
  const col = column([...(o.appBar ? [o.appBar] : []), column(o.body, { h: 'fill' }), ...(o.bottom ? [o.bottom] : [])], { h: 'fill' });
  return stack(o.fab ? [col, o.fab] : [col], strip({ id: o.id, style: { bg: 'background' } }));
}

/** A row of tabs; the selected one is marked `selected` as Android's TabLayout does. */
export function tabs(items: Array<{ label: string; selected: boolean; onClick: Handler; icon?: string; id?: string }>, o: { id?: string } = {}): ViewSpec {
  return row(
    items.map((t) => strip({
      cls: W.TextView, text: t.label, id: t.id, desc: t.label, selected: t.selected, clickable: true, onClick: t.onClick,
      h: 56, pad: [6, 4, 6, 4], style: { variant: 'tab', textAlign: 'center', size: 14, bold: t.selected, icon: t.icon },
    })),
    { cls: W.TabWidget, id: o.id ?? 'tabs', h: 56, style: { bg: 'surface' } },
  );
}

export function chip(label: string, selected: boolean, onClick: Handler, o: Common = {}): ViewSpec {
  return strip({
    cls: W.CheckBox, text: label, id: o.id, checkable: true, checked: selected, onClick, w: 'wrap', h: 32,
    pad: [4, 12, 4, 12], style: { variant: 'chip', size: 14, radius: 8, textAlign: 'center' },
  });
}

/** A search box in a rounded bar (the app's search field). */
export function searchBar(o: { field: string; hint: string; onSubmit?: Handler; id?: string; onBack?: Handler }): ViewSpec {
  const parts: ViewSpec[] = [];
  if (o.onBack) parts.push(iconButton('arrow_back', 'Navigate up', o.onBack));
  parts.push(strip({
    cls: W.EditText, field: o.field, hint: o.hint, id: o.id ?? 'search_src_text', onSubmit: o.onSubmit, weight: 1,
    pad: [12, 16, 12, 16], style: { bg: 'surfaceVariant', radius: 28 },
  }));
  return row(parts, { h: APP_BAR_DP, pad: [8, 8, 8, 8], style: { bg: 'surface' } });
}

/** A horizontal slider (SeekBar); a tap sets the value at the touched position. */
export function slider(o: Common & { value: number; onSet: (v: number) => void }): ViewSpec {
  return strip({
    cls: W.SeekBar, id: o.id, desc: o.desc, enabled: o.enabled, focusable: true, clickable: true, h: 48, pad: [0, 16, 0, 16],
    // The ends of the track saturate, so a tap near either edge reaches 0 or 100%.
    onTapAt: (fx) => o.onSet(Math.min(1, Math.max(0, (fx - 0.04) / 0.92))), style: { variant: 'slider', progress: o.value },
  });
}

export interface DialogButton {
  label: string;
  onClick: Handler;
  id?: string;
  enabled?: boolean;
}

/** An AlertDialog: title, message or custom body, and right-aligned text buttons (android:id/button1 is positive). */
export function dialog(o: { title?: string; message?: string; body?: ViewSpec[]; buttons: DialogButton[] }): ViewSpec {
  const parts: ViewSpec[] = [];
  if (o.title) parts.push(text(o.title, { size: 22, pad: [24, 24, 8, 24], id: 'android:id/alertTitle' }));
  if (o.message) parts.push(text(o.message, { size: 16, pad: [8, 24, 16, 24], fg: 'onSurfaceVariant', id: 'android:id/message' }));
  if (o.body) parts.push(...o.body);
  // Positive button last (rightmost), as Material dialogs lay them out.
  const ids = ['android:id/button1', 'android:id/button2', 'android:id/button3'];
  const btns = o.buttons.map((b, i) => button(b.label, b.onClick, { variant: 'text', w: 'wrap', id: b.id ?? ids[o.buttons.length - 1 - i], enabled: b.enabled }));
  if (btns.length) parts.push(row([{ cls: W.View, weight: 1 }, ...btns], { h: 64, pad: [8, 16, 8, 16], gap: 8 }));
  else parts.push({ cls: W.View, h: 16 });
  return column(parts, { cls: W.FrameLayout, style: { bg: 'surface', radius: 28 } });
}

/** Removes undefined fields so specs stay small and `{...spread}` does not clobber defaults. */
export function strip(o: ViewSpec): ViewSpec;
export function strip(o: Partial<ViewSpec>): Partial<ViewSpec>;
export function strip(o: Partial<ViewSpec>): Partial<ViewSpec> {
  for (const k of Object.keys(o) as Array<keyof ViewSpec>) if (o[k] === undefined) delete o[k];
  return o;
}
