import type { ActivityDef, AppDef } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { appBar, listItem, list, screen, searchBar, text, caption, column } from '../../view/widgets.js';
import { PAGES, SUB_SETTINGS, type SubState } from './pages.js';

/**
 * Android Settings (com.android.settings): the top-level list, which needs scrolling, and one
 * SubSettings activity that shows every sub-page, as AOSP does. State lives in the Settings
 * provider (`settings get/put`), so tasks check it exactly as on an emulator.
 */
const MAIN = 'com.android.settings.Settings';
const SEARCH = 'com.android.settings.search.SearchActivity';

const TOP: Array<{ page: string; icon: string; summary: string; id: string }> = [
  { page: 'network', icon: 'network', summary: 'Mobile, Wi‑Fi, hotspot', id: 'network_internet' },
  { page: 'connected', icon: 'devices', summary: 'Bluetooth, pairing', id: 'connected_devices' },
  { page: 'apps', icon: 'apps_grid', summary: 'Recent apps, default apps', id: 'apps' },
  { page: 'notifications', icon: 'notifications', summary: 'Notification history, conversations', id: 'notifications' },
  { page: 'battery', icon: 'battery_full', summary: '100%', id: 'battery' },
  { page: 'storage', icon: 'storage', summary: '51% used - 7.9 GB free', id: 'storage' },
  { page: 'sound', icon: 'sound', summary: 'Volume, haptics, Do Not Disturb', id: 'sound' },
  { page: 'display', icon: 'display', summary: 'Dark theme, font size, brightness', id: 'display' },
  { page: 'wallpaper', icon: 'wallpaper', summary: 'Colors, themed icons, app grid', id: 'wallpaper' },
  { page: 'accessibility', icon: 'accessibility', summary: 'Display, interaction, audio', id: 'accessibility' },
  { page: 'security', icon: 'security', summary: 'App security, device lock, permissions', id: 'security' },
  { page: 'location', icon: 'location', summary: 'On - 0 apps have access to location', id: 'location' },
  { page: 'safety', icon: 'emergency', summary: 'Emergency SOS, medical info, alerts', id: 'safety' },
  { page: 'passwords', icon: 'account', summary: 'Saved passwords, autofill, synced accounts', id: 'accounts' },
  { page: 'wellbeing', icon: 'bedtime', summary: 'Screen time, app timers, bedtime schedules', id: 'wellbeing' },
  { page: 'google', icon: 'google', summary: 'Services & preferences', id: 'google' },
  { page: 'system', icon: 'system', summary: 'Languages, gestures, time, backup', id: 'system' },
  { page: 'about', icon: 'info', summary: 'SimDroid Pixel', id: 'about_phone' },
];

const main: ActivityDef<Record<string, never>> = {
  name: MAIN,
  create: () => ({}),
  render: (ctx) => {
    const rows: ViewSpec[] = [
      listItem({ id: 'search_action_bar', title: 'Search settings', leading: 'search', onClick: () => ctx.nav.start(SEARCH) }),
      ...TOP.map((t) => {
        const summary = t.page === 'location' && ctx.sys.settings.get('secure', 'location_mode') === '0' ? 'Off' : t.summary;
        return listItem({ id: t.id, title: PAGES[t.page]!.title, subtitle: summary, leading: t.icon, onClick: () => ctx.nav.start(SUB_SETTINGS, { page: t.page }) });
      }),
    ];
    return { body: screen({ appBar: appBar({ title: 'Settings' }), body: [list('main', rows, { id: 'recycler_view' })] }) };
  },
};

const sub: ActivityDef<SubState> = {
  name: SUB_SETTINGS,
  create: () => ({ dialog: null }),
  render: (ctx) => {
    const page = PAGES[String(ctx.intent.extras.page)];
    if (!page) throw new Error(`Settings has no page ${JSON.stringify(ctx.intent.extras.page)}`);
    const dialog = page.dialog?.(ctx);
    return {
      body: screen({ appBar: appBar({ title: page.title, onBack: () => ctx.nav.finish() }), body: [list('page', page.render(ctx), { id: 'recycler_view' })] }),
      ...(dialog ? { dialog } : {}),
    };
  },
};

const search: ActivityDef<Record<string, never>> = {
  name: SEARCH,
  create: () => ({}),
  render: (ctx) => {
    const q = (ctx.fields.query ?? '').trim().toLowerCase();
    const hits = q
      ? Object.entries(PAGES).filter(([, p]) => `${p.title} ${p.keywords ?? ''}`.toLowerCase().includes(q))
      : [];
    const results = hits.map(([page, p]) => listItem({ title: p.title, subtitle: p.keywords ?? '', id: 'result', onClick: () => ctx.nav.replace(SUB_SETTINGS, { page }) }));
    return {
      body: screen({
        body: [
          searchBar({ field: 'query', hint: 'Search settings', onBack: () => ctx.nav.finish(), id: 'search_src_text' }),
          q && hits.length === 0 ? column([text(`No results for “${q}”`, { align: 'center' }), caption('Try a different word', { align: 'center' })], { pad: [32, 0, 0, 0] }) : list('results', results),
        ],
      }),
    };
  },
};

export const settingsApp: AppDef = {
  package: 'com.android.settings',
  label: 'Settings',
  icon: { glyph: 'settings', color: '#5F6368' },
  accent: '#1A73E8',
  launchActivity: MAIN,
  activities: [main, sub, search],
  system: true,
};
