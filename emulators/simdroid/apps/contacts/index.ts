import type { AppDef } from '../../runtime/app.js';
import { appBar, screen, text } from '../../view/widgets.js';

/** Contacts: not simulated yet (a placeholder screen). */
export const contactsApp: AppDef = {
  package: 'com.google.android.contacts',
  label: 'Contacts',
  icon: { glyph: 'contacts', color: '#1A73E8' },
  launchActivity: 'com.android.contacts.activities.PeopleActivity',
  activities: [{
    name: 'com.android.contacts.activities.PeopleActivity',
    create: () => ({}),
    render: () => ({ body: screen({ appBar: appBar({ title: 'Contacts' }), body: [text('Coming soon')] }) }),
  }],
};
