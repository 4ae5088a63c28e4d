import type { ActivityContext, DialogView } from '../../runtime/app.js';
import type { TimePickerState } from '../../view/pickers.js';
import { W, type Handler, type ViewSpec } from '../../view/spec.js';
import { button, column, dialog, row, strip, text, textField } from '../../view/widgets.js';

/** DeskClock's activity state and the pieces its four tabs share (bottom navigation, FAB bar, label dialog). */
export type Tab = 'alarm' | 'clock' | 'timer' | 'stopwatch';

export const TABS: ReadonlyArray<{ tab: Tab; label: string; icon: string }> = [
  { tab: 'alarm', label: 'Alarm', icon: 'alarm' },
  { tab: 'clock', label: 'Clock', icon: 'clock' },
  { tab: 'timer', label: 'Timer', icon: 'hourglass' },
  { tab: 'stopwatch', label: 'Stopwatch', icon: 'stopwatch' },
];

export type ClockDialog =
  | { kind: 'alarm_time'; alarmId: number | null; picker: TimePickerState }
  | { kind: 'alarm_label'; alarmId: number }
  | { kind: 'timer_label'; timerId: number };

export interface DeskClockState {
  tab: Tab;
  /** The alarm whose card is expanded (one at a time, as in DeskClock). */
  expanded: number | null;
  dialog: ClockDialog | null;
  menu: boolean;
  /** Digits typed on the timer keypad, most significant first (at most six). */
  timerDigits: string;
  /** The keypad is showing although timers exist ("Add timer"). */
  timerSetup: boolean;
}

export type Ctx = ActivityContext<DeskClockState>;

export function uses24h(ctx: Pick<Ctx, 'sys'>): boolean {
  return ctx.sys.settings.get('system', 'time_12_24') === '24';
}

/** Bottom navigation: icon with a pill when selected, label under it (Material 3 NavigationBar). */
export function bottomNav(ctx: Ctx): ViewSpec {
  const items = TABS.map((t) => {
    const selected = ctx.s.tab === t.tab;
    const icon = strip({
      cls: W.ImageView, w: 64, h: 32,
      style: { icon: t.icon, radius: 16, iconColor: selected ? 'onPrimaryContainer' : 'onSurfaceVariant', ...(selected ? { bg: 'primaryContainer' as const } : {}) },
    });
    return column([
      row([{ cls: W.View, weight: 1 }, icon, { cls: W.View, weight: 1 }], { h: 32 }),
      text(t.label, { size: 12, align: 'center', pad: [4, 0, 0, 0], bold: selected, selected, id: 'navigation_bar_item_large_label_view' }),
    ], {
      id: `tab_menu_${t.tab}`, desc: t.label, clickable: true, selected, pad: [12, 0, 12, 0],
      onClick: () => {
        ctx.s.tab = t.tab;
        ctx.s.menu = false;
      },
    });
  });
  return row(items, { cls: W.FrameLayout, id: 'bottom_navigation', h: 80, style: { bg: 'surface' } });
}

/** A round floating action button for the FAB bar. */
export function fabButton(icon: string, desc: string, onClick: Handler, id = 'fab'): ViewSpec {
  return strip({ cls: W.ImageButton, id, desc, onClick, w: 72, h: 72, style: { variant: 'fab', icon, radius: 24, iconSize: 28 } });
}

/** The bar above the navigation with DeskClock's left button, FAB and right button. */
export function fabBar(o: { left?: ViewSpec; fab?: ViewSpec; right?: ViewSpec }): ViewSpec {
  const side = (v: ViewSpec | undefined) => row(v ? [{ cls: W.View, weight: 1 }, v, { cls: W.View, weight: 1 }] : [], { weight: 1, pad: [12, 0, 12, 0] });
  return row([side(o.left), o.fab ?? { cls: W.View, w: 72 }, side(o.right)], { h: 96, pad: [12, 8, 12, 8] });
}

/** `desc`: the content description DeskClock sets beside the text (the stopwatch's Reset and Lap; AndroidWorld looks for "Lap"). */
export function sideButton(label: string, onClick: Handler, id: string, desc?: string): ViewSpec {
  return button(label, onClick, { variant: 'tonal', id, w: 'wrap', ...(desc !== undefined ? { desc } : {}) });
}

/** DeskClock's label dialog (LabelDialogFragment): one text field, Cancel and OK. */
export function labelDialog(ctx: Ctx, onOk: (label: string) => void): DialogView {
  const close = () => {
    ctx.s.dialog = null;
    ctx.nav.hideKeyboard();
  };
  return {
    spec: dialog({
      title: 'Label',
      body: [textField({ field: 'label', hint: 'Label', id: 'label_input_field' })],
      buttons: [
        { label: 'Cancel', onClick: close },
        { label: 'OK', onClick: () => {
          onOk((ctx.fields.label ?? '').trim());
          close();
        } },
      ],
    }),
    onCancel: close,
  };
}

/** Opens the label dialog with the field pre-filled and focused, as DeskClock does. */
export function openLabelDialog(ctx: Ctx, current: string, d: ClockDialog): void {
  ctx.fields.label = current;
  ctx.s.dialog = d;
  ctx.nav.focus('label');
}
