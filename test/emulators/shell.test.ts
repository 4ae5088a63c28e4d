import { describe, expect, it, afterAll } from 'vitest';
import { device, find, sh } from '../helpers/simdroid.js';
import { CONTACTS_DB } from '../../emulators/simdroid/system/providers.js';
import { parseUiTree } from '../../core/a11y/ui-tree.js';

const d = device();
afterAll(() => d.close());
const run = (cmd: string) => {
  const r = d.shellBytes(cmd);
  return { out: r.stdout.toString('utf8'), err: r.stderr.toString('utf8'), code: r.exitCode, bytes: r.stdout };
};

describe('the shell language', () => {
  it('quotes, joins and pipes like sh', () => {
    expect(run(`echo 'a  b' "c \\"d\\"" e\\ f`).out).toBe('a  b c "d" e f\n');
    expect(run('false && echo no; echo yes').out).toBe('yes\n');
    expect(run('false || echo fallback').out).toBe('fallback\n');
    expect(run('true && echo one && echo two').out).toBe('one\ntwo\n');
    expect(run('printf x 2>/dev/null || echo missing').out).toBe('missing\n');
    expect(run('echo $EXTERNAL_STORAGE').out).toBe('/sdcard\n');
    expect(run("pm list packages | grep settings").out).toBe('package:com.android.settings\n');
    expect(run("pm list packages | grep -c google").out.trim()).toMatch(/^\d+$/);
  });

  it('redirects output to files', () => {
    sh(d, 'mkdir -p /sdcard/t && echo one > /sdcard/t/f.txt && echo two >> /sdcard/t/f.txt');
    expect(run('cat /storage/emulated/0/t/f.txt').out).toBe('one\ntwo\n');
    expect(run('cat /sdcard/t/missing 2>/dev/null').err).toBe('');
    expect(run('ls /nope 2>&1').out).toContain('No such file or directory');
  });

  it('reports unknown commands and syntax errors like Android, never throwing', () => {
    expect(run('frobnicate --now')).toMatchObject({ code: 127, err: '/system/bin/sh: frobnicate: inaccessible or not found\n' });
    expect(run("echo 'unterminated").code).toBe(1);
    expect(run('echo a && && echo b').err).toContain('syntax error');
    expect(run('| grep x').code).toBe(1);
  });
});

describe('settings', () => {
  it('gets, puts, lists and validates namespaces', () => {
    expect(run('settings get global wifi_on').out).toBe('1\n');
    sh(d, 'settings put global wifi_on 0');
    expect(run('settings get global wifi_on').out).toBe('0\n');
    expect(run('settings get global no_such_key').out).toBe('null\n');
    expect(run('settings list secure').out).toContain('ui_night_mode=1\n');
    expect(run('settings get planet wifi_on')).toMatchObject({ code: 255, err: "Invalid namespace 'planet'\n" });
    expect(run('settings frob global x').code).toBe(255);
    sh(d, 'svc wifi enable && cmd uimode night yes && cmd connectivity airplane-mode enable');
    expect(run('settings get global wifi_on').out).toBe('1\n');
    expect(run('settings get secure ui_night_mode').out).toBe('2\n');
    expect(run('settings get global airplane_mode_on').out).toBe('1\n');
    sh(d, 'cmd uimode night no && cmd connectivity airplane-mode disable');
  });
});

describe('content providers', () => {
  it('inserts, queries with projection/where/sort, updates and deletes', () => {
    // Start from an empty provider: the SMS app seeds a few threads at boot.
    sh(d, 'content delete --uri content://sms');
    expect(run('content query --uri content://sms').out).toBe('No result found.\n');
    sh(d, `content insert --uri content://sms/inbox --bind address:s:5550001 --bind body:s:'Hello, world' --bind date:l:100`);
    sh(d, `content insert --uri content://sms/sent --bind address:s:5550002 --bind body:s:Bye --bind date:l:200`);
    expect(run('content query --uri content://sms/inbox --projection address:body').out).toBe('Row: 0 address=5550001, body=Hello, world\n');
    expect(run('content query --uri content://sms --projection body --sort "date ASC"').out).toBe('Row: 0 body=Hello, world\nRow: 1 body=Bye\n');
    expect(run(`content query --uri content://sms/sent --where "address='nobody'"`).out).toBe('No result found.\n');
    sh(d, `content update --uri content://sms/inbox --bind read:i:1 --where "address='5550001'"`);
    expect(run('content query --uri content://sms/inbox --projection read').out).toBe('Row: 0 read=1\n');
    sh(d, `content delete --uri content://sms --where "address='5550002'"`);
    expect(run('content query --uri content://sms --projection address').out).toBe('Row: 0 address=5550001\n');
  });

  it('keeps contacts display names in sync with their name rows', () => {
    sh(d, 'content insert --uri content://com.android.contacts/raw_contacts --bind starred:i:0');
    const id = run('content query --uri content://com.android.contacts/raw_contacts --projection _id --sort "_id DESC"').out.match(/_id=(\d+)/)![1];
    sh(d, `content insert --uri content://com.android.contacts/data --bind raw_contact_id:i:${id} --bind mimetype:s:vnd.android.cursor.item/name --bind data1:s:'Ada Lovelace'`);
    sh(d, `content insert --uri content://com.android.contacts/data --bind raw_contact_id:i:${id} --bind mimetype:s:vnd.android.cursor.item/phone_v2 --bind data1:s:5551000 --bind data2:i:2`);
    expect(run('content query --uri content://contacts/phones --projection display_name:number').out).toContain('display_name=Ada Lovelace, number=5551000');
    expect(run(`sqlite3 ${CONTACTS_DB} "select display_name from raw_contacts where _id=${id}"`).out).toBe('Ada Lovelace\n');
  });

  it('explains bad URIs, bindings and missing arguments', () => {
    expect(run('content query --uri content://nope/things')).toMatchObject({ code: 1 });
    expect(run('content query --uri content://nope/things').err).toContain('Unknown URI content://nope/things');
    expect(run('content insert --uri content://sms/inbox --bind address:q:1').err).toContain('Invalid binding');
    expect(run('content query').err).toContain('--uri');
    expect(run('content query --uri content://sms --where "nonsense ((("').code).toBe(1);
  });
});

