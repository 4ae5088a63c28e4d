import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { BOOT_SNAPSHOT } from '../../../core/device/device.js';
import { device, find, get, sh, tap } from '../../helpers/simdroid.js';

/** The Phone app driven through its UI; the call log read back over the shell as on an emulator. */
const d = device();
afterAll(() => d.close());

const PKG = 'com.google.android.dialer';
const CONTACTS = '/data/data/com.android.providers.contacts/databases/contacts2.db';
const CALLLOG = '/data/data/com.android.providers.contacts/databases/calllog.db';

beforeEach(() => {
  d.loadSnapshotSync(BOOT_SNAPSHOT);
  sh(d, `am start -n ${PKG}/${PKG}.extensions.GoogleDialtactsActivity`);
});

describe('Phone', () => {
  it('opens GoogleDialtactsActivity with its tabs and the key pad button', () => {
    expect(d.wm.foreground()).toMatchObject({ package: PKG, activity: `${PKG}.extensions.GoogleDialtactsActivity` });
    for (const t of ['Favorites', 'Recents', 'Contacts']) expect(find(d, { text: t })).toBeDefined();
    expect(find(d, { contentDesc: 'key pad' })).toBeDefined();
  });

  it('lists the Contacts provider under Contacts', () => {
    tap(d, { text: 'Contacts' });
    const names = sh(d, `sqlite3 ${CONTACTS} "SELECT display_name FROM raw_contacts WHERE deleted = 0 ORDER BY display_name COLLATE NOCASE"`).trim().split('\n');
    expect(names.length).toBeGreaterThan(1);
    for (const n of names.slice(0, 3)) expect(find(d, { text: n })).toBeDefined();
    // Favorites lists the starred contacts only.
    const starred = (starredFlag: 0 | 1) => sh(d, `sqlite3 ${CONTACTS} "SELECT display_name FROM raw_contacts WHERE deleted = 0 AND starred = ${starredFlag}"`).trim().split('\n').filter(Boolean);
    tap(d, { text: 'Favorites' });
    expect(starred(1).length).toBeGreaterThan(0);
    for (const n of starred(1)) expect(find(d, { text: n })).toBeDefined();
    for (const n of starred(0)) expect(find(d, { text: n })).toBeUndefined();
  });

  it('dials a number typed on the key pad and logs an outgoing call when it ends', async () => {
    tap(d, { contentDesc: 'key pad' });
    for (const k of '5551234') tap(d, { contentDesc: k });
    expect(get(d, { resourceId: `${PKG}:id/digits` }).node.text).toBe('5551234');
    tap(d, { contentDesc: 'dial' });
    expect(d.wm.foreground().activity).toBe('com.android.incallui.InCallActivity');
    await d.idle(4000);
    tap(d, { contentDesc: 'End call' });
    const row = sh(d, `sqlite3 ${CALLLOG} "SELECT number, type, duration >= 4 FROM calls"`).trim();
    expect(row).toBe('5551234|2|1');
    tap(d, { text: 'Recents' });
    expect(find(d, { text: '5551234' })).toBeDefined();
  });

});
