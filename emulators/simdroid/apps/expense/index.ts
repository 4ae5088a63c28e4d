import type { AppDef } from '../../runtime/app.js';
import { appBar, screen, text } from '../../view/widgets.js';

/** Pro Expense: not simulated yet (a placeholder screen). */
export const expenseApp: AppDef = {
  package: 'com.arduia.expense',
  label: 'Pro Expense',
  icon: { glyph: 'receipt', color: '#0D47A1' },
  launchActivity: 'com.arduia.expense.ui.MainActivity',
  activities: [{
    name: 'com.arduia.expense.ui.MainActivity',
    create: () => ({}),
    render: () => ({ body: screen({ appBar: appBar({ title: 'Pro Expense' }), body: [text('Coming soon')] }) }),
  }],
};
