import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulatorHost, type EmulatorHost } from '../../../emulators/simdroid/host.js';
import { AdbCli, connectedAdb, freePort, pngSize, startHost, type tempHome } from './helpers.js';

/** Debian's real adb (1.0.41 / 29.0.6) against SimDroid, through a private adb server. */
let host: EmulatorHost;
let adb: AdbCli;
let sh: (...args: string[]) => ReturnType<AdbCli['run']>;
let scratch: string;
let home: ReturnType<typeof tempHome>;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ host, adb, sh, home, scratch, close } = await connectedAdb('awb-adb-files-'));
});
afterAll(() => close());

const uiDump = async () => (await sh('uiautomator', 'dump', '/dev/tty')).out;

describe('adb connect', () => {
  it('lists the device with its product and model', async () => {
    const r = await adb.ok(['devices', '-l']);
    const line = r.out.split('\n').find((l) => l.startsWith(host.address))!;
    expect(line).toMatch(/^\S+\s+device product:simdroid_x86_64 model:SimDroid_Pixel device:simdroid transport_id:\d+$/);
    expect((await adb.ok(['-s', host.address, 'get-state'])).out).toBe('device\n');
    expect((await adb.ok(['-s', host.address, 'features'])).out.split('\n')).toEqual(expect.arrayContaining(['shell_v2', 'stat_v2', 'ls_v2', 'fixed_push_mkdir']));
  });
});

describe('adb shell', () => {
  it('returns output, stderr apart, and exit codes (shell_v2)', async () => {
    expect(await sh('echo', 'hello')).toMatchObject({ out: 'hello\n', err: '', code: 0 });
    expect(await sh('false')).toMatchObject({ out: '', code: 1 });
    expect(await sh('frobnicate')).toMatchObject({ out: '', err: '/system/bin/sh: frobnicate: inaccessible or not found\n', code: 127 });
    expect(await sh('ls /nope; echo after')).toMatchObject({ out: 'after\n', err: 'ls: /nope: No such file or directory\n', code: 0 });
    expect((await sh('getprop ro.serialno')).out).toBe(`${host.serial}\n`);
  });

  it('reads commands from stdin when given none', async () => {
    const r = await adb.run(['-s', host.address, 'shell'], 'echo one\nsettings get global nope\nfalse\n');
    expect(r).toMatchObject({ out: 'one\nnull\n', code: 1 });
  });

  it('sends stdin to a command that reads it, and exec-in does too', async () => {
    expect((await adb.run(['-s', host.address, 'shell', 'cat > /sdcard/Download/stdin.txt && wc -l /sdcard/Download/stdin.txt'], 'a\nb\nc\n')).out).toBe('3\n');
    await adb.ok(['-s', host.address, 'exec-in', 'cat > /sdcard/Download/exec-in.txt'], 'via exec-in');
    expect((await sh('cat /sdcard/Download/exec-in.txt')).out).toBe('via exec-in');
  });

  it('streams a screenshot through exec-out as a PNG of the screen size, and raw screencap with its header', async () => {
    const png = await adb.ok(['-s', host.address, 'exec-out', 'screencap', '-p']);
    expect(pngSize(png.stdout)).toEqual({ width: 1080, height: 2400 });
    const raw = (await adb.ok(['-s', host.address, 'exec-out', 'screencap'])).stdout;
    expect([raw.readUInt32LE(0), raw.readUInt32LE(4), raw.readUInt32LE(8)]).toEqual([1080, 2400, 1]);
    expect(raw.length).toBe(16 + 1080 * 2400 * 4);
  });

  it('dumps the UI to /dev/tty, and a tap through `input` changes it', async () => {
    await sh('input keyevent HOME');
    const before = await uiDump();
    expect(before).toMatch(/^<\?xml version='1.0' encoding='UTF-8' standalone='yes' \?><hierarchy rotation="0">/);
    const m = /text="Simple SMS Messenger"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"/.exec(before)!;
    const [x, y] = [(Number(m[1]) + Number(m[3])) >> 1, (Number(m[2]) + Number(m[4])) >> 1];
    expect((await sh(`input tap ${x} ${y}`)).code).toBe(0);
    const after = await uiDump();
    expect(after).not.toBe(before);
    expect(after).toContain('package="com.simplemobiletools.smsmessenger"');
    expect((await sh('dumpsys window | grep mCurrentFocus')).out).toContain('com.simplemobiletools.smsmessenger');
  });

  it('answers settings, content, sqlite3, am and dumpsys', async () => {
    expect((await sh('settings put global adb_test 7 && settings get global adb_test')).out).toBe('7\n');
    expect((await sh('content query --uri content://sms/inbox --projection address')).out).toMatch(/^Row: 0 address=\d+\n/);
    expect((await sh("sqlite3 /data/data/com.android.providers.contacts/databases/contacts2.db 'SELECT count(*) > 0 FROM raw_contacts'")).out).toBe('1\n');
    expect((await sh('am start -n com.android.settings/.Settings')).out).toBe('Starting: Intent { cmp=com.android.settings/.Settings }\n');
    expect((await sh('dumpsys window')).out).toMatch(/mCurrentFocus=Window\{\w+ u0 com\.android\.settings\/com\.android\.settings\.Settings\}/);
  });

  it('runs twenty shells in parallel', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => sh(`echo parallel-${i}; getprop ro.product.model`)));
    results.forEach((r, i) => expect(r).toMatchObject({ out: `parallel-${i}\nSimDroid Pixel\n`, code: 0 }));
  });

  it('answers adb root and adb reboot like an emulator', async () => {
    expect((await adb.run(['-s', host.address, 'root'])).out).toBe('adbd is already running as root\n');
    expect((await adb.run(['-s', host.address, 'reboot'])).code).toBe(0);
    expect((await sh('dumpsys window | grep mCurrentFocus')).out).toContain('nexuslauncher');
  });
});

