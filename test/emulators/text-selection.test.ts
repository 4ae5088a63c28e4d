import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { boundsCenter } from '../../core/a11y/ui-tree.js';
import { device, find, get, sh, tap, typeInto } from '../helpers/simdroid.js';
import type { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { textWidth } from '../../emulators/simdroid/view/text-metrics.js';

/**
 * Text selection and the clipboard as Android 13's TextView does them: a long press selects the word
 * under the finger and opens the floating toolbar (Cut, Copy, Paste, Select all), typing replaces the
 * selection, Paste inserts the clipboard, and the clipboard is the one Clipper's broadcasts read and write.
 */
const d = device();
afterAll(() => d.close());

const TOOLBAR = { resourceId: 'android:id/floating_toolbar_menu_item_text' };

function toolbar(dev: SimDroid): string[] {
  return dev.uiTreeSync().roots.flatMap(function walk(n): string[] {
    return [...(n.resourceId === TOOLBAR.resourceId ? [n.text] : []), ...n.children.flatMap(walk)];
  });
}

/** A long press on character `at` of a form field's text (the field's 16 dp start padding, 16 sp text). */
function longPressAt(dev: SimDroid, sel: Parameters<typeof get>[1], at: number): void {
  const el = get(dev, sel);
  const b = el.node.bounds;
  const scale = dev.screen.density / 160;
  const dp = 16 + textWidth(el.node.text.slice(0, at), 16) + 2;
  dev.inputSync({ kind: 'long_press', x: Math.round(b.left + dp * scale), y: boundsCenter(b).y, durationMs: 1000 });
}

function clipperGet(dev: SimDroid): string {
  return sh(dev, 'am broadcast -a clipper.get');
}

/** The Contacts editor's First name field, holding `text`. */
function editorWith(text: string): void {
  sh(d, 'am start -n com.google.android.contacts/com.android.contacts.activities.ContactEditorActivity');
  if (text) typeInto(d, { text: 'First name' }, text);
}

beforeEach(() => {
  sh(d, 'am force-stop com.google.android.contacts');
  d.wm.state.clipboard = null;
});

describe('long press on a text field', () => {
  it('selects the word under the finger and offers Cut, Copy, Select all (no Paste with an empty clipboard)', () => {
    editorWith('alpha beta gamma');
    longPressAt(d, { text: 'alpha beta gamma' }, 7);
    expect(toolbar(d)).toEqual(['Cut', 'Copy', 'Select all']);
    tap(d, { ...TOOLBAR, text: 'Copy' });
    expect(d.wm.state.clipboard).toBe('beta');
    expect(clipperGet(d)).toContain('data="beta"');
    expect(toolbar(d)).toEqual([]);
  });

  it('past the end of the text puts the caret there and offers Paste and Select all (insertion mode)', () => {
    sh(d, "am broadcast -a clipper.set -e text 'x'");
    editorWith('short');
    const b = get(d, { text: 'short' }).node.bounds;
    d.inputSync({ kind: 'long_press', x: b.right - 20, y: boundsCenter(b).y, durationMs: 1000 });
    expect(toolbar(d)).toEqual(['Paste', 'Select all']);
    tap(d, { ...TOOLBAR, text: 'Paste' });
    expect(find(d, { text: 'shortx' })).toBeDefined();
  });

  it('on an empty field offers Paste when the clipboard holds text (set through Clipper), and pastes it', () => {
    sh(d, "am broadcast -a clipper.set -e text 'From the clipboard'");
    editorWith('');
    longPressAt(d, { text: 'First name' }, 3);
    expect(toolbar(d)).toEqual(['Paste']);
    tap(d, { ...TOOLBAR, text: 'Paste' });
    expect(find(d, { text: 'From the clipboard' })?.node.className).toBe('android.widget.EditText');
  });

  it('Select all then typing replaces everything; Cut empties the field into the clipboard', () => {
    editorWith('one two');
    longPressAt(d, { text: 'one two' }, 1);
    tap(d, { ...TOOLBAR, text: 'Select all' });
    expect(toolbar(d)).toEqual(['Cut', 'Copy']);
    d.inputSync({ kind: 'text', text: 'three' });
    expect(find(d, { text: 'three' })).toBeDefined();
    longPressAt(d, { text: 'three' }, 0);
    tap(d, { ...TOOLBAR, text: 'Cut' });
    expect(d.wm.state.clipboard).toBe('three');
    expect(find(d, { text: 'First name' })).toBeDefined();
  });

  it('pasting over a selected word keeps the text around it, and the caret stays after the paste', () => {
    sh(d, "am broadcast -a clipper.set -e text 'big'");
    editorWith('a small dog');
    longPressAt(d, { text: 'a small dog' }, 3);
    expect(toolbar(d)).toEqual(['Cut', 'Copy', 'Paste', 'Select all']);
    tap(d, { ...TOOLBAR, text: 'Paste' });
    d.inputSync({ kind: 'text', text: 'gest' });
    expect(find(d, { text: 'a biggest dog' })).toBeDefined();
  });

  it('a tap elsewhere or Back ends the selection; the toolbar is gone and typing appends', () => {
    editorWith('keep this');
    longPressAt(d, { text: 'keep this' }, 1);
    expect(toolbar(d).length).toBeGreaterThan(0);
    d.inputSync({ kind: 'key', key: 'BACK' }); // the keyboard first
    d.inputSync({ kind: 'key', key: 'BACK' }); // then the selection
    expect(toolbar(d)).toEqual([]);
    expect(d.wm.foreground().activity).toContain('ContactEditorActivity');
    tap(d, { text: 'keep this' });
    d.inputSync({ kind: 'text', text: '!' });
    expect(find(d, { text: 'keep this!' })).toBeDefined();
  });

  it('input keycombination Ctrl+A, Ctrl+C and Ctrl+V act on the focused field', () => {
    editorWith('copy me');
    sh(d, 'input keycombination KEYCODE_CTRL_LEFT KEYCODE_A');
    sh(d, 'input keycombination KEYCODE_CTRL_LEFT KEYCODE_C');
    expect(d.wm.state.clipboard).toBe('copy me');
    sh(d, 'input keyevent KEYCODE_MOVE_END');
    sh(d, 'input keycombination KEYCODE_CTRL_LEFT KEYCODE_V');
    expect(find(d, { text: 'copy mecopy me' })).toBeDefined();
  });

  it('MOVE_HOME puts the caret at the start of the line: typing goes in front', () => {
    editorWith('world');
    sh(d, 'input keyevent KEYCODE_MOVE_HOME');
    d.inputSync({ kind: 'text', text: 'hello ' });
    expect(find(d, { text: 'hello world' })).toBeDefined();
  });
});
