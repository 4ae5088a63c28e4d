import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { BOOT_SNAPSHOT } from '../../../core/device/device.js';
import { device, elements, find, get, longPress, scroll, sh, tap, texts, typeInto } from '../../helpers/simdroid.js';

/** Files (DocumentsUI) driven through its UI, with the outcome read back through the shell. */
const d = device();
afterAll(() => d.close());

const PKG = 'com.google.android.documentsui';
const DL = '/sdcard/Download';

function open(): void {
  sh(d, `am start -n ${PKG}/com.android.documentsui.files.FilesActivity`);
}

function write(path: string, bytes: number): void {
  sh(d, `mkdir -p "${path.slice(0, path.lastIndexOf('/'))}" && echo -n ${'x'.repeat(bytes)} > "${path}"`);
}

const back = () => d.inputSync({ kind: 'key', key: 'BACK' });
const ls = (dir: string) => sh(d, `ls -1 "${dir}"`).split('\n').filter(Boolean).sort();
const title = (name: string) => ({ text: name, resourceId: 'android:id/title' });
const toolbarTitle = () => get(d, { resourceId: 'toolbar_title' }).node.text;
const lastCrumb = () => {
  const crumbs = elements(d).filter((e) => e.node.resourceId.endsWith(':id/breadcrumb_text'));
  return crumbs[crumbs.length - 1]!.node.text;
};
const rowNames = () => elements(d).filter((e) => e.node.resourceId === 'android:id/title').map((e) => e.node.text);

beforeEach(() => {
  d.loadSnapshotSync(BOOT_SNAPSHOT);
  write(`${DL}/report.pdf`, 1500);
  write(`${DL}/photo.jpg`, 120_000);
  write(`${DL}/notes.txt`, 300);
  // Other apps may keep folders in Documents at boot; these tests own it.
  sh(d, 'rm -rf /sdcard/Documents && mkdir -p /sdcard/Documents/Work /sdcard/Documents/Personal');
  open();
});

