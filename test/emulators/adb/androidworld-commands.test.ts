import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHost } from '../../../emulators/simdroid/host.js';
import { connectedAdb, type AdbCli } from './helpers.js';

/**
 * The adb commands AndroidWorld's adb_utils / file_utils / datetime_utils send (as android_env
 * does: `adb shell` with the words joined by spaces), through Debian's real adb, with their exit
 * codes: android_env aborts a task on any non-zero exit.
 */
let host: EmulatorHost;
let adb: AdbCli;
let sh: (...args: string[]) => ReturnType<AdbCli['run']>;
let scratch: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ host, adb, sh, scratch, close } = await connectedAdb('awb-aw-db-'));
});
afterAll(() => close());

/** file_utils.check_file_exists' script, verbatim in shape. */
const exists = (test: string, path: string) => `
  if [ ${test} "${path}" ]; then
      echo "Exists"
  else
      echo "Does not exist"
  fi
  `;

describe('shell grammar (file_utils)', () => {
  it('runs if/then/else/fi with [ -d/-f/-e ], !, and &&/|| with mksh exit codes', async () => {
    await sh('mkdir', '-p', '/sdcard/aw/sub', '&&', 'echo', 'one', '>', '/sdcard/aw/a.txt', '&&', 'echo', 'two', '>', '/sdcard/aw/b.txt');
    expect(await sh(exists('-d', '/sdcard/aw'))).toMatchObject({ out: 'Exists\n', code: 0 });
    expect(await sh(exists('-f', '/sdcard/aw'))).toMatchObject({ out: 'Does not exist\n', code: 0 });
    expect(await sh(exists('-e', '/sdcard/aw/a.txt'))).toMatchObject({ out: 'Exists\n', code: 0 });
    expect(await sh('if [ ! -d /sdcard/nope ]; then echo absent; fi')).toMatchObject({ out: 'absent\n', code: 0 });
    expect(await sh('if false; then echo x; fi')).toMatchObject({ out: '', code: 0 });
    expect(await sh('[ -f /sdcard/nope ] && echo y')).toMatchObject({ out: '', code: 1 });
    expect(await sh('false || [ -d /sdcard/aw ] && echo z; ! true')).toMatchObject({ out: 'z\n', code: 1 });
    expect(await sh('[ -d /sdcard/aw')).toMatchObject({ code: 2, err: '[: missing ]\n' });
    expect((await sh('if true; then echo x')).code).toBe(1);
  });

  it('globs unquoted patterns, lists as toybox -ll, finds with -o/-mindepth/-delete', async () => {
    expect((await sh('ls', '/sdcard/aw/*.txt')).out).toBe('/sdcard/aw/a.txt\n/sdcard/aw/b.txt\n');
    expect((await sh("echo '/sdcard/aw/*'")).out).toBe('/sdcard/aw/*\n');
    // file_utils.get_file_list_with_metadata: `ls DIR -ll -au`, 9 fields, ISO time with ns and zone.
    const ls = await sh('ls /sdcard/aw -ll -au');
    expect(ls.code).toBe(0);
    const a = ls.out.split('\n').find((l) => l.endsWith(' a.txt'))!;
    expect(a.split(/\s+/)).toEqual(['-rw-rw----', '1', 'u0_a100', 'media_rw', '4', '2023-10-15', '15:34:00.000000000', '+0000', 'a.txt']);
    // check_file_or_folder_exists: directories too, spelled from the operand.
    expect((await sh('find', '/sdcard/aw', '-type', 'f', '-o', '-type', 'd')).out).toBe('/sdcard/aw\n/sdcard/aw/a.txt\n/sdcard/aw/b.txt\n/sdcard/aw/sub\n');
    expect((await sh('find /sdcard/aw -mindepth 1 -maxdepth 1 -type d')).out).toBe('/sdcard/aw/sub\n');
    expect(await sh('find /sdcard/aw -name "b.*" -delete')).toMatchObject({ code: 0, out: '' });
    expect(await sh('find /sdcard/aw -mindepth 1 -bogus')).toMatchObject({ code: 1, err: "find: bad arg '-bogus'\n" });
  });

  it('restores a snapshot as app_snapshot does: rm -r dir/*, cp -a src/. dst/, restorecon, chmod', async () => {
    await sh('mkdir -p /sdcard/aw/snap/databases && echo s > /sdcard/aw/snap/databases/x.db && echo old > /sdcard/aw/dst_old.txt');
    expect((await sh('mkdir -p /sdcard/aw/dst && echo old > /sdcard/aw/dst/old.txt && rm -r /sdcard/aw/dst/* && ls /sdcard/aw/dst')).code).toBe(0);
    expect((await sh('cp', '-a', '/sdcard/aw/snap/.', '/sdcard/aw/dst/')).code).toBe(0);
    expect((await sh('find /sdcard/aw/dst')).out).toBe('/sdcard/aw/dst\n/sdcard/aw/dst/databases\n/sdcard/aw/dst/databases/x.db\n');
    expect((await sh('restorecon', '-RD', '/sdcard/aw/dst')).code).toBe(0);
    expect((await sh('chmod', '777', '-R', '/sdcard/aw/dst')).code).toBe(0);
    // An app's live database copies as a database.
    const copy = await sh('mkdir -p /data/local/tmp/snap && cp -a /data/data/com.android.providers.contacts/. /data/local/tmp/snap/ && sqlite3 /data/local/tmp/snap/databases/contacts2.db "select count(*) > 0 from raw_contacts"');
    expect(copy).toMatchObject({ code: 0, out: '1\n' });
    expect(await sh('chmod 777 /sdcard/aw/none')).toMatchObject({ code: 1, err: 'chmod: /sdcard/aw/none: No such file or directory\n' });
  });
});

