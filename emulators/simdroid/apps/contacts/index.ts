import type { AppDef } from '../../runtime/app.js';
import { CONTACTS_DB } from '../../system/providers.js';
import type { Rng } from '../../../../core/util/rng.js';
import { saveContact, setStarred, type Draft } from './db.js';
import { quickContact } from './detail.js';
import { editor } from './editor.js';
import { CONTACTS_PKG, EDITOR, PEOPLE } from './names.js';
import { people } from './people.js';

/**
 * Google Contacts (com.google.android.contacts) over the system Contacts provider (contacts2.db),
 * so what the app shows and saves is what `content query` on contacts URIs reads. Screens: the
 * list (PeopleActivity), a contact (QuickContactActivity) and the editor (ContactEditorActivity).
 */
const BOOT_PEOPLE: ReadonlyArray<[string, string, string]> = [
  ['Mom', '', ''],
  ['Daniel', 'Okafor', 'Northwind Traders'],
  ['Grace', 'Liu', ''],
  ['Priya', 'Nair', ''],
  ['Sam', 'Rivera', 'Contoso'],
  ['Hannah', 'Becker', 'Fabrikam'],
  ['Leo', 'Fernandes', ''],
  ['Ava', 'Thompson', ''],
];

function bootNumber(rng: Rng): string {
  return `${rng.int(201, 989)}${rng.int(200, 999)}${String(rng.int(0, 9999)).padStart(4, '0')}`;
}

export const contactsApp: AppDef = {
  package: CONTACTS_PKG,
  label: 'Contacts',
  icon: { glyph: 'contacts', color: '#1A73E8' },
  accent: '#1A73E8',
  launchActivity: PEOPLE,
  activities: [people, quickContact, editor],
  // ContactsContract's Insert intent (extras name/phone/email/company) and the people list's VIEW.
  intentFilters: [
    { activity: EDITOR, actions: ['android.intent.action.INSERT'], mimeTypes: ['vnd.android.cursor.dir/contact', 'vnd.android.cursor.dir/raw_contact', 'vnd.android.cursor.dir/person'] },
    { activity: PEOPLE, actions: ['android.intent.action.VIEW'], schemes: ['content'], dataPrefixes: ['content://contacts/people', 'content://com.android.contacts/contacts'] },
  ],
  // A handful of everyday contacts so the app is not empty on first launch; tasks replace them.
  boot: ({ sys, rng }) => {
    const db = sys.db(CONTACTS_DB);
    for (const [given, family, company] of rng.sample(BOOT_PEOPLE, 5)) {
      const draft: Draft = { given, family, company, phones: [bootNumber(rng)], emails: [] };
      if (family && rng.chance(0.4)) draft.emails.push(`${given}.${family}@gmail.com`.toLowerCase());
      const id = saveContact(db, null, draft);
      if (given === 'Mom') setStarred(db, id, true);
    }
  },
};
