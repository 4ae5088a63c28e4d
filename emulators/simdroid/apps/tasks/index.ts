import type { AppDef } from '../../runtime/app.js';
import { appBar, screen, text } from '../../view/widgets.js';

/** Tasks: not simulated yet (a placeholder screen). */
export const tasksApp: AppDef = {
  package: 'org.tasks',
  label: 'Tasks',
  icon: { glyph: 'task', color: '#1976D2' },
  launchActivity: 'com.todoroo.astrid.activity.MainActivity',
  activities: [{
    name: 'com.todoroo.astrid.activity.MainActivity',
    create: () => ({}),
    render: () => ({ body: screen({ appBar: appBar({ title: 'Tasks' }), body: [text('Coming soon')] }) }),
  }],
};