describe('time (datetime_utils)', () => {
  it('sets the clock with date MMDDhhmmYY.ss and the zone with service call alarm 3, and the status bar follows', async () => {
    expect(await sh('service', 'call', 'alarm', '3', 's16', 'UTC')).toMatchObject({ code: 0, out: "Result: Parcel(00000000    '....')\n" });
    expect(await sh('date', '1017093023.07')).toMatchObject({ code: 0, out: 'Tue Oct 17 09:30:07 UTC 2023\n' });
    expect((await sh('date')).out).toBe('Tue Oct 17 09:30:07 UTC 2023\n');
    expect((await sh('date +%s')).out).toBe(`${Date.UTC(2023, 9, 17, 9, 30, 7) / 1000}\n`);
    expect((await sh('uiautomator dump /dev/tty')).out).toContain('text="9:30"');
    expect(await sh('date -s "2023-10-15 15:34:00"')).toMatchObject({ code: 0, out: 'Sun Oct 15 15:34:00 UTC 2023\n' });
    expect(await sh('date -d @86400 -u')).toMatchObject({ code: 0, out: 'Fri Jan  2 00:00:00 UTC 1970\n' });
    expect(await sh('date 13451200')).toMatchObject({ code: 1, err: 'date: bad date 13451200\n' });
    // A zone moves local time (date, ls) but not the instant.
    await sh('service call alarm 3 s16 Europe/Paris');
    expect((await sh('date; getprop persist.sys.timezone')).out).toBe('Sun Oct 15 17:34:00 CEST 2023\nEurope/Paris\n');
    expect((await sh('service call alarm 3 s16 UTC && date +%s')).out).toContain(`${Date.UTC(2023, 9, 15, 15, 34) / 1000}\n`);
    expect((await sh('service call alarm 99')).code).toBe(1);
  });
});

