import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHost } from '../../../emulators/simdroid/host.js';
import { connectedAdb, type AdbCli } from './helpers.js';

/**
 * What AndroidWorld's task code reads, writes and sends beyond the commands of
 * androidworld-commands.test.ts, through Debian's real adb: the apps' data as AndroidWorld's APKs
 * keep it (pulled and read with SQLite as sqlite_utils does), `adb emu gsm`, Clipper's broadcasts,
 * and the shell's substitutions and loops — with exit codes (android_env aborts on non-zero).
 */
let host: EmulatorHost;
let adb: AdbCli;
let sh: (...args: string[]) => ReturnType<AdbCli['run']>;
let scratch: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ host, adb, sh, scratch, close } = await connectedAdb('awb-aw-data-'));
});
afterAll(() => close());

/** A table's column names and declared types, from a database pulled as sqlite_utils pulls it. */
async function columns(remote: string, table: string): Promise<string[]> {
  const local = join(scratch, remote.split('/').pop()!);
  await adb.ok(['-s', host.address, 'pull', remote, local]);
  const db = new Database(local, { readonly: true });
  try {
    return (db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string; type: string }>).map((c) => `${c.name} ${c.type}`);
  } finally {
    db.close();
  }
}

/** The centre of the first node whose attribute matches, from `uiautomator dump /dev/tty`. */
async function centreOf(attr: string): Promise<[number, number]> {
  const xml = (await sh('uiautomator dump /dev/tty')).out;
  const node = xml.split('<node ').find((n) => n.includes(attr));
  const m = node && /bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"/.exec(node);
  if (!m) throw new Error(`no node with ${attr} on screen`);
  return [(Number(m[1]) + Number(m[3])) >> 1, (Number(m[2]) + Number(m[4])) >> 1];
}

describe('app data as AndroidWorld reads it', () => {
  it("Broccoli's recipes and Tasks' tasks have AndroidWorld's columns, types and order", async () => {
    expect(await columns('/data/data/com.flauschcode.broccoli/databases/broccoli', 'recipes')).toEqual([
      'recipeId INTEGER', 'title TEXT', 'imageName TEXT', 'description TEXT', 'servings TEXT', 'preparationTime TEXT', 'source TEXT',
      'ingredients TEXT', 'directions TEXT', 'favorite INTEGER',
    ]);
    const tasks = await columns('/data/data/org.tasks/databases/database', 'tasks');
    expect(tasks.slice(-4)).toEqual(['collapsed INTEGER', 'parent INTEGER', 'order INTEGER', 'read_only INTEGER']);
    // insert_into_db's statement shape: every field quoted by name, `order` among them.
    const r = await sh(`sqlite3 /data/data/org.tasks/databases/database "INSERT INTO tasks (\\"title\\", \\"importance\\", \\"dueDate\\", \\"hideUntil\\", \\"created\\", \\"modified\\", \\"completed\\", \\"deleted\\", \\"estimatedSeconds\\", \\"elapsedSeconds\\", \\"timerStart\\", \\"notificationFlags\\", \\"lastNotified\\", \\"collapsed\\", \\"parent\\", \\"order\\") VALUES ('Buy milk', 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL); SELECT title FROM tasks WHERE title = 'Buy milk'"`);
    expect(r).toMatchObject({ code: 0, out: 'Buy milk\n' });
  });

  it("Audio Recorder opens from the APK's WelcomeActivity and records into its Android/data folder", async () => {
    const dir = '/storage/emulated/0/Android/data/com.dimowner.audiorecorder/files/Music/records';
    expect(await sh(`ls ${dir} -ll -au`)).toMatchObject({ code: 0 });
    const start = await sh('am start -n com.dimowner.audiorecorder/com.dimowner.audiorecorder.app.welcome.WelcomeActivity');
    expect(start.code).toBe(0);
    expect((await sh('dumpsys window | grep mCurrentFocus')).out).toContain('com.dimowner.audiorecorder/com.dimowner.audiorecorder.app.main.MainActivity');
    await sh('input tap', ...(await centreOf('content-desc="Record"')).map(String));
    await sh('input tap', ...(await centreOf('content-desc="Stop recording"')).map(String));
    expect((await sh(`ls ${dir}`)).out).toMatch(/^Record-1\.m4a\n$/);
  });

  it("the stopwatch, running, shows content descriptions Pause and Lap (AndroidWorld's check)", async () => {
    expect((await sh('am start -n com.google.android.deskclock/com.android.deskclock.DeskClock')).code).toBe(0);
    await sh('input tap', ...(await centreOf('text="Stopwatch"')).map(String));
    await sh('input tap', ...(await centreOf('content-desc="Start"')).map(String));
    const xml = (await sh('uiautomator dump /dev/tty')).out;
    expect(xml).toContain('content-desc="Pause"');
    expect(xml).toContain('content-desc="Lap"');
  });
});

