import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { BOOT_SNAPSHOT } from '../../../core/device/device.js';
import { addContact, clearContacts, listContacts } from '../../../core/tasks/families/contacts/contacts-db.js';
import { contentInsert } from '../../../core/tasks/validators/content.js';
import { device, elements, find, get, longPress, scroll, sh, tap, texts, typeInto } from '../../helpers/simdroid.js';

/** Google Contacts in SimDroid, driven through the UI and read back through the Contacts provider. */
const d = device();
afterAll(() => d.close());

const PKG = 'com.google.android.contacts';
const open = () => sh(d, `am start -n ${PKG}/com.android.contacts.activities.PeopleActivity`);
const back = () => d.inputSync({ kind: 'key', key: 'BACK' });
const activity = () => d.wm.foreground().activity.split('.').pop();
const phones = () => sh(d, 'content query --uri content://contacts/phones --projection display_name:number');
const rawCount = () => (sh(d, 'content query --uri content://com.android.contacts/raw_contacts --projection _id').match(/^Row:/gm) ?? []).length;
const names = () => elements(d).filter((e) => e.node.resourceId === `${PKG}:id/cliv_name_textview`).map((e) => e.node.text);

async function seed(people: Array<{ name: string; phone: string; company?: string; email?: string; starred?: boolean }>): Promise<number[]> {
  await clearContacts(d);
  const ids: number[] = [];
  for (const p of people) ids.push(await addContact(d, p));
  return ids;
}

beforeEach(async () => {
  await d.loadSnapshot(BOOT_SNAPSHOT);
});