describe('activity manager, dumpsys, pm and content (adb_utils, android_env)', () => {
  it('starts with -W, lists the visible task as android_env parses it, and removes recents by id', async () => {
    const w = await sh('am', 'start', '', '-W', '-n', 'com.android.settings/.Settings');
    expect(w).toMatchObject({ code: 0, out: 'Starting: Intent { cmp=com.android.settings/.Settings }\nStatus: ok\nLaunchState: COLD\nActivity: com.android.settings/.Settings\nTotalTime: 0\nWaitTime: 0\nComplete\n' });
    const visible = await sh('am', 'stack', 'list', '|', 'grep', '-E', 'visible=true');
    expect(visible.out).toMatch(/^ {2}taskId=\d+: com\.android\.settings\/com\.android\.settings\.Settings .*visible=true topActivity=ComponentInfo\{com\.android\.settings\/com\.android\.settings\.Settings\}\n$/);
    // adb_utils.close_recents: every id= in the dump goes to `am stack remove`, which must not fail.
    const ids = [...(await sh('dumpsys activity recents')).out.matchAll(/id=(\d+)/g)].map((m) => m[1]!);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) expect((await sh('am', 'stack', 'remove', id)).code).toBe(0);
    expect((await sh('dumpsys activity recents')).out).not.toContain('Recent #');
  });

  it('resolves implicit intents with extras to SimDroid apps, and refuses what none answers', async () => {
    // contacts_utils.add_contact
    const insert = await sh('am start -a android.intent.action.INSERT -t vnd.android.cursor.dir/contact -e name "Ada Lovelace" -e phone 5551234');
    expect(insert).toMatchObject({ code: 0, out: 'Starting: Intent { act=android.intent.action.INSERT typ=vnd.android.cursor.dir/contact (has extras) }\n' });
    const editor = (await sh('uiautomator dump /dev/tty')).out;
    for (const v of ['Ada', 'Lovelace', '5551234']) expect(editor).toContain(`text="${v}"`);
    // actuation's clear-field: Ctrl+A (113 29) then DEL empties the focused field.
    const first = /text="Ada" resource-id="[^"]*first_name"[^>]*bounds="\[(\d+),(\d+)\]/.exec(editor)!;
    await sh(`input tap ${Number(first[1]) + 20} ${Number(first[2]) + 20}`);
    expect((await sh('input', 'keycombination', '113', '29', '&&', 'input', 'keyevent', '67')).code).toBe(0);
    expect((await sh('uiautomator dump /dev/tty')).out).toMatch(/text="(First name)?" resource-id="[^"]*first_name"/);
    // tools.py: SENDTO sms: with the body as a draft in that conversation.
    expect((await sh('am start -a android.intent.action.SENDTO -d sms:5550001 --es sms_body "see you"')).code).toBe(0);
    expect((await sh('dumpsys window | grep mCurrentFocus')).out).toContain('com.simplemobiletools.smsmessenger.activities.ThreadActivity');
    expect((await sh('uiautomator dump /dev/tty')).out).toContain('text="see you"');
    // A web address opens Chrome (simulated since issue 36); a scheme no app takes is refused as a device refuses it.
    expect((await sh('am', 'start', '-a', 'android.intent.action.VIEW', '-d', '"http://example.com"')).code).toBe(0);
    expect((await sh('dumpsys window | grep mCurrentFocus')).out).toContain('com.android.chrome');
    const none = await sh('am', 'start', '-a', 'android.intent.action.VIEW', '-d', '"nobody://example.com"');
    expect(none).toMatchObject({ code: 1, err: 'Error: Activity not started, unable to resolve Intent { act=android.intent.action.VIEW dat=nobody://example.com flg=0x10000000 }\n' });
    // A broadcast no receiver takes: result=0 and no data, as on a device (Clipper's are in androidworld-data.test.ts).
    expect(await sh('am', 'broadcast', '-a', 'com.example.NOBODY', '-e', 'text', 'hello')).toMatchObject({ code: 0, out: 'Broadcasting: Intent { act=com.example.NOBODY flg=0x400000 (has extras) }\nBroadcast completed: result=0\n' });
  });

  it('reports rotation and frames as adb_utils parses them, clears the contacts provider, deletes call log and media rows', async () => {
    expect((await sh('dumpsys window | grep mCurrentRotation')).out).toMatch(/mCurrentRotation=ROTATION_0/);
    expect((await sh('dumpsys input | grep logicalFrame')).out).toContain('logicalFrame=[0, 0, 1080, 2400]');
    expect((await sh('dumpsys input | grep physicalFrame')).out).toContain('physicalFrame=[0, 0, 1080, 2400]');
    expect((await sh('dumpsys input')).out).toMatch(/\n\s+SurfaceOrientation: 0\n/);
    expect((await sh('content query --uri content://contacts/people --projection display_name')).out).toMatch(/^Row: 0 display_name=/);
    expect(await sh('pm', 'clear', 'com.android.providers.contacts')).toMatchObject({ code: 0, out: 'Success\n' });
    expect((await sh('content query --uri content://contacts/people')).out).toBe('No result found.\n');
    await sh('content insert --uri content://call_log/calls --bind number:s:5550001 --bind type:i:1 --bind date:l:1');
    expect((await sh('content query --uri content://call_log/calls --projection number')).out).toBe('Row: 0 number=5550001\n');
    expect((await sh('content', 'delete', '--uri', 'content://call_log/calls')).code).toBe(0);
    expect((await sh('content query --uri content://call_log/calls')).out).toBe('No result found.\n');
    expect((await sh('content delete --uri content://media/external/downloads')).code).toBe(0);
    expect((await sh('content delete --uri content://media/external/nope')).code).toBe(1);
  });
});