describe('adb push and pull', () => {
  it('round-trips a binary file, creating missing directories', async () => {
    const local = join(scratch, 'blob.bin');
    const data = randomBytes(300_000);
    writeFileSync(local, data);
    expect((await adb.ok(['-s', host.address, 'push', local, '/sdcard/new/dir/blob.bin'])).out).toContain('1 file pushed');
    expect((await sh('ls -l /sdcard/new/dir/blob.bin')).out).toContain(' 300000 ');
    const back = join(scratch, 'back.bin');
    expect((await adb.ok(['-s', host.address, 'pull', '/sdcard/new/dir/blob.bin', back])).out).toContain('1 file pulled');
    expect(readFileSync(back).equals(data)).toBe(true);
  });

  it('pulls a directory and a live database, and reports what does not exist', async () => {
    await sh('mkdir -p /sdcard/tree/sub && echo a > /sdcard/tree/a.txt && echo b > /sdcard/tree/sub/b.txt');
    const ls = (await adb.ok(['-s', host.address, 'ls', '/sdcard/tree'])).out.split('\n').filter(Boolean).map((l) => l.split(' '));
    expect(ls.map((f) => [f[0], f[3]])).toEqual([['000045f8', '.'], ['000045f8', '..'], ['000081b0', 'a.txt'], ['000045f8', 'sub']]);
    await adb.ok(['-s', host.address, 'pull', '/sdcard/tree', scratch]);
    expect(readFileSync(join(scratch, 'tree', 'sub', 'b.txt'), 'utf8')).toBe('b\n');
    const db = join(scratch, 'contacts2.db');
    await adb.ok(['-s', host.address, 'pull', '/data/data/com.android.providers.contacts/databases/contacts2.db', db]);
    expect(readFileSync(db).toString('latin1', 0, 15)).toBe('SQLite format 3');
    const missing = await adb.run(['-s', host.address, 'pull', '/sdcard/nope.txt', scratch]);
    expect(missing.code).toBe(1);
    // The errno travels in the STA2 reply; adb 29 prints this on stdout.
    expect(missing.out + missing.err).toContain("failed to stat remote object '/sdcard/nope.txt': No such file or directory");
  });
});

describe('adb emu (the console)', () => {
  const emu = (...args: string[]) => adb.run(['-s', host.serial, 'emu', ...args]);

  it('lists, saves and loads snapshots', async () => {
    expect((await emu('avd', 'snapshot', 'list')).out).toMatch(/^List of snapshots present on all disks:\r\nID {8}TAG {17}VM SIZE {16}DATE {7}VM CLOCK\r\n-- {8}default_boot/);
    await sh('settings put global snap_test before');
    expect((await emu('avd', 'snapshot', 'save', 'cli')).out).toBe('OK\r\n');
    await sh('settings put global snap_test after');
    expect((await emu('avd', 'snapshot', 'load', 'cli')).out).toBe('OK\r\n');
    expect((await sh('settings get global snap_test')).out).toBe('before\n');
  });

  it('kills the emulator', async () => {
    const other = await startHost({ authTokenPath: home.tokenPath });
    const r = await adb.run(['-s', other.serial, 'emu', 'kill']);
    expect(r.out).toBe('OK: killing emulator, bye bye\r\nOK\r\n');
    await other.stopped;
    const again = await adb.run(['-s', other.serial, 'emu', 'ping']);
    expect(again.err).toContain(`could not connect to TCP port ${other.consolePort}`);
  });
});

describe('emulator discovery', () => {
  it('is found by a fresh adb server on the default range, as emulator-5584, without adb connect', async () => {
    const found = await startEmulatorHost({ port: 5584, authTokenPath: home.tokenPath });
    const fresh = new AdbCli(await freePort(), home.home);
    try {
      await fresh.ok(['start-server']);
      await fresh.ok(['-s', 'emulator-5584', 'wait-for-device']);
      expect((await fresh.ok(['devices', '-l'])).out).toMatch(/\nemulator-5584 +device product:simdroid_x86_64 model:SimDroid_Pixel device:simdroid/);
      expect((await fresh.ok(['-s', 'emulator-5584', 'shell', 'getprop', 'ro.serialno'])).out).toBe('emulator-5584\n');
    } finally {
      await fresh.killServer();
      await found.stop();
    }
  });
});