describe('sqlite3', () => {
  const db = '/data/local/tmp/test.db';
  it('creates databases and runs statements like the CLI', () => {
    sh(d, `sqlite3 ${db} "CREATE TABLE t (a TEXT, b REAL, c INTEGER); INSERT INTO t VALUES ('x|y', 2.0, NULL), ('it''s', 3.5, 7);"`);
    expect(run(`sqlite3 ${db} "SELECT * FROM t ORDER BY b"`).out).toBe('x|y|2.0|\nit\'s|3.5|7\n');
    expect(run(`sqlite3 -header -separator , ${db} "SELECT a, c FROM t"`).out).toBe('a,c\nx|y,\nit\'s,7\n');
    expect(run(`sqlite3 -csv ${db} "SELECT a FROM t"`).out).toBe('x|y\nit\'s\n');
    expect(run(`sqlite3 ${db} "SELECT quote(a) FROM t"`).out).toBe("'x|y'\n'it''s'\n");
    expect(run(`ls /data/local/tmp`).out).toContain('test.db');
  });

  it('keeps CREATE TRIGGER bodies together and reports errors with exit code 1', () => {
    sh(d, `sqlite3 ${db} "CREATE TABLE log (m TEXT); CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log VALUES ('a'); INSERT INTO log VALUES ('b'); END; INSERT INTO t VALUES ('z', 1, 1);"`);
    expect(run(`sqlite3 ${db} "SELECT count(*) FROM log"`).out).toBe('2\n');
    expect(run(`sqlite3 ${db} "SELEC 1"`)).toMatchObject({ code: 1 });
    expect(run(`sqlite3 ${db} "SELEC 1"`).err).toContain('Parse error');
    expect(run(`sqlite3 /no/such/dir/x.db "select 1"`).err).toContain('unable to open database');
    expect(run(`sqlite3 /sdcard/t/f.txt "select 1"`).err).toContain('file is not a database');
  });

  it('reads SQL from stdin', () => {
    expect(run(`echo "select 40 + 2;" | sqlite3 ${db}`).out).toBe('42\n');
  });
});

describe('files', () => {
  it('lists, copies, moves and removes with toybox-like errors', () => {
    sh(d, 'mkdir -p /sdcard/f/sub && echo A > /sdcard/f/a.txt && touch /sdcard/f/.hidden');
    expect(run('ls /sdcard/f').out).toBe('a.txt\nsub\n');
    expect(run('ls -a /sdcard/f').out).toBe('.\n..\n.hidden\na.txt\nsub\n'); // toybox lists . and .. with -a
    expect(run('ls -l /sdcard/f').out).toMatch(/-rw-rw---- 1 u0_a100 media_rw +2 2023-10-15 15:\d\d a\.txt/);
    sh(d, 'cp /sdcard/f/a.txt /sdcard/f/sub && mv /sdcard/f/a.txt /sdcard/f/b.txt');
    expect(run('ls /sdcard/f /sdcard/f/sub').out).toBe('/sdcard/f:\n.hidden\nb.txt\nsub\n\n/sdcard/f/sub:\na.txt\n'.replace('.hidden\n', ''));
    expect(run('rm /sdcard/f/sub')).toMatchObject({ code: 1, err: 'rm: /sdcard/f/sub: Is a directory\n' });
    sh(d, 'rm -r /sdcard/f');
    expect(run('ls /sdcard/f')).toMatchObject({ code: 1, err: 'ls: /sdcard/f: No such file or directory\n' });
    expect(run('mkdir /sdcard/a/b').code).toBe(1);
    expect(run('find /sdcard -name "*.txt"').out).toContain('/sdcard/t/f.txt\n'); // as spelled from the operand, as toybox prints it
    expect(run('find /sdcard -name "*.txt"').out).not.toContain('/storage/emulated/0');
  });
});