describe('databases over adb push (sqlite_utils / app_snapshot)', () => {
  it('pulls a live database, edits it with SQLite, and pushes it back as the app\'s data (the app restarts)', async () => {
    const remote = '/data/data/org.tasks/databases/database';
    const local = join(scratch, 'database');
    await sh('am start -n org.tasks/com.todoroo.astrid.activity.MainActivity');
    await adb.ok(['-s', host.address, 'pull', remote, local]);
    const db = new Database(local);
    db.prepare("UPDATE tasks SET title = 'Pushed by AndroidWorld'").run();
    db.close();
    expect((await adb.run(['-s', host.address, 'push', local, remote])).code).toBe(0);
    expect((await sh(`sqlite3 ${remote} "select distinct title from tasks"`)).out).toBe('Pushed by AndroidWorld\n');
    expect((await sh('dumpsys window | grep mCurrentFocus')).out).not.toContain('org.tasks');
    // A database pushed where none was is a database too, not a dead file.
    await adb.ok(['-s', host.address, 'push', local, '/sdcard/Download/copy.db']);
    expect(await sh('sqlite3 /sdcard/Download/copy.db "select count(*) > 0 from tasks"')).toMatchObject({ code: 0, out: '1\n' });
  });
});

describe('the console (adb_utils.text_emulator)', () => {
  it('delivers an inbound SMS with `adb emu sms send`, and refuses a bad number', async () => {
    const emu = (...args: string[]) => adb.run(['-s', host.serial, 'emu', ...args]);
    expect((await emu('sms', 'send', '+15550123', 'Hello from AndroidWorld')).out).toBe('OK\r\n');
    const row = await sh(`content query --uri content://sms/inbox --projection address:body:read --where "address='+15550123'"`);
    expect(row.out).toBe('Row: 0 address=+15550123, body=Hello from AndroidWorld, read=0\n');
    expect((await emu('sms', 'send', '555-0123', 'hi')).out).toBe('KO: bad phone number format, must be [+](0-9)*\r\n');
  });
});

