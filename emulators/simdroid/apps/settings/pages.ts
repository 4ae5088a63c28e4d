import type { ActivityContext, DialogView } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { button, caption, column, dialog, divider, listItem, radio, slider, switchRow, text, textField } from '../../view/widgets.js';
import type { SettingsNamespace } from '../../system/settings.js';

/** Settings' sub-pages, all shown by one SubSettings activity (as in AOSP), keyed by `page`. */
export interface SubState {
  dialog: null | 'timeout' | 'device_name' | 'clear_storage' | 'force_stop';
}

export type Ctx = ActivityContext<SubState>;

export interface Page {
  title: string;
  /** Words the Settings search matches besides the title. */
  keywords?: string;
  render(ctx: Ctx): ViewSpec[];
  dialog?(ctx: Ctx): DialogView | undefined;
}

export const SUB_SETTINGS = 'com.android.settings.SubSettings';

const open = (ctx: Ctx, page: string, extras: Record<string, string> = {}) => () => ctx.nav.start(SUB_SETTINGS, { page, ...extras });

function link(ctx: Ctx, id: string, title: string, summary: string | undefined, page: string): ViewSpec {
  return listItem({ id, title, ...(summary ? { subtitle: summary } : {}), onClick: open(ctx, page) });
}

function flagRow(ctx: Ctx, id: string, label: string, ns: SettingsNamespace, key: string, summary?: string, onValue = '1', offValue = '0'): ViewSpec {
  const on = ctx.sys.settings.get(ns, key) === onValue;
  return switchRow({
    id, label, checked: on, ...(summary ? { summary } : {}),
    onToggle: () => ctx.sys.settings.put(ns, key, on ? offValue : onValue),
  });
}

function info(id: string, title: string, value: string): ViewSpec {
  return listItem({ id, title, subtitle: value });
}

const TIMEOUTS: Array<[number, string]> = [
  [15000, '15 seconds'], [30000, '30 seconds'], [60000, '1 minute'], [120000, '2 minutes'],
  [300000, '5 minutes'], [600000, '10 minutes'], [1800000, '30 minutes'],
];

function percent(v: string | null, max: number): number {
  return Math.round((Number(v ?? 0) / max) * 100);
}

function volumeSlider(ctx: Ctx, id: string, label: string, key: string, max: number): ViewSpec {
  const v = Number(ctx.sys.settings.get('system', key) ?? 0);
  return column([
    text(label, { size: 16, pad: [12, 24, 0, 24] }),
    slider({ id, desc: label, value: v / max, onSet: (f) => ctx.sys.settings.put('system', key, String(Math.round(f * max))) }),
  ]);
}

