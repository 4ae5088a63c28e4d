import type { ActivityContext, ActivityDef } from '../../runtime/app.js';
import { appBar, caption, column, list, listItem, screen, switchRow, text } from '../../view/widgets.js';
import { ABOUT, PREF, SETTINGS, prefFlag, use24Hour } from './common.js';

/**
 * SettingsActivity and the Simple Mobile Tools About screen. The switches are the app's
 * SharedPreferences; the time format and "Send message on Enter" change how the app behaves.
 */
type Ctx = ActivityContext<Record<string, never>>;

function flag(ctx: Ctx, id: string, label: string, key: string, on: boolean, summary?: string) {
  return switchRow({
    id, label, checked: on, ...(summary ? { summary } : {}),
    onToggle: () => { ctx.app.prefs[key] = String(!on); },
  });
}

export const settingsActivity: ActivityDef<Record<string, never>> = {
  name: SETTINGS,
  create: () => ({}),
  render: (ctx) => {
    const rows = [
      text('General', { id: 'settings_general_label', size: 14, bold: true, fg: 'primary', pad: [16, 24, 4, 24] }),
      flag(ctx, 'settings_use_24_hour_time_format', 'Use 24-hour time format', PREF.use24Hour, use24Hour(ctx.app, ctx.sys)),
      text('Messages', { id: 'settings_messages_label', size: 14, bold: true, fg: 'primary', pad: [16, 24, 4, 24] }),
      flag(ctx, 'settings_show_character_counter', 'Show a character counter at writing messages', PREF.charCounter, prefFlag(ctx.app, PREF.charCounter)),
      flag(ctx, 'settings_send_on_enter', 'Send message on Enter', PREF.sendOnEnter, prefFlag(ctx.app, PREF.sendOnEnter)),
      flag(ctx, 'settings_enable_delivery_reports', 'Enable delivery reports', PREF.deliveryReports, prefFlag(ctx.app, PREF.deliveryReports)),
    ];
    return { body: screen({ appBar: appBar({ title: 'Settings', onBack: () => ctx.nav.finish() }), body: [list('settings', rows, { id: 'settings_holder' })] }) };
  },
};

export const aboutActivity: ActivityDef<Record<string, never>> = {
  name: ABOUT,
  create: () => ({}),
  render: (ctx) => ({
    body: screen({
      appBar: appBar({ title: 'About', onBack: () => ctx.nav.finish() }),
      body: [
        column([
          text('Simple SMS Messenger', { id: 'about_app_name', size: 22, align: 'center', pad: [24, 24, 4, 24] }),
          caption('Version 5.19.3', { id: 'about_version', align: 'center' }),
        ]),
        list('about', [
          listItem({ id: 'about_rate_us', title: 'Rate us', leading: 'star' }),
          listItem({ id: 'about_invite', title: 'Invite friends', leading: 'share' }),
          listItem({ id: 'about_privacy_policy', title: 'Privacy policy', leading: 'lock' }),
          listItem({ id: 'about_licenses', title: 'Third-party licences', leading: 'info' }),
        ], { id: 'about_holder' }),
      ],
    }),
  }),
};