describe('the console: gsm (adb_utils.call_emulator)', () => {
  it('rings, answers, holds and ends calls with the console\'s replies; ended calls land in the call log', async () => {
    const emu = (...args: string[]) => adb.run(['-s', host.serial, 'emu', ...args]);
    const log = () => sh('content query --uri content://call_log/calls --projection number:type:duration');
    await sh('content delete --uri content://call_log/calls');
    expect(await emu('gsm', 'call', '5551234')).toMatchObject({ out: 'OK\r\n' });
    expect((await emu('gsm', 'list')).out).toBe('inbound from 5551234    : incoming\r\nOK\r\n');
    expect((await emu('gsm', 'call', '555-1234')).out).toBe('KO: bad phone number format, use digits, # and + only\r\n');
    expect((await emu('gsm', 'call', '5551234')).out).toBe('KO: could not add inbound call\r\n');
    expect((await emu('gsm', 'cancel', '5551234')).out).toBe('OK\r\n');
    expect((await log()).out).toBe('Row: 0 number=5551234, type=3, duration=0\n');
    // Answered (accept), held, ended: an incoming call with the seconds it was active.
    expect((await emu('gsm', 'call', '+15550100')).out).toBe('OK\r\n');
    expect((await emu('gsm', 'accept', '+15550100')).out).toBe('OK\r\n');
    await sh('sleep 3');
    expect((await emu('gsm', 'hold', '+15550100')).out).toBe('OK\r\n');
    expect((await emu('gsm', 'list')).out).toBe('inbound from +15550100  : held\r\nOK\r\n');
    expect((await emu('gsm', 'busy', '+15550100')).out).toBe("KO: no current outbound call to number '+15550100' (call 0x1)\r\n");
    expect((await emu('gsm', 'cancel', '+15550100')).out).toBe('OK\r\n');
    expect((await emu('gsm', 'accept', '+15550100')).out).toBe("KO: no current call to/from number '+15550100'\r\n");
    expect((await emu('gsm', 'cancel', '+15550100')).out).toBe('KO: could not cancel this number\r\n');
    // Both began at the same virtual instant (the console takes no device time): compare as a set.
    expect((await log()).out.split('\n').map((l) => l.replace(/^Row: \d+ /, '')).sort()).toEqual(['', 'number=+15550100, type=1, duration=3', 'number=5551234, type=3, duration=0']);
  });
});

describe('Clipper (adb_utils.set_clipboard_contents / get_clipboard_contents)', () => {
  it('sets and gets the clipboard through broadcasts, answering as Clipper does; the text pastes into a field', async () => {
    expect((await sh('am start -n ca.zgrs.clipper/ca.zgrs.clipper.Main')).code).toBe(0);
    expect(await sh('am broadcast -a clipper.get')).toMatchObject({ code: 0, out: 'Broadcasting: Intent { act=clipper.get flg=0x400000 }\nBroadcast completed: result=0, data=""\n' });
    // AndroidWorld escapes the text for the shell (_adb_text_format) and android_env joins the words with spaces.
    const set = await sh('am', 'broadcast', '-a', 'clipper.set', '-e', 'text', 'Meet\\ at\\ 5\\ \\(room\\ 2\\)');
    expect(set).toMatchObject({ code: 0, out: 'Broadcasting: Intent { act=clipper.set flg=0x400000 (has extras) }\nBroadcast completed: result=-1, data="Text is copied into clipboard."\n' });
    expect((await sh('am broadcast -a clipper.get')).out).toBe('Broadcasting: Intent { act=clipper.get flg=0x400000 }\nBroadcast completed: result=-1, data="Meet at 5 (room 2)"\n');
    // am prints the data as it is, inner quotes included.
    expect((await sh('am broadcast -a clipper.set')).out).toContain('result=0, data="No text is provided. Use -e text "text to be pasted""');
    // Paste (Ctrl+V) into the contact editor's name field.
    await sh('am start -a android.intent.action.INSERT -t vnd.android.cursor.dir/contact');
    await sh('input tap', ...(await centreOf('class="android.widget.EditText"')).map(String));
    expect(await sh('input keycombination 113 50')).toMatchObject({ code: 0 });
    expect((await sh('uiautomator dump /dev/tty')).out).toContain('text="Meet at 5 (room 2)"');
  });
});

describe('shell: substitutions, $? and loops (mksh)', () => {
  it('expands $(…), `…` and $?, splits unquoted results into words, and loops with for/while/until', async () => {
    expect(await sh('false; echo $?; true; echo "$?"')).toMatchObject({ code: 0, out: '1\n0\n' });
    expect(await sh('ls /nope 2>/dev/null; echo status=$?')).toMatchObject({ code: 0, out: 'status=1\n' });
    expect(await sh('mkdir -p /sdcard/loop && echo a > /sdcard/loop/x.txt && echo bb > /sdcard/loop/y.txt')).toMatchObject({ code: 0 });
    expect(await sh('for f in $(ls /sdcard/loop); do echo "$f: `cat /sdcard/loop/$f`"; done')).toMatchObject({ code: 0, out: 'x.txt: a\ny.txt: bb\n' });
    expect(await sh('for f in /sdcard/loop/*.txt; do wc -c < $f; done')).toMatchObject({ code: 0, out: '2\n3\n' });
    expect(await sh('n="$(echo one two)"; for w in $n; do echo [$w]; done; for w in "$n"; do echo [$w]; done')).toMatchObject({ out: '[one]\n[two]\n[one two]\n' });
    expect(await sh('i=; while [ "$i" != xxx ]; do i=x$i; done; echo $i; until [ -z "$i" ]; do i=; done; echo "[$i]"')).toMatchObject({ code: 0, out: 'xxx\n[]\n' });
    // The status of a loop is its body's last; a loop that never ran exits 0; a failing body makes it non-zero.
    expect((await sh('for f in; do false; done')).code).toBe(0);
    expect((await sh('for f in a; do false; done')).code).toBe(1);
    expect(await sh('echo $(echo unterminated')).toMatchObject({ code: 1 });
    expect(await sh('while true; do true; done')).toMatchObject({ code: 1, err: '/system/bin/sh: loop ran over 10000 rounds\n' });
  });
});
