/** Google Contacts' package and activity classes (AOSP Contacts' names, which Google Contacts keeps). */
export const CONTACTS_PKG = 'com.google.android.contacts';
export const PEOPLE = 'com.android.contacts.activities.PeopleActivity';
export const QUICK_CONTACT = 'com.android.contacts.quickcontact.QuickContactActivity';
export const EDITOR = 'com.android.contacts.activities.ContactEditorActivity';

/** Where the detail screen's Call, Text and Email actions go. */
export const DIALER_PKG = 'com.google.android.dialer';
export const SMS_PKG = 'com.simplemobiletools.smsmessenger';
export const GMAIL_PKG = 'com.google.android.gm';