describe('activity and package manager', () => {
  it('starts activities, reports the focused one and force-stops apps', () => {
    expect(run('am start -n com.android.settings/.Settings').out).toBe('Starting: Intent { cmp=com.android.settings/.Settings }\n');
    expect(run('dumpsys window | grep mCurrentFocus').out).toContain('com.android.settings/com.android.settings.Settings');
    expect(run('dumpsys activity activities').out).toContain('mResumedActivity: ActivityRecord{');
    sh(d, 'am force-stop com.android.settings');
    expect(run('dumpsys window').out).toContain('com.google.android.apps.nexuslauncher');
    const bad = run('am start -n com.android.settings/.Nope');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('Error: Activity class {com.android.settings/com.android.settings.Nope} does not exist.');
    expect(run('am start -n garbage').code).toBe(1);
    expect(run('am start -a android.intent.action.MAIN -c android.intent.category.HOME').code).toBe(0);
  });

  it('lists packages and clears app data', () => {
    const pkgs = run('pm list packages').out.split('\n').filter(Boolean);
    expect(pkgs).toContain('package:com.google.android.contacts');
    expect(pkgs.length).toBeGreaterThanOrEqual(30);
    expect(run('pm clear com.android.settings').out).toBe('Success\n');
    expect(run('pm clear com.nope').code).toBe(1);
  });
});

describe('input, observation and device facts', () => {
  it('injects input like `input`, with usage errors for bad arguments', () => {
    sh(d, 'am start -n com.android.settings/.SubSettings --es page about');
    const row = find(d, { text: 'Device name' })!.node.bounds;
    sh(d, `input tap ${(row.left + row.right) >> 1} ${(row.top + row.bottom) >> 1}`);
    expect(find(d, { text: 'Rename' })).toBeDefined();
    sh(d, 'input keyevent KEYCODE_BACK');
    sh(d, 'input keyevent 4');
    expect(find(d, { text: 'Rename' })).toBeUndefined();
    expect(run('input tap 1').code).toBe(1);
    expect(run('input tap 1').err).toContain('Invalid arguments for command: tap');
    expect(run('input keyevent KEYCODE_VOLUME_UP').code).toBe(0);
    expect(run('input keyevent not-a-key!').code).toBe(1);
    expect(run('input teleport 1 2').code).toBe(1);
  });

  it('dumps the UI hierarchy to a file or to the terminal', () => {
    expect(run('uiautomator dump').out).toBe('UI hierchary dumped to: /sdcard/window_dump.xml\n');
    const xml = run('cat /sdcard/window_dump.xml').out;
    expect(parseUiTree(xml).roots.length).toBeGreaterThan(1);
    const tty = run('uiautomator dump /dev/tty').out;
    expect(tty.startsWith("<?xml version='1.0'")).toBe(true);
    expect(tty.endsWith('UI hierchary dumped to: /dev/tty\n')).toBe(true);
    expect(run('uiautomator frob').code).toBe(1);
  });

  it('captures the screen as PNG or raw RGBA with the Android 12+ header', () => {
    const png = run('screencap -p').bytes;
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const raw = run('screencap').bytes;
    expect([raw.readUInt32LE(0), raw.readUInt32LE(4), raw.readUInt32LE(8)]).toEqual([1080, 2400, 1]);
    expect(raw.length).toBe(16 + 1080 * 2400 * 4);
    sh(d, 'screencap -p /sdcard/shot.png');
    expect(run('ls /sdcard/shot.png').code).toBe(0);
  });

  it('answers wm, getprop, date and sleep', () => {
    expect(run('wm size').out).toBe('Physical size: 1080x2400\n');
    expect(run('wm density').out).toBe('Physical density: 420\n');
    expect(run('getprop ro.build.version.sdk').out).toBe('33\n');
    expect(run('getprop sys.boot_completed').out).toBe('1\n');
    expect(run('getprop').out).toContain('[ro.product.model]: [SimDroid Pixel]');
    const t0 = Number(run('date +%s').out);
    sh(d, 'sleep 30');
    expect(Number(run('date +%s').out)).toBe(t0 + 30);
    expect(run('date').out).toMatch(/^\w{3} \w{3} \d\d \d\d:\d\d:\d\d UTC \d{4}\n$/);
  });
});

describe('pm clear', () => {
  it("wipes the app's data directory and recreates its empty databases", () => {
    const c = device();
    const db = '/data/data/com.simplemobiletools.calendar.pro/databases/events.db';
    expect(Number(c.shellBytes(`sqlite3 ${db} "select count(*) from events"`).stdout.toString())).toBeGreaterThan(0);
    sh(c, 'mkdir -p /data/data/com.simplemobiletools.calendar.pro/shared_prefs && echo x > /data/data/com.simplemobiletools.calendar.pro/shared_prefs/p.xml');
    sh(c, 'pm clear com.simplemobiletools.calendar.pro');
    expect(c.shellBytes(`sqlite3 ${db} "select count(*) from events"`).stdout.toString()).toBe('0\n');
    expect(c.shellBytes('ls /data/data/com.simplemobiletools.calendar.pro/shared_prefs').exitCode).toBe(1);
    c.close();
  });
});