export const PAGES: Record<string, Page> = {
  network: {
    title: 'Network & internet',
    keywords: 'wifi wi-fi airplane mobile data hotspot',
    render: (ctx) => {
      const s = ctx.sys.settings;
      const wifi = s.flag('global', 'wifi_on') && !s.flag('global', 'airplane_mode_on');
      return [
        link(ctx, 'internet', 'Internet', wifi ? 'AndroidWifi' : 'Off', 'internet'),
        listItem({ id: 'calls_sms', title: 'Calls & SMS', subtitle: 'T-Mobile' }),
        listItem({ id: 'sims', title: 'SIMs', subtitle: 'T-Mobile' }),
        flagRow(ctx, 'airplane_mode', 'Airplane mode', 'global', 'airplane_mode_on'),
        listItem({ id: 'hotspot', title: 'Hotspot & tethering', subtitle: 'Off' }),
        flagRow(ctx, 'data_saver', 'Data Saver', 'global', 'data_saver_on'),
        listItem({ id: 'vpn', title: 'VPN', subtitle: 'None' }),
        listItem({ id: 'private_dns', title: 'Private DNS', subtitle: 'Automatic' }),
      ];
    },
  },
  internet: {
    title: 'Internet',
    keywords: 'wifi wi-fi network',
    render: (ctx) => {
      const on = ctx.sys.settings.flag('global', 'wifi_on');
      const rows: ViewSpec[] = [flagRow(ctx, 'wifi_switch', 'Wi‑Fi', 'global', 'wifi_on')];
      if (on) {
        rows.push(
          listItem({ id: 'connected_network', title: 'AndroidWifi', subtitle: 'Connected', leading: 'wifi' }),
          divider(),
          listItem({ title: 'Pixel-Guest', subtitle: 'Saved', leading: 'wifi' }),
          listItem({ title: 'CoffeeShop_5G', leading: 'lock' }),
          listItem({ title: 'NETGEAR-23', leading: 'lock' }),
          listItem({ id: 'add_network', title: 'Add network', leading: 'add' }),
        );
      } else {
        rows.push(caption('To see available networks, turn Wi‑Fi on', { pad: [16, 24, 16, 24] }));
      }
      rows.push(listItem({ id: 'network_prefs', title: 'Network preferences', subtitle: 'Wi‑Fi turns back on automatically' }));
      return rows;
    },
  },
  connected: {
    title: 'Connected devices',
    keywords: 'bluetooth pair',
    render: (ctx) => [
      listItem({ id: 'pair_new_device', title: 'Pair new device', leading: 'add' }),
      link(ctx, 'connection_preferences', 'Connection preferences', 'Bluetooth, Android Auto, NFC', 'connection_prefs'),
    ],
  },
  connection_prefs: {
    title: 'Connection preferences',
    render: (ctx) => [
      link(ctx, 'bluetooth', 'Bluetooth', ctx.sys.settings.flag('global', 'bluetooth_on') ? 'On' : 'Off', 'bluetooth'),
      listItem({ id: 'cast', title: 'Cast', subtitle: 'Not connected' }),
      listItem({ id: 'printing', title: 'Printing', subtitle: '1 print service on' }),
      listItem({ id: 'nearby_share', title: 'Nearby Share', subtitle: 'Off' }),
    ],
  },
  bluetooth: {
    title: 'Bluetooth',
    keywords: 'pair headphones',
    render: (ctx) => [
      flagRow(ctx, 'bluetooth_switch', 'Use Bluetooth', 'global', 'bluetooth_on'),
      listItem({ id: 'pair_new_device', title: 'Pair new device', leading: 'add' }),
      info('device_name', 'Device name', ctx.sys.settings.get('global', 'device_name') ?? 'SimDroid'),
    ],
  },
  display: {
    title: 'Display',
    keywords: 'brightness dark theme screen timeout font rotate',
    render: (ctx) => {
      const s = ctx.sys.settings;
      const timeout = TIMEOUTS.find(([ms]) => String(ms) === s.get('system', 'screen_off_timeout'))?.[1] ?? 'Never';
      return [
        text('Brightness level', { size: 16, pad: [12, 24, 0, 24] }),
        caption(`${percent(s.get('system', 'screen_brightness'), 255)}%`, { pad: [0, 24, 0, 24], id: 'brightness_summary' }),
        slider({
          // Android 13's slider spans screen_brightness 1–255: at its left end the setting is 1, never 0
          // (AndroidWorld's SystemBrightnessMin checks for 1).
          id: 'brightness_slider', desc: 'Display brightness', value: (Number(s.get('system', 'screen_brightness') ?? 1) - 1) / 254,
          onSet: (f) => s.put('system', 'screen_brightness', String(1 + Math.round(f * 254))),
        }),
        flagRow(ctx, 'auto_brightness', 'Adaptive brightness', 'system', 'screen_brightness_mode'),
        divider(),
        flagRow(ctx, 'dark_ui_mode', 'Dark theme', 'secure', 'ui_night_mode', undefined, '2', '1'),
        listItem({ id: 'screen_timeout', title: 'Screen timeout', subtitle: `After ${timeout} of inactivity`, onClick: () => { ctx.s.dialog = 'timeout'; } }),
        flagRow(ctx, 'auto_rotate', 'Auto-rotate screen', 'system', 'accelerometer_rotation'),
        listItem({ id: 'font_size', title: 'Display size and text', subtitle: 'Default' }),
        listItem({ id: 'screen_saver', title: 'Screen saver', subtitle: 'Clock' }),
      ];
    },
    dialog: (ctx) => {
      if (ctx.s.dialog !== 'timeout') return undefined;
      const s = ctx.sys.settings;
      const close = () => { ctx.s.dialog = null; };
      return {
        spec: dialog({
          title: 'Screen timeout',
          body: TIMEOUTS.map(([ms, label]) => radio({
            label, checked: s.get('system', 'screen_off_timeout') === String(ms),
            onSelect: () => { s.put('system', 'screen_off_timeout', String(ms)); close(); },
          })),
          buttons: [{ label: 'Cancel', onClick: close }],
        }),
        onCancel: close,
      };
    },
  },
  sound: {
    title: 'Sound & vibration',
    keywords: 'volume ring alarm media do not disturb',
    render: (ctx) => [
      volumeSlider(ctx, 'media_volume', 'Media volume', 'volume_music', 15),
      volumeSlider(ctx, 'call_volume', 'Call volume', 'volume_voice', 5),
      volumeSlider(ctx, 'ring_volume', 'Ring & notification volume', 'volume_ring', 7),
      volumeSlider(ctx, 'alarm_volume', 'Alarm volume', 'volume_alarm', 7),
      flagRow(ctx, 'zen_mode', 'Do Not Disturb', 'global', 'zen_mode'),
      flagRow(ctx, 'haptics', 'Vibration & haptics', 'system', 'haptic_feedback_enabled'),
    ],
  },
  apps: {
    title: 'Apps',
    keywords: 'force stop clear storage default apps',
    render: (ctx) => [
      link(ctx, 'all_apps', `See all ${ctx.sys.installedApps().length} apps`, undefined, 'all_apps'),
      listItem({ id: 'default_apps', title: 'Default apps', subtitle: 'Chrome, Phone, and Messages' }),
      listItem({ id: 'screen_time', title: 'Screen time', subtitle: '0 minutes today' }),
      listItem({ id: 'unused_apps', title: 'Unused apps', subtitle: '0 unused apps' }),
    ],
  },
  all_apps: {
    title: 'All apps',
    render: (ctx) => [...ctx.sys.installedApps()].sort((a, b) => a.label.localeCompare(b.label)).map((a) =>
      listItem({ title: a.label, leading: { letter: a.label[0]!, color: a.icon.color }, onClick: open(ctx, 'app_info', { pkg: a.package }) })),
  },
  app_info: {
    title: 'App info',
    render: (ctx) => {
      const pkg = String(ctx.intent.extras.pkg ?? '');
      const app = ctx.sys.installedApps().find((a) => a.package === pkg);
      return [
        text(app?.label ?? pkg, { size: 24, align: 'center', pad: [24, 24, 4, 24], id: 'entity_header_title' }),
        caption(pkg, { align: 'center', id: 'entity_header_summary' }),
        column([
          button('Open', () => ctx.tasks!.launchApp(pkg), { id: 'button1', variant: 'outlined' }),
          button('Force stop', () => { ctx.s.dialog = 'force_stop'; }, { id: 'button3', variant: 'outlined' }),
        ], { gap: 8, pad: [16, 24, 16, 24] }),
        listItem({ id: 'notifications', title: 'Notifications', subtitle: 'On' }),
        listItem({ id: 'permissions', title: 'Permissions', subtitle: 'No permissions requested' }),
        link(ctx, 'storage_settings', 'Storage & cache', 'Internal storage', 'app_storage'),
      ];
    },
    dialog: (ctx) => {
      if (ctx.s.dialog !== 'force_stop') return undefined;
      const close = () => { ctx.s.dialog = null; };
      return {
        spec: dialog({
          title: 'Force stop?',
          message: 'If you force stop an app, it may misbehave.',
          buttons: [{ label: 'Cancel', onClick: close }, { label: 'OK', onClick: () => { ctx.tasks!.forceStop(String(ctx.intent.extras.pkg)); close(); } }],
        }),
        onCancel: close,
      };
    },
  },
  app_storage: {
    title: 'Storage & cache',
    render: (ctx) => [
      info('app_size', 'App size', '24.31 MB'),
      info('data_size', 'User data', '1.02 MB'),
      column([
        button('Clear storage', () => { ctx.s.dialog = 'clear_storage'; }, { id: 'button1', variant: 'outlined' }),
        button('Clear cache', () => ctx.nav.toast('Cache cleared'), { id: 'button2', variant: 'outlined' }),
      ], { gap: 8, pad: [16, 24, 16, 24] }),
    ],
    dialog: (ctx) => {
      if (ctx.s.dialog !== 'clear_storage') return undefined;
      const close = () => { ctx.s.dialog = null; };
      return {
        spec: dialog({
          title: 'Clear app data?',
          message: "All this app's data will be deleted permanently. This includes all files, settings, accounts, databases, etc.",
          buttons: [{ label: 'Cancel', onClick: close }, { label: 'Delete', onClick: () => { ctx.tasks!.clearData(String(ctx.intent.extras.pkg)); close(); } }],
        }),
        onCancel: close,
      };
    },
  },
  battery: {
    title: 'Battery',
    keywords: 'battery saver percentage',
    render: (ctx) => [
      text('100%', { size: 32, pad: [16, 24, 0, 24], id: 'battery_level' }),
      caption('Charging', { pad: [0, 24, 16, 24] }),
      flagRow(ctx, 'battery_saver', 'Battery Saver', 'global', 'low_power'),
      flagRow(ctx, 'battery_percentage', 'Battery percentage', 'system', 'status_bar_show_battery_percent', 'Show battery percentage in status bar'),
    ],
  },
  storage: {
    title: 'Storage',
    render: () => [
      text('8.1 GB used', { size: 28, pad: [16, 24, 0, 24] }),
      caption('of 16 GB', { pad: [0, 24, 16, 24] }),
      info('apps_storage', 'Apps', '3.4 GB'), info('images', 'Images', '120 MB'), info('documents', 'Documents & other', '36 MB'), info('system', 'System', '4.5 GB'),
    ],
  },
  location: {
    title: 'Location',
    keywords: 'gps',
    render: (ctx) => [
      flagRow(ctx, 'location_switch', 'Use location', 'secure', 'location_mode', undefined, '3', '0'),
      listItem({ id: 'recent_access', title: 'Recent access', subtitle: 'No apps have accessed location recently' }),
    ],
  },
  system: {
    title: 'System',
    keywords: 'date time language reset',
    render: (ctx) => [
      listItem({ id: 'languages', title: 'Languages & input', subtitle: 'Gboard' }),
      listItem({ id: 'gestures', title: 'Gestures' }),
      link(ctx, 'date_time', 'Date & time', 'GMT+00:00 Coordinated Universal Time', 'date_time'),
      listItem({ id: 'backup', title: 'Backup', subtitle: 'Off' }),
      listItem({ id: 'reset', title: 'Reset options' }),
    ],
  },
  date_time: {
    title: 'Date & time',
    keywords: '24-hour clock time zone',
    render: (ctx) => [
      flagRow(ctx, 'auto_time', 'Set time automatically', 'global', 'auto_time'),
      info('time_zone', 'Time zone', 'GMT+00:00 Coordinated Universal Time'),
      flagRow(ctx, 'time_format', 'Use 24-hour format', 'system', 'time_12_24', ctx.sys.settings.get('system', 'time_12_24') === '24' ? '13:00' : '1:00 PM', '24', '12'),
    ],
  },
  about: {
    title: 'About emulated device',
    keywords: 'android version build model device name',
    render: (ctx) => [
      listItem({ id: 'device_name', title: 'Device name', subtitle: ctx.sys.settings.get('global', 'device_name') ?? '', onClick: () => {
        ctx.fields.device_name = ctx.sys.settings.get('global', 'device_name') ?? '';
        ctx.s.dialog = 'device_name';
      } }),
      info('phone_number', 'Phone number', '+1 555-521-5554'),
      info('firmware_version', 'Android version', '13'),
      info('model', 'Model', 'SimDroid Pixel'),
      info('build_number', 'Build number', 'TE1A.220922.012'),
      info('ip_address', 'IP address', '10.0.2.16'),
    ],
    dialog: (ctx) => {
      if (ctx.s.dialog !== 'device_name') return undefined;
      const close = () => { ctx.s.dialog = null; ctx.nav.hideKeyboard(); };
      return {
        spec: dialog({
          title: 'Device name',
          body: [textField({ field: 'device_name', hint: 'Device name', id: 'edittext' })],
          buttons: [
            { label: 'Cancel', onClick: close },
            { label: 'Rename', onClick: () => {
              const name = (ctx.fields.device_name ?? '').trim();
              if (name) ctx.sys.settings.put('global', 'device_name', name);
              close();
            } },
          ],
        }),
        onCancel: close,
      };
    },
  },
  notifications: {
    title: 'Notifications',
    render: (ctx) => [
      listItem({ id: 'app_notifications', title: 'App notifications', subtitle: 'About 12 notifications per day' }),
      listItem({ id: 'notification_history', title: 'Notification history' }),
      flagRow(ctx, 'dnd', 'Do Not Disturb', 'global', 'zen_mode'),
    ],
  },
  security: { title: 'Security & privacy', render: () => [info('screen_lock', 'Screen lock', 'None'), info('security_update', 'Security update', 'September 5, 2022'), info('permission_manager', 'Permission manager', 'Control app access to your data')] },
  accessibility: { title: 'Accessibility', render: () => [info('talkback', 'TalkBack', 'Off'), info('select_to_speak', 'Select to Speak', 'Off'), info('color_correction', 'Color correction', 'Off')] },
  wallpaper: { title: 'Wallpaper & style', render: () => [info('wallpaper', 'Wallpaper', 'Default'), info('themed_icons', 'Themed icons', 'Off')] },
  passwords: { title: 'Passwords & accounts', render: () => [info('autofill', 'Autofill service', 'Google'), info('accounts', 'Accounts', 'No accounts added')] },
  wellbeing: { title: 'Digital Wellbeing & parental controls', render: () => [info('dashboard', 'Dashboard', '0 min today'), info('bedtime', 'Bedtime mode', 'Off')] },
  google: { title: 'Google', render: () => [info('google_account', 'Google Account', 'Not signed in'), info('backup', 'Backup', 'Off')] },
  safety: { title: 'Safety & emergency', render: () => [info('emergency_sos', 'Emergency SOS', 'Off'), info('medical_info', 'Medical information', 'Not set')] },
};
