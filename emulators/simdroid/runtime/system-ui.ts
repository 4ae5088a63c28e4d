import type { Handler, ViewSpec } from '../view/spec.js';
import { W } from '../view/spec.js';
import { column, row, text, button, strip } from '../view/widgets.js';
import { formatTime } from '../system/clock.js';
import type { SettingsStore } from '../system/settings.js';
import type { MenuView } from './app.js';
import type { ToolbarItem } from './text-editing.js';

/** The status bar: clock on the left; radio, Wi-Fi, Bluetooth and battery icons on the right. */
export function statusBarSpec(now: number, settings: SettingsStore): ViewSpec {
  const icons: ViewSpec[] = [];
  const icon = (name: string, desc: string, id: string) => strip({ cls: W.ImageView, id: `com.android.systemui:id/${id}`, desc, w: 20, h: 24, style: { icon: name, iconSize: 16, iconColor: 'onSurface' } });
  if (settings.flag('global', 'airplane_mode_on')) icons.push(icon('airplane', 'Airplane mode on.', 'airplane'));
  else icons.push(icon('signal', 'Phone four bars.', 'mobile_signal'));
  if (settings.flag('global', 'wifi_on') && !settings.flag('global', 'airplane_mode_on')) icons.push(icon('wifi', 'Wifi signal full.', 'wifi_signal'));
  if (settings.flag('global', 'bluetooth_on')) icons.push(icon('bluetooth', 'Bluetooth on.', 'bluetooth'));
  icons.push(icon('battery', 'Battery 100 percent.', 'battery'));
  const h24 = settings.get('system', 'time_12_24') === '24';
  return row(
    [
      text(formatTime(now, h24).replace(/ [AP]M$/, ''), { id: 'com.android.systemui:id/clock', size: 14, pad: [0, 0, 0, 16], w: 'wrap', bold: true }),
      { cls: W.View, weight: 1 },
      ...icons,
      { cls: W.View, w: 12 },
    ],
    { cls: W.FrameLayout, id: 'com.android.systemui:id/status_bar', style: { bg: 'background' } },
  );
}

/** Three-button navigation: Back, Home, Overview. */
export function navBarSpec(h: { back: Handler; home: Handler; recents: Handler }): ViewSpec {
  const key = (id: string, desc: string, icon: string, onClick: Handler) =>
    strip({ cls: W.ImageView, id: `com.android.systemui:id/${id}`, desc, onClick, clickable: true, style: { icon, iconColor: 'onSurface' } });
  return row(
    [key('back', 'Back', 'nav_back', h.back), key('home', 'Home', 'nav_home', h.home), key('recent_apps', 'Overview', 'nav_recents', h.recents)],
    { cls: W.FrameLayout, id: 'com.android.systemui:id/navigation_bar_frame', pad: [0, 48, 0, 48], style: { bg: 'background' } },
  );
}

export interface KeyboardHandlers {
  type: (ch: string) => void;
  del: Handler;
  enter: Handler;
  shift: Handler;
  symbols: Handler;
}

const LETTER_ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];
const SYMBOL_ROWS = ['1234567890', '@#$_&-+()/', '*"\':;!?'];

/**
 * The soft keyboard (Gboard-like). Its keys work when tapped; the accessibility tree shows only the
 * keyboard window itself, as uiautomator does for the IME.
 */
export function keyboardSpec(kb: { shift: boolean; symbols: boolean }, h: KeyboardHandlers): ViewSpec {
  const rows = kb.symbols ? SYMBOL_ROWS : LETTER_ROWS;
  const key = (label: string, onClick: Handler, weight = 1, icon?: string) =>
    strip({ cls: W.Button, text: icon ? '' : label, desc: label, onClick, weight, style: { variant: 'filled' as const, bg: 'surfaceVariant' as const, fg: 'onSurface' as const, radius: 6, size: 20, textAlign: 'center' as const, icon } });
  const letters = (r: string) => [...r].map((c) => {
    const ch = kb.shift && !kb.symbols ? c.toUpperCase() : c;
    return key(ch, () => h.type(ch));
  });
  return column(
    [
      row(letters(rows[0]!), { h: 56, gap: 6 }),
      row(letters(rows[1]!), { h: 56, gap: 6, pad: [0, 16, 0, 16] }),
      row([key(kb.symbols ? '=\\<' : 'Shift', h.shift, 1.5, kb.symbols ? undefined : 'shift'), ...letters(rows[2]!), key('Delete', h.del, 1.5, 'backspace')], { h: 56, gap: 6 }),
      row([key(kb.symbols ? 'ABC' : '?123', h.symbols, 1.5), key(',', () => h.type(',')), key('Space', () => h.type(' '), 5), key('.', () => h.type('.')), key('Enter', h.enter, 1.5, 'keyboard_return')], { h: 56, gap: 6 }),
    ],
    { cls: W.FrameLayout, id: 'com.google.android.inputmethod.latin:id/keyboard_holder', pad: [8, 6, 8, 6], gap: 8, style: { bg: 'surface' } },
  );
}

/** Android 13's notification permission prompt, shown over an app on its first launch. */
export function permissionPromptSpec(appLabel: string, allow: Handler, deny: Handler): ViewSpec {
  const id = (n: string) => `com.android.permissioncontroller:id/${n}`;
  return column(
    [
      strip({ cls: W.ImageView, id: id('permission_icon'), h: 40, style: { icon: 'notifications', iconColor: 'primary' } }),
      text(`Allow ${appLabel} to send you notifications?`, { id: id('permission_message'), size: 20, align: 'center', pad: [8, 24, 16, 24] }),
      column(
        [
          button('Allow', allow, { id: id('permission_allow_button'), variant: 'tonal' }),
          button("Don't allow", deny, { id: id('permission_deny_button'), variant: 'tonal' }),
        ],
        { gap: 8, pad: [0, 24, 24, 24] },
      ),
    ],
    { cls: W.LinearLayout, id: id('grant_dialog'), pad: [24, 0, 0, 0], style: { bg: 'surface', radius: 28 } },
  );
}

export function menuSpec(menu: MenuView): ViewSpec {
  return column(
    menu.items.map((it) => strip({
      cls: W.TextView, text: it.label, id: it.id ?? 'title', clickable: true, enabled: it.enabled, onClick: it.onClick, h: 48,
      pad: [12, 16, 12, 16], style: { size: 16 },
    })),
    { cls: W.ListView, pad: [8, 0, 8, 0], style: { bg: 'surface', radius: 4, elevation: true } },
  );
}

/**
 * Android's floating text toolbar: one popup row of text items (the ids Android gives them) over a
 * selection, in the app's window list, as TextView's Editor shows it.
 */
export function textToolbarSpec(items: readonly ToolbarItem[], onItem: (item: ToolbarItem) => void): ViewSpec {
  return row(
    items.map((item) => strip({
      cls: W.TextView, id: 'android:id/floating_toolbar_menu_item_text', text: item, clickable: true, onClick: () => onItem(item),
      w: 'wrap', h: 48, pad: [14, 14, 14, 14], style: { size: 14 },
    })),
    { cls: W.LinearLayout, id: 'android:id/floating_toolbar_menu_item_container', pad: [0, 4, 0, 4], style: { bg: 'surface', radius: 8, elevation: true } },
  );
}