describe('Files browsing', () => {
  it('opens on Internal storage with the standard folders, and opens a folder with sizes', () => {
    expect(toolbarTitle()).toBe('Internal storage');
    expect(rowNames()).toEqual(expect.arrayContaining(['Alarms', 'DCIM', 'Documents', 'Download', 'Music', 'Pictures']));
    tap(d, title('Download'));
    expect(lastCrumb()).toBe('Download');
    expect(toolbarTitle()).toBe('Download');
    expect(rowNames()).toEqual(['notes.txt', 'photo.jpg', 'report.pdf']);
    expect(texts(d)).toEqual(expect.arrayContaining(['300 B', '120 kB', '1.50 kB']));
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('goes up with Back and the breadcrumb, and leaves the app from the root', () => {
    tap(d, title('Documents'));
    tap(d, title('Work'));
    expect(lastCrumb()).toBe('Work');
    back();
    expect(lastCrumb()).toBe('Documents');
    tap(d, title('Personal'));
    tap(d, { text: 'Internal storage', resourceId: 'breadcrumb_text' });
    expect(lastCrumb()).toBe('Internal storage');
    back();
    expect(d.wm.foreground().package).not.toBe(PKG);
  });

  it('shows "No items" for an empty folder and needs scrolling for a long one', () => {
    tap(d, title('Alarms'));
    expect(find(d, { text: 'No items' })).toBeDefined();
    for (let i = 0; i < 20; i++) write(`/sdcard/Music/track_${String(i).padStart(2, '0')}.mp3`, 100 + i);
    back();
    tap(d, title('Music'));
    expect(find(d, title('track_19.mp3'))).toBeUndefined();
    scroll(d, 'down');
    scroll(d, 'down');
    expect(find(d, title('track_19.mp3'))).toBeDefined();
  });

  it('survives its folder being removed from the shell', () => {
    tap(d, title('Documents'));
    tap(d, title('Work'));
    sh(d, 'rm -r /sdcard/Documents/Work');
    expect(lastCrumb()).toBe('Documents');
    expect(d.wm.state.crashes).toEqual([]);
  });
});

describe('Files selection and actions', () => {
  beforeEach(() => tap(d, title('Download')));

  it('selects with a long press, adds with taps, and clears with Done or Back', () => {
    longPress(d, title('report.pdf'));
    expect(toolbarTitle()).toBe('1 selected');
    const row = elements(d).find((e) => e.node.resourceId.endsWith(':id/item_root') && e.node.selected);
    expect(row?.node.checked).toBe(true);
    tap(d, title('notes.txt'));
    expect(toolbarTitle()).toBe('2 selected');
    tap(d, { contentDesc: 'Done' });
    expect(toolbarTitle()).toBe('Download');
    longPress(d, title('photo.jpg'));
    back();
    expect(toolbarTitle()).toBe('Download');
    expect(lastCrumb()).toBe('Download');
  });

  it('deletes after confirmation, and Cancel keeps the file', () => {
    longPress(d, title('report.pdf'));
    tap(d, { contentDesc: 'Delete' });
    expect(find(d, { text: 'Delete "report.pdf"?' })).toBeDefined();
    tap(d, { text: 'Cancel' });
    expect(ls(DL)).toContain('report.pdf');
    tap(d, { contentDesc: 'Delete' });
    tap(d, { text: 'OK' });
    expect(ls(DL)).toEqual(['notes.txt', 'photo.jpg']);
    expect(toolbarTitle()).toBe('Download');
  });

  it('words the confirmation for several files and Select all', () => {
    longPress(d, title('report.pdf'));
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Select all' });
    expect(toolbarTitle()).toBe('3 selected');
    tap(d, { contentDesc: 'Delete' });
    expect(find(d, { text: 'Delete 3 files?' })).toBeDefined();
    tap(d, { text: 'OK' });
    expect(ls(DL)).toEqual([]);
    expect(find(d, { text: 'No items' })).toBeDefined();
  });

  it('renames, and refuses a name that is taken', () => {
    longPress(d, title('notes.txt'));
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Rename' });
    expect(get(d, { resourceId: 'android:id/text1' }).node.text).toBe('notes.txt');
    for (let i = 0; i < 9; i++) d.inputSync({ kind: 'key', key: 'DEL' });
    d.inputSync({ kind: 'text', text: 'report.pdf' });
    tap(d, { text: 'OK' });
    expect(find(d, { text: 'A file with this name already exists.' })).toBeDefined();
    expect(ls(DL)).toEqual(['notes.txt', 'photo.jpg', 'report.pdf']);
    expect(sh(d, `stat -c %s ${DL}/report.pdf`).trim()).toBe('1500');
    for (let i = 0; i < 10; i++) d.inputSync({ kind: 'key', key: 'DEL' });
    d.inputSync({ kind: 'text', text: 'todo.txt' });
    tap(d, { text: 'OK' });
    expect(ls(DL)).toEqual(['photo.jpg', 'report.pdf', 'todo.txt']);
    expect(sh(d, `stat -c %s ${DL}/todo.txt`).trim()).toBe('300');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('moves through the destination picker, which only opens folders', () => {
    longPress(d, title('report.pdf'));
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Move to…' });
    expect(d.wm.foreground().activity).toBe('com.android.documentsui.picker.PickActivity');
    // Documents are greyed out, and moving into the folder it is already in is not offered.
    expect(get(d, title('notes.txt')).parent!.parent!.node.enabled).toBe(false);
    expect(get(d, { text: 'Move', resourceId: 'button1' }).node.enabled).toBe(false);
    tap(d, { text: 'Internal storage', resourceId: 'breadcrumb_text' });
    tap(d, title('Documents'));
    tap(d, title('Work'));
    tap(d, { text: 'Move', resourceId: 'button1' });
    expect(d.wm.foreground().activity).toBe('com.android.documentsui.files.FilesActivity');
    expect(ls(DL)).toEqual(['notes.txt', 'photo.jpg']);
    expect(ls('/sdcard/Documents/Work')).toEqual(['report.pdf']);
    expect(sh(d, 'stat -c %s /sdcard/Documents/Work/report.pdf').trim()).toBe('1500');
  });

  it('copies, keeping the original, and names a clash "name (1)"', () => {
    write('/sdcard/Documents/notes.txt', 10);
    longPress(d, title('notes.txt'));
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Copy to…' });
    back();
    expect(lastCrumb()).toBe('Internal storage');
    tap(d, title('Documents'));
    tap(d, { text: 'Copy', resourceId: 'button1' });
    expect(ls(DL)).toContain('notes.txt');
    expect(ls('/sdcard/Documents')).toEqual(['Personal', 'Work', 'notes (1).txt', 'notes.txt'].sort());
    expect(sh(d, "stat -c %s '/sdcard/Documents/notes (1).txt'").trim()).toBe('300');
  });

  it('cancels the picker without changing anything', () => {
    longPress(d, title('photo.jpg'));
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Move to…' });
    tap(d, { text: 'Cancel', resourceId: 'button2' });
    expect(ls(DL)).toEqual(['notes.txt', 'photo.jpg', 'report.pdf']);
    expect(d.wm.state.crashes).toEqual([]);
  });
});

describe('Files menus', () => {
  it('creates a folder and opens it; a taken name gets "(1)"', () => {
    tap(d, title('Documents'));
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'New folder' });
    typeInto(d, { resourceId: 'android:id/text1' }, 'Taxes');
    tap(d, { text: 'OK' });
    expect(lastCrumb()).toBe('Taxes');
    expect(sh(d, 'stat -c %F /sdcard/Documents/Taxes').trim()).toBe('directory');
    back();
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'New folder' });
    typeInto(d, { resourceId: 'android:id/text1' }, 'Work');
    tap(d, { text: 'OK' });
    expect(ls('/sdcard/Documents')).toEqual(['Personal', 'Taxes', 'Work', 'Work (1)'].sort());
  });

  it('sorts by size, keeping folders first, and remembers it', () => {
    write(`${DL}/old/keep.txt`, 5);
    tap(d, title('Download'));
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Sort by' });
    tap(d, { text: 'Size (largest first)' });
    expect(rowNames()).toEqual(['old', 'photo.jpg', 'report.pdf', 'notes.txt']);
    back();
    tap(d, title('Download'));
    expect(rowNames()).toEqual(['old', 'photo.jpg', 'report.pdf', 'notes.txt']);
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Sort by' });
    expect(get(d, { text: 'Size (largest first)' }).node.checked).toBe(true);
  });

  it('switches between grid and list view', () => {
    tap(d, title('Download'));
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Grid view' });
    const cells = elements(d).filter((e) => e.node.resourceId.endsWith(':id/item_root'));
    expect(cells).toHaveLength(3);
    // Two cards share a row.
    expect(cells[0]!.node.bounds.top).toBe(cells[1]!.node.bounds.top);
    tap(d, { contentDesc: 'More options' });
    expect(find(d, { text: 'List view' })).toBeDefined();
    tap(d, { text: 'List view' });
    const rows = elements(d).filter((e) => e.node.resourceId.endsWith(':id/item_root'));
    expect(rows[0]!.node.bounds.top).toBeLessThan(rows[1]!.node.bounds.top);
  });

  it('searches the whole root, sub-folders included', () => {
    write('/sdcard/Documents/Work/quarterly_report.txt', 42);
    tap(d, { contentDesc: 'Search' });
    d.inputSync({ kind: 'text', text: 'report' });
    expect(rowNames()).toEqual(['quarterly_report.txt', 'report.pdf']);
    d.inputSync({ kind: 'text', text: 'zzz' });
    expect(find(d, { text: 'No matches in Internal storage' })).toBeDefined();
    back();
    back();
    expect(toolbarTitle()).toBe('Internal storage');
  });

  it('opens the Downloads and Recent roots from the drawer', async () => {
    tap(d, { contentDesc: 'Show roots' });
    tap(d, { text: 'Downloads' });
    expect(toolbarTitle()).toBe('Downloads');
    expect(rowNames()).toEqual(['notes.txt', 'photo.jpg', 'report.pdf']);
    d.inputSync({ kind: 'key', key: 'HOME' });
    await d.idle(60_000);
    write('/sdcard/Documents/latest.txt', 9);
    open();
    tap(d, { contentDesc: 'Show roots' });
    tap(d, { text: 'Recent' });
    expect(toolbarTitle()).toBe('Recent');
    expect(rowNames()[0]).toBe('latest.txt');
    expect(d.wm.state.crashes).toEqual([]);
  });
});