describe('Contacts app', () => {
  it('boots with a few contacts that the list and the provider agree on', () => {
    open();
    const shown = names();
    expect(shown.length).toBeGreaterThanOrEqual(3);
    expect([...shown].sort((a, b) => a.localeCompare(b))).toEqual(shown);
    for (const n of shown) expect(phones()).toContain(`display_name=${n}, number=`);
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('lists contacts alphabetically under letter headers, and scrolls to the end', async () => {
    const people = ['Zoe Xu', 'Aaron Cole', 'Bea Diaz', 'Cara Eng', 'Dan Fox', 'Eli Gray', 'Fay Hart', 'Gus Ivy', 'Hal Jax', 'Ian Kay', 'Jo Lam', 'Kim Moe', 'Lou Nye', 'Max Orr', 'Ned Poe', 'Oz Quay', 'Pam Roe', 'Yves Tan']
      .map((name, i) => ({ name, phone: `41555501${String(i).padStart(2, '0')}` }));
    await seed(people);
    open();
    expect(names()[0]).toBe('Aaron Cole');
    expect(find(d, { text: 'A', resourceId: 'section_header' })).toBeDefined();
    expect(find(d, { text: 'Zoe Xu' })).toBeUndefined();
    for (let i = 0; i < 5 && !find(d, { text: 'Zoe Xu' }); i++) scroll(d, 'down');
    expect(find(d, { text: 'Zoe Xu' })).toBeDefined();
    expect(find(d, { text: 'Z', resourceId: 'section_header' })).toBeDefined();
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('creates a contact through the editor and shows its page', () => {
    open();
    const before = rawCount();
    tap(d, { contentDesc: 'Create contact' });
    expect(get(d, { resourceId: 'toolbar_button' }).node.enabled).toBe(false);
    typeInto(d, { text: 'First name' }, 'Priya');
    typeInto(d, { text: 'Last name' }, 'Raman');
    typeInto(d, { text: 'Company' }, 'Initech');
    typeInto(d, { text: 'Phone' }, '(415) 555-0134');
    typeInto(d, { text: 'Email' }, 'priya@initech.com');
    tap(d, { text: 'Save' });
    expect(activity()).toBe('QuickContactActivity');
    expect(get(d, { resourceId: 'large_title' }).node.text).toBe('Priya Raman');
    expect(get(d, { resourceId: 'organization_name' }).node.text).toBe('Initech');
    expect(find(d, { contentDesc: 'Call Mobile (415) 555-0134' })).toBeDefined();
    expect(find(d, { contentDesc: 'Text Mobile (415) 555-0134' })).toBeDefined();
    expect(rawCount()).toBe(before + 1);
    expect(phones()).toContain('display_name=Priya Raman, number=(415) 555-0134');
    expect(sh(d, 'content query --uri content://com.android.contacts/data/emails --projection display_name:address')).toContain('display_name=Priya Raman, address=priya@initech.com');
    back();
    expect(names()).toContain('Priya Raman');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('does not save a contact without a name or a number', () => {
    open();
    const before = rawCount();
    tap(d, { contentDesc: 'Create contact' });
    typeInto(d, { text: 'Email' }, 'nobody@example.com');
    back();
    tap(d, { text: 'Save' });
    expect(activity()).toBe('ContactEditorActivity');
    expect(rawCount()).toBe(before);
  });

  it('asks before discarding changes, and leaves at once when there are none', () => {
    open();
    tap(d, { contentDesc: 'Create contact' });
    back();
    expect(activity()).toBe('PeopleActivity');
    tap(d, { contentDesc: 'Create contact' });
    typeInto(d, { text: 'First name' }, 'Ghost');
    back(); // closes the keyboard
    back();
    expect(get(d, { resourceId: 'android:id/alertTitle' }).node.text).toBe('Discard changes?');
    tap(d, { text: 'Keep editing' });
    expect(get(d, { text: 'Ghost' })).toBeDefined();
    tap(d, { contentDesc: 'Navigate up' });
    tap(d, { text: 'Discard' });
    expect(activity()).toBe('PeopleActivity');
    expect(phones()).not.toContain('Ghost');
  });

  it('edits a contact in place: same raw contact, new number, no duplicate', async () => {
    const [id] = await seed([{ name: 'Omar Silva', phone: '2125550111' }, { name: 'Rosa Diaz', phone: '2125550122' }]);
    // A second number typed Work (Phone.TYPE_WORK = 3): editing must not turn it into Mobile.
    await contentInsert(d, 'content://com.android.contacts/data', { raw_contact_id: id!, mimetype: 'vnd.android.cursor.item/phone_v2', data1: '2125550188', data2: '3' });
    open();
    tap(d, { text: 'Omar Silva' });
    tap(d, { contentDesc: 'Edit contact' });
    expect(get(d, { resourceId: 'first_name' }).node.text).toBe('Omar');
    expect(get(d, { resourceId: 'last_name' }).node.text).toBe('Silva');
    const phone = get(d, { resourceId: 'phone_0' });
    expect(phone.node.text).toBe('2125550111');
    d.inputSync({ kind: 'tap', x: (phone.node.bounds.left + phone.node.bounds.right) / 2, y: (phone.node.bounds.top + phone.node.bounds.bottom) / 2 });
    for (let i = 0; i < 10; i++) d.inputSync({ kind: 'key', key: 'DEL' });
    d.inputSync({ kind: 'text', text: '6465550199' });
    tap(d, { text: 'Save' });
    expect(activity()).toBe('QuickContactActivity');
    expect(find(d, { text: '(646) 555-0199' })).toBeDefined();
    const list = await listContacts(d);
    expect(list).toHaveLength(2);
    expect(list.find((c) => c.name === 'Omar Silva')).toMatchObject({ id, phones: ['6465550199', '2125550188'] });
    expect(find(d, { contentDesc: 'Call Work (212) 555-0188' })).toBeDefined();
    // The provider's normalised number (Phone.NORMALIZED_NUMBER) follows the edit.
    expect(sh(d, `sqlite3 /data/data/com.android.providers.contacts/databases/contacts2.db "SELECT data4 FROM data WHERE raw_contact_id = ${id} AND data1 = '6465550199'"`).trim()).toBe('+16465550199');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('deletes a contact from its page after confirmation', async () => {
    await seed([{ name: 'Ivan Novak', phone: '3125550100' }, { name: 'Leila Moreau', phone: '3125550101' }]);
    open();
    tap(d, { text: 'Ivan Novak' });
    tap(d, { contentDesc: 'More options' });
    expect(texts(d)).toEqual(expect.arrayContaining(['Share', 'Delete']));
    tap(d, { text: 'Delete' });
    expect(get(d, { resourceId: 'android:id/alertTitle' }).node.text).toBe('Delete this contact?');
    tap(d, { text: 'Cancel' });
    expect(phones()).toContain('Ivan Novak');
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Delete' });
    tap(d, { resourceId: 'android:id/button1' });
    expect(activity()).toBe('PeopleActivity');
    expect(names()).toEqual(['Leila Moreau']);
    expect(phones()).not.toContain('Ivan Novak');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('selects rows with a long press and deletes the selection', async () => {
    await seed([{ name: 'Ana Lopez', phone: '5125550100' }, { name: 'Ben Kim', phone: '5125550101' }, { name: 'Cleo Park', phone: '5125550102' }]);
    open();
    longPress(d, { text: 'Ana Lopez' });
    expect(get(d, { resourceId: 'toolbar_title' }).node.text).toBe('1 selected');
    tap(d, { text: 'Cleo Park' });
    expect(get(d, { resourceId: 'toolbar_title' }).node.text).toBe('2 selected');
    expect(activity()).toBe('PeopleActivity');
    tap(d, { contentDesc: 'Delete' });
    expect(get(d, { resourceId: 'android:id/alertTitle' }).node.text).toBe('Delete 2 contacts?');
    tap(d, { text: 'Delete' });
    expect(names()).toEqual(['Ben Kim']);
    expect((await listContacts(d)).map((c) => c.name)).toEqual(['Ben Kim']);
    // Back leaves selection mode before it leaves the app.
    longPress(d, { text: 'Ben Kim' });
    back();
    expect(find(d, { resourceId: 'menu_delete' })).toBeUndefined();
    expect(activity()).toBe('PeopleActivity');
  });

  it('searches names, companies and numbers; Back closes the search', async () => {
    await seed([
      { name: 'Hana Ito', phone: '7185550100', company: 'Globex' },
      { name: 'Yusuf Usman', phone: '7185550177', company: 'Hooli' },
      { name: 'Wen Xu', phone: '9175550100', company: 'Globex' },
    ]);
    open();
    tap(d, { text: 'Search contacts' });
    d.inputSync({ kind: 'text', text: 'globex' });
    expect(names()).toEqual(['Hana Ito', 'Wen Xu']);
    tap(d, { resourceId: 'open_search_view_edit_text' });
    for (let i = 0; i < 6; i++) d.inputSync({ kind: 'key', key: 'DEL' });
    d.inputSync({ kind: 'text', text: '5550177' });
    expect(names()).toEqual(['Yusuf Usman']);
    d.inputSync({ kind: 'text', text: '9' });
    expect(texts(d)).toContain('No results');
    back(); // keyboard
    back(); // search
    expect(find(d, { text: 'Search contacts' })).toBeDefined();
    expect(names()).toEqual(['Hana Ito', 'Wen Xu', 'Yusuf Usman']);
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('stars a contact from its page; the Favourites tab lists starred contacts', async () => {
    await seed([{ name: 'Elena Costa', phone: '6175550100' }, { name: 'Felix Bauer', phone: '6175550101', starred: true }]);
    open();
    tap(d, { text: 'Favourites' });
    expect(names()).toEqual(['Felix Bauer']);
    tap(d, { text: 'Contacts' });
    tap(d, { text: 'Elena Costa' });
    tap(d, { contentDesc: 'Add to favourites' });
    expect(find(d, { contentDesc: 'Remove from favourites' })).toBeDefined();
    expect(sh(d, "content query --uri content://com.android.contacts/contacts --projection display_name:starred --where \"display_name = 'Elena Costa'\"")).toContain('starred=1');
    back();
    tap(d, { text: 'Favourites' });
    expect(names()).toEqual(['Elena Costa', 'Felix Bauer']);
    tap(d, { text: 'Felix Bauer' });
    tap(d, { contentDesc: 'Remove from favourites' });
    back();
    expect(names()).toEqual(['Elena Costa']);
  });

  it('shows empty states, and survives its contact being deleted underneath it', async () => {
    await seed([{ name: 'Tara Young', phone: '3035550100' }]);
    open();
    tap(d, { text: 'Tara Young' });
    await clearContacts(d);
    d.changed();
    expect(texts(d)).toContain('Contact not found');
    back();
    expect(texts(d)).toContain('No contacts yet');
    tap(d, { text: 'Favourites' });
    expect(texts(d)).toContain('No favourites yet');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('pre-fills a new contact from ContactsContract Insert extras', () => {
    sh(d, `am start -n ${PKG}/com.android.contacts.activities.ContactEditorActivity --es name 'Maria Rossi' --es phone 2065550100`);
    expect(get(d, { resourceId: 'toolbar_title' }).node.text).toBe('Create contact');
    expect(get(d, { resourceId: 'first_name' }).node.text).toBe('Maria');
    expect(get(d, { resourceId: 'last_name' }).node.text).toBe('Rossi');
    tap(d, { text: 'Save' });
    expect(phones()).toContain('display_name=Maria Rossi, number=2065550100');
  });
});