describe('SMS as AndroidWorld\'s sms tasks read and send them', () => {
  it('lists texts delivered back to back newest first, and sends a draft with the button labelled "SMS"', async () => {
    const emu = (...args: string[]) => adb.ok(['-s', host.serial, 'emu', ...args]);
    // SimpleSmsReplyMostRecent: several texts within one device millisecond, then row 0 of the inbox must be the last.
    for (const body of ['first', 'second', 'third']) await emu('sms', 'send', '+15550188', body);
    const inbox = await sh('content query --uri content://sms/inbox --projection body --where "address=\'+15550188\'"');
    expect(inbox.out).toBe('Row: 0 body=third\nRow: 1 body=second\nRow: 2 body=first\n');
    // tools.send_sms: SENDTO with the body as a draft, then a click on the element whose text is "SMS".
    await sh('am start -a android.intent.action.SENDTO -d sms:+15550188 --es sms_body "on my way"');
    const dump = (await sh('uiautomator dump /dev/tty')).out;
    const button = /<node[^>]* text="SMS" resource-id="com\.simplemobiletools\.smsmessenger:id\/thread_send_message"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"/.exec(dump);
    expect(button).not.toBeNull();
    const [x1, y1, x2, y2] = button!.slice(1).map(Number) as [number, number, number, number];
    await sh(`input tap ${(x1 + x2) >> 1} ${(y1 + y2) >> 1}`);
    const sent = await sh('content query --uri content://sms/sent --projection address:body');
    expect(sent.out.split('\n')[0]).toBe('Row: 0 address=+15550188, body=on my way');
    // Texts from two senders within one device millisecond: the last sender's thread is on top of the list
    // (it used to be the lower address among the ties).
    await emu('sms', 'send', '+15550300', 'latest');
    await sh('am force-stop com.simplemobiletools.smsmessenger; am start -n com.simplemobiletools.smsmessenger/.activities.MainActivity');
    const list = (await sh('uiautomator dump /dev/tty')).out;
    expect([...list.matchAll(/text="([^"]*)" resource-id="com\.simplemobiletools\.smsmessenger:id\/conversation_address"/g)].map((m) => m[1]).slice(0, 2))
      .toEqual(['+15550300', '+15550188']);
  });
});

describe('logcat and the builtins adb logcat sends (android_env\'s log stream)', () => {
  it('clears every buffer with `adb logcat -b all -c` (export …; exec logcat), refuses an unknown buffer, and runs export/exec as mksh', async () => {
    // adb's client sends `export ANDROID_LOG_TAGS="''"; exec logcat '-b' 'all' '-c'`: android_env check_output()s it.
    expect(await adb.run(['-s', host.address, 'logcat', '-b', 'all', '-c'])).toMatchObject({ code: 0, out: '' });
    expect(await adb.run(['-s', host.address, 'logcat', '-d'])).toMatchObject({ code: 0, out: '' }); // cleared just above
    expect(await adb.run(['-s', host.address, 'logcat', '-b', 'mian', '-c'])).toMatchObject({ code: 1, err: "logcat: Unknown buffer 'mian' listed for -b.\n" });
    expect(await sh('export A=1 B; echo "$A"; export')).toMatchObject({ code: 0, out: "1\nexport A=1\nexport B=''\n" });
    expect(await sh('export 1x=2')).toMatchObject({ code: 1, err: '/system/bin/sh: export: 1x: is not an identifier\n' });
    // exec replaces the shell: its status is the line's, and nothing after it runs.
    expect(await sh('exec false; echo after')).toMatchObject({ code: 1, out: '' });
    expect(await sh('for i in 1 2; do echo $i; exec true; done; echo after')).toMatchObject({ code: 0, out: '1\n' });
  });
});

describe('mksh grammar and expansions a script writer reaches for', () => {
  it('runs case … esac: globs and | alternatives, quoted patterns literal, the first match only, its status (0 when none matched)', async () => {
    expect(await sh('for f in a.txt b.PDF c; do case $f in *.txt) echo "text $f";; *.pdf|*.PDF) echo "pdf $f";; *) echo "other $f";; esac; done'))
      .toMatchObject({ code: 0, out: 'text a.txt\npdf b.PDF\nother c\n' });
    expect(await sh('case "a*" in "a*") echo literal;; esac; case ab in "a*") echo no;; a*) echo glob;; a?) echo second; esac'))
      .toMatchObject({ code: 0, out: 'literal\nglob\n' });
    expect(await sh('case x in\n  y) echo y\n    ;;\n  (x) echo x; false\nesac')).toMatchObject({ code: 1, out: 'x\n' });
    expect(await sh('false; case z in a) echo a;; esac; echo "status $?"')).toMatchObject({ code: 0, out: 'status 0\n' });
    expect(await sh('p="*.md"; case n.md in $p) echo "by pattern";; esac')).toMatchObject({ code: 0, out: 'by pattern\n' });
    expect(await sh('case x in a) echo a;;')).toMatchObject({ code: 1, err: "/system/bin/sh: syntax error: 'case' unmatched\n" });
  });


  it('defines and calls functions (name() and function name) with $1… $# "$@", return N, and its own arguments restored after', async () => {
    expect(await sh('greet() { echo "hi $1 ($#)"; }; greet Ada; greet "Ada Lovelace" x; echo "[$1] $#"')).toMatchObject({ code: 0, out: 'hi Ada (1)\nhi Ada Lovelace (2)\n[] 0\n' });
    expect(await sh('function isdir { [ -d "$1" ] && return 0; echo "no $1"; return 3; echo never; }; isdir /sdcard && echo yes; isdir /nope; echo "status $?"'))
      .toMatchObject({ code: 0, out: 'yes\nno /nope\nstatus 3\n' });
    expect(await sh('count() { for f in "$@"; do echo "<$f>"; done; echo $#; }; count a "b c"; count')).toMatchObject({ code: 0, out: '<a>\n<b c>\n2\n0\n' });
    expect(await sh('f() { for i in 1 2 3; do [ $i = 2 ] && return 7; echo $i; done; }; f; echo "status $?"')).toMatchObject({ code: 0, out: '1\nstatus 7\n' });
    expect(await sh('f()\n{\n  echo multi-line\n}\nf > /sdcard/fn.txt; cat /sdcard/fn.txt')).toMatchObject({ code: 0, out: 'multi-line\n' });
  });

  it('expands ${VAR:-…} ${VAR-…} ${VAR:+…} ${#VAR} and trims with ${VAR#…} ${VAR##…} ${VAR%…} ${VAR%%…}', async () => {
    expect(await sh('echo ${u:-def} "${u-def2}" ${u:+alt}; e=; echo "[${e-unset}]" "[${e:-empty}]" "[${e:+alt}]" "[${e+set}]"'))
      .toMatchObject({ code: 0, out: 'def def2\n[] [empty] [] [set]\n' });
    expect(await sh('d=/sdcard; echo ${u:-$d/Download} ${HOME:-x} ${#d}')).toMatchObject({ code: 0, out: '/sdcard/Download / 7\n' });
    const p = 'p=/sdcard/Download/a.b.txt';
    expect(await sh(`${p}; echo \${p#*/} \${p##*/} \${p%.*} \${p%%.*}`)).toMatchObject({ code: 0, out: 'sdcard/Download/a.b.txt a.b.txt /sdcard/Download/a.b /sdcard/Download/a\n' });
    expect(await sh(`${p}; for f in "\${p##*/}"; do echo "\${f%.txt}.md"; done`)).toMatchObject({ code: 0, out: 'a.b.md\n' });
    expect(await sh('echo ${x@}')).toMatchObject({ code: 1, err: '/system/bin/sh: ${x@}: bad substitution\n' });
  });

  it('computes $((…)) in 32-bit signed integers with C precedence, variables by name or $, and stops at a zero divisor', async () => {
    expect(await sh('echo $((1+2*3)) $(( (1+2)*3 )) $((7/2)) $((-7%3)) $((1<<4)) $((3>2 && 1)) $((1?5:6)) $((0x10)) $((010)) $((2#101))'))
      .toMatchObject({ code: 0, out: '7 9 3 -1 16 1 5 16 10 5\n' });
    expect(await sh('echo $((2147483647+1))')).toMatchObject({ code: 0, out: '-2147483648\n' });
    expect(await sh('n=5; i=0; while [ $i -lt 3 ]; do i=$((i+1)); done; echo $((n*2)) $(($n+i)) "$(( $(echo 4) * 2 ))"')).toMatchObject({ code: 0, out: '10 8 8\n' });
    expect(await sh('echo before; echo $((1/0)); echo after')).toMatchObject({ code: 1, err: '/system/bin/sh: 1/0: zero divisor\n' });
  });
});
