import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundsCenter, findFirst, type UiSelector } from '../../../core/a11y/ui-tree.js';
import { adbScreen, connectedAdb, type RunResult } from './helpers.js';

/**
 * What AndroidWorld's templates need an agent to do through the screen, over the real adb and read
 * back as an agent reads it (`uiautomator dump`): text selection and the clipboard (a long press —
 * `input swipe` held in place, as AndroidWorld's long_press sends it — opens the floating toolbar,
 * and the clipboard is the one AndroidWorld reads and writes with Clipper's broadcasts), and Simple
 * Calendar's repetition (stored as calendar_utils and AndroidWorld's checker read it).
 */
let sh: (...args: string[]) => Promise<RunResult>;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ sh, close } = await connectedAdb('awb-clip-'));
});
afterAll(() => close());

// sh is set in beforeAll: the helpers are looked up when called.
const screen = () => adbScreen(sh).screen();
const center = (sel: UiSelector) => adbScreen(sh).center(sel);
const tap = (sel: UiSelector) => adbScreen(sh).tap(sel);

const TOOLBAR = 'android:id/floating_toolbar_menu_item_text';

describe('the floating text toolbar over adb', () => {
  it('long press selects a word, Copy puts it on the clipboard Clipper reads; Paste puts a Clipper-set text into a field', async () => {
    await sh('am start -n com.google.android.contacts/com.android.contacts.activities.ContactEditorActivity');
    await tap({ text: 'First name' });
    await sh('input text Ada');
    const field = findFirst(await screen(), { text: 'Ada' })!;
    // Held in place for a second: a long press on the text's first letters.
    const y = boundsCenter(field.node.bounds).y;
    const x = field.node.bounds.left + 60;
    expect((await sh(`input swipe ${x} ${y} ${x} ${y} 1000`)).code).toBe(0);
    const items = (await screen()).filter((e) => e.node.resourceId === TOOLBAR).map((e) => e.node.text);
    // The one word is the whole text: nothing is left for Select all.
    expect(items).toEqual(['Cut', 'Copy']);
    await tap({ resourceId: TOOLBAR, text: 'Copy' });
    expect((await sh('am broadcast -a clipper.get')).out).toContain('data="Ada"');

    expect((await sh("am broadcast -a clipper.set -e text 'Lovelace'")).code).toBe(0);
    const last = await center({ text: 'Last name' });
    await sh(`input swipe ${last.x} ${last.y} ${last.x} ${last.y} 1000`);
    await tap({ resourceId: TOOLBAR, text: 'Paste' });
    const now = await screen();
    expect(findFirst(now, { text: 'Lovelace' })?.node.className).toBe('android.widget.EditText');
    expect(now.some((e) => e.node.resourceId === TOOLBAR)).toBe(false);
  });
});

describe("Simple Calendar's repetition over adb", () => {
  it('a weekly event made through the editor is stored with interval 604800 and the start weekday\'s bit', async () => {
    const pkg = 'com.simplemobiletools.calendar.pro';
    await sh(`sqlite3 /data/data/${pkg}/databases/events.db "DELETE FROM events"`);
    await sh(`am start -n ${pkg}/${pkg}.activities.MainActivity`);
    await tap({ contentDesc: 'New event' });
    await tap({ resourceId: `${pkg}:id/event_title` });
    await sh('input text Chess%snight');
    await sh('input keyevent KEYCODE_BACK');
    await tap({ resourceId: `${pkg}:id/event_repetition` });
    await tap({ text: 'Weekly', className: 'android.widget.RadioButton' });
    const dump = await screen();
    expect(findFirst(dump, { resourceId: `${pkg}:id/event_repetition_rule` })?.node.text).toBe('Sun');
    expect(findFirst(dump, { resourceId: `${pkg}:id/event_repetition_limit` })?.node.text).toBe('Forever');
    await tap({ contentDesc: 'Save' });
    const row = await sh(`sqlite3 /data/data/${pkg}/databases/events.db "SELECT title, repeat_interval, repeat_rule, repeat_limit FROM events"`);
    expect(row.out.trim()).toBe('Chess night|604800|64|0');
  });
});
