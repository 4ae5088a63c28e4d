import type { ActivityDef, AppDef } from '../../runtime/app.js';
import { bootTasks } from './boot.js';
import { SCHEMA, TASKS_DB } from './db.js';
import { backFromEditor, renderEditor } from './edit.js';
import { closeSearch, renderList } from './list.js';
import type { MainState } from './state.js';

/**
 * Tasks.org (org.tasks), the to-do app AndroidWorld uses: the "My Tasks" list and the task editor,
 * both fragments of MainActivity as in the real app, over the app's Room database
 * (/data/data/org.tasks/databases/database, table `tasks`).
 */
const MAIN = 'com.todoroo.astrid.activity.MainActivity';

const main: ActivityDef<MainState> = {
  name: MAIN,
  create: () => ({ edit: null, searching: false, dialog: null, selected: [], menu: false, completedCollapsed: false }),
  render: (ctx) => (ctx.s.edit ? renderEditor(ctx, ctx.s.edit) : renderList(ctx)),
  onBack: (ctx) => {
    if (ctx.s.edit) {
      backFromEditor(ctx, ctx.s.edit);
      return true;
    }
    if (ctx.s.selected.length) {
      ctx.s.selected = [];
      return true;
    }
    if (ctx.s.searching) {
      closeSearch(ctx);
      return true;
    }
    return false;
  },
};

export const tasksApp: AppDef = {
  package: 'org.tasks',
  label: 'Tasks',
  icon: { glyph: 'task', color: '#1976D2' },
  accent: '#1976D2',
  launchActivity: MAIN,
  activities: [main],
  databases: [{ path: TASKS_DB, schema: SCHEMA }],
  boot: bootTasks,
  notificationPrompt: true,
};
