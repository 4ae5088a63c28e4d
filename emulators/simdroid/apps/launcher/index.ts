import type { ActivityDef, AppDef } from '../../runtime/app.js';
import { LAUNCHER_HOME, LAUNCHER_PACKAGE, LAUNCHER_RECENTS } from '../../runtime/ui-state.js';
import { W, type ViewSpec } from '../../view/spec.js';
import { button, column, fill, row, searchBar, strip, text } from '../../view/widgets.js';
import { formatShortDate } from '../../system/clock.js';

/** The Pixel launcher: a home screen with a dock, the app drawer (swipe up), and Overview (recents). */
const DOCK = ['com.google.android.dialer', 'com.simplemobiletools.smsmessenger', 'com.android.chrome', 'com.android.camera2'];
const COLUMNS = 4;
const CELL_H = 120;

interface HomeState {
  drawer: boolean;
}

function appIcon(label: string, glyph: string, color: string, onClick: () => void, onWallpaper = false): ViewSpec {
  return strip({
    cls: W.TextView, text: label, desc: label, clickable: true, onClick, h: CELL_H, pad: [64, 2, 4, 2],
    style: { variant: 'appicon', icon: glyph, bg: color as `#${string}`, size: 12, textAlign: 'center', lines: 1, ...(onWallpaper ? { fg: '#FFFFFF' as const } : {}) },
  });
}

const home: ActivityDef<HomeState> = {
  name: LAUNCHER_HOME,
  create: () => ({ drawer: false }),
  onBack: ({ s, nav }) => {
    if (!s.drawer) return true;
    s.drawer = false;
    nav.hideKeyboard();
    return true;
  },
  render: (ctx) => {
    const { s, sys, fields, nav } = ctx;
    const apps = [...sys.installedApps()].filter((a) => a.package !== LAUNCHER_PACKAGE);
    const launch = (pkg: string) => () => ctx.tasks!.launchApp(pkg);
    if (!s.drawer) {
      const dock = DOCK.map((p) => apps.find((a) => a.package === p)).filter((a) => a !== undefined);
      return {
        body: column(
          [
            text(formatShortDate(sys.clock.now()), { id: 'date', size: 16, pad: [24, 24, 0, 24], fg: '#FFFFFF' }),
            fill(),
            row(dock.map((a) => appIcon(a.label, a.icon.glyph, a.icon.color, launch(a.package), true)), { id: 'hotseat', h: CELL_H, pad: [0, 8, 0, 8] }),
            strip({ cls: W.TextView, id: 'search_container_hotseat', desc: 'Google search', text: '', h: 56, pad: [0, 24, 0, 24], style: { icon: 'search', bg: '#FFFFFF', radius: 28 } }),
            { cls: W.View, h: 16 },
          ],
          {
            cls: W.FrameLayout, id: 'workspace', h: 'fill', style: { bg: '#3B5B7A' },
            onSwipe: (dir) => {
              if (dir === 'up') s.drawer = true;
            },
          },
        ),
      };
    }
    const q = (fields.query ?? '').trim().toLowerCase();
    const shown = apps.filter((a) => !q || a.label.toLowerCase().includes(q)).sort((a, b) => a.label.localeCompare(b.label));
    const rows: ViewSpec[] = [];
    for (let i = 0; i < shown.length; i += COLUMNS) {
      const cells = shown.slice(i, i + COLUMNS).map((a) => appIcon(a.label, a.icon.glyph, a.icon.color, launch(a.package)));
      while (cells.length < COLUMNS) cells.push({ cls: W.View, h: CELL_H });
      rows.push(row(cells, { h: CELL_H }));
    }
    return {
      body: column(
        [
          searchBar({ field: 'query', hint: 'Search your phone and more', id: 'search_box_input' }),
          rows.length
            ? strip({ cls: W.RecyclerView, id: 'apps_list_view', scrollKey: 'apps', layout: 'column', children: rows, h: 'fill', pad: [8, 8, 8, 8],
                onSwipe: (dir) => {
                  if (dir === 'down') {
                    s.drawer = false;
                    nav.hideKeyboard();
                  }
                } })
            : column([text('No apps found', { align: 'center', fg: 'onSurfaceVariant' }), fill()], { h: 'fill' }),
        ],
        { cls: W.FrameLayout, id: 'apps_view', h: 'fill', style: { bg: 'background' } },
      ),
    };
  },
};

const recents: ActivityDef<Record<string, never>> = {
  name: LAUNCHER_RECENTS,
  create: () => ({}),
  render: (ctx) => {
    const tasks = ctx.tasks!.recentTasks();
    const cards = tasks.map((t) =>
      column(
        [text(t.label, { size: 18, bold: true, pad: [16, 16, 8, 16] }), text(`${t.title}`, { size: 14, fg: 'onSurfaceVariant', pad: [0, 16, 16, 16] })],
        {
          id: 'snapshot', desc: t.label, clickable: true, onClick: () => ctx.tasks!.bringToFront(t.id),
          onSwipe: (dir) => {
            if (dir === 'up') ctx.tasks!.removeTask(t.id);
          },
          pad: [0, 0, 8, 0], style: { variant: 'card', radius: 16 },
        },
      ),
    );
    return {
      body: column(
        [
          tasks.length
            ? strip({ cls: W.RecyclerView, id: 'overview_panel', scrollKey: 'tasks', layout: 'column', children: cards, h: 'fill', gap: 16, pad: [16, 24, 16, 24] })
            : column([fill(), text('No recent items', { align: 'center', id: 'empty_view' }), fill()], { h: 'fill' }),
          row([fill(), button('Clear all', () => tasks.forEach((t) => ctx.tasks!.removeTask(t.id)), { id: 'clear_all', variant: 'tonal', w: 'wrap' }), fill()], { h: 72, pad: [12, 0, 12, 0] }),
        ],
        { cls: W.FrameLayout, h: 'fill', style: { bg: 'surfaceVariant' } },
      ),
    };
  },
};

export const launcherApp: AppDef = {
  package: LAUNCHER_PACKAGE,
  label: 'Pixel Launcher',
  icon: { glyph: 'apps', color: '#5F6368' },
  launchActivity: LAUNCHER_HOME,
  activities: [home, recents],
  system: true,
};
