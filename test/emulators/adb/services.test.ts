import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHost } from '../../../emulators/simdroid/host.js';
import { pngSize, startHost, tempHome } from './helpers.js';
import { RawAdb, shellPackets } from './raw-adb.js';

/** Device services as adbd answers them, checked at the byte level. */
let host: EmulatorHost;
let adb: RawAdb;
const home = tempHome();

beforeAll(async () => {
  host = await startHost({ authTokenPath: home.tokenPath });
  adb = (await RawAdb.online(host.adbPort)).adb;
});
afterAll(async () => {
  adb.close();
  await host.stop();
  home.remove();
});

function shellPacket(id: number, data: Buffer | string): Buffer {
  const body = typeof data === 'string' ? Buffer.from(data) : data;
  const h = Buffer.alloc(5);
  h[0] = id;
  h.writeUInt32LE(body.length, 1);
  return Buffer.concat([h, body]);
}

describe('shell', () => {
  it('speaks the shell protocol under v2: stdout, stderr, then the exit code', async () => {
    const packets = shellPackets(await adb.run('shell,v2,raw:echo out; ls /nope'));
    expect(packets.map((p) => p.id)).toEqual([1, 2, 3]);
    expect(packets[0]!.data.toString()).toBe('out\n');
    expect(packets[1]!.data.toString()).toBe('ls: /nope: No such file or directory\n');
    expect([...packets[2]!.data]).toEqual([1]);
    const unknown = shellPackets(await adb.run('shell,v2,TERM=xterm-256color,raw:frobnicate'));
    expect(unknown.map((p) => [p.id, p.data.toString()])).toEqual([[2, '/system/bin/sh: frobnicate: inaccessible or not found\n'], [3, '\x7f']]);
  });

  it('merges stderr into stdout without the protocol (shell: and exec:), with no exit code', async () => {
    expect((await adb.run('shell:echo out; ls /nope')).toString()).toBe('out\nls: /nope: No such file or directory\n');
    expect((await adb.run('exec:ls /nope')).toString()).toBe('ls: /nope: No such file or directory\n');
  });

  it('passes binary output through exec: untouched', async () => {
    expect(pngSize(await adb.run('exec:screencap -p'))).toEqual({ width: 1080, height: 2400 });
    const raw = await adb.run('exec:screencap');
    expect([raw.readUInt32LE(0), raw.readUInt32LE(4), raw.readUInt32LE(8)]).toEqual([1080, 2400, 1]);
    expect(raw.length).toBe(16 + 1080 * 2400 * 4);
  });

  it('turns LF into CR LF on a pty', async () => {
    const packets = shellPackets(await adb.run('shell,v2,pty:echo a; echo b'));
    expect(packets[0]!.data.toString()).toBe('a\r\nb\r\n');
    expect((await adb.run('shell,pty:echo c')).toString()).toBe('c\r\n');
  });

  it('gives `shell:` an interactive terminal: prompt, echo, output, exit', async () => {
    const s = (await adb.openStream('shell:'))!;
    const prompt = 'simdroid:/ $ ';
    expect(await s.readUntil((t) => t === prompt)).toBe(prompt);
    await s.write('getprop ro.product.model\r');
    expect(await s.readUntil((t) => t.endsWith(prompt))).toBe(`getprop ro.product.model\r\nSimDroid Pixel\r\n${prompt}`);
    await s.write('exti\x7f\x7fit\r');
    expect((await s.readAll()).toString()).toBe('exti\b \b\b \bit\r\n');
  });

  it('reads stdin lines without a pty and exits with the last status when stdin closes', async () => {
    const s = (await adb.openStream('shell,v2,raw:'))!;
    for (const p of [shellPacket(0, 'echo one\nfal'), shellPacket(0, 'se\n'), shellPacket(4, '')]) await s.write(p);
    const packets = shellPackets(await s.readAll());
    expect(packets.map((p) => [p.id, p.data.toString('latin1')])).toEqual([[1, 'one\n'], [3, '\x01']]);
  });

  it('feeds stdin to a command that reads it, once the host closes stdin', async () => {
    const s = (await adb.openStream('shell,v2,raw:cat > /sdcard/Download/in.txt; wc -c /sdcard/Download/in.txt'))!;
    for (const p of [shellPacket(0, 'hello '), shellPacket(0, 'stdin\n'), shellPacket(4, '')]) await s.write(p);
    const packets = shellPackets(await s.readAll());
    expect(packets[0]!.data.toString()).toBe('12\n');
    const e = (await adb.openStream('exec:sqlite3 /sdcard/Download/x.db'))!;
    await e.write('CREATE TABLE t(v); INSERT INTO t VALUES (42);');
    // Without the protocol, stdin ends when the host closes the stream (adb exec-in).
    e.close();
    expect((await adb.run('shell:sqlite3 /sdcard/Download/x.db "SELECT v FROM t"')).toString()).toBe('42\n');
  });
});

describe('logcat', () => {
  it('follows the log as `adb logcat` asks (export; exec logcat …) until the host closes the stream', async () => {
    host.device.shellBytes('logcat -b all -c');
    const s = (await adb.openStream(`shell,v2,raw:export ANDROID_LOG_TAGS="''" ; exec logcat '-v' 'brief' 'ActivityTaskManager:I' '*:S'`))!;
    // The session runs its line before it answers OKAY: the log is followed from now on.
    expect(host.device.log.following).toBe(1);
    host.device.shellBytes('am start -n com.simplemobiletools.smsmessenger/.activities.MainActivity');
    const text = await s.readUntil((t) => t.includes('smsmessenger'));
    expect(shellPackets(Buffer.from(text, 'latin1')).map((p) => p.data.toString())).toEqual([
      `I/ActivityTaskManager(  542): Displayed com.simplemobiletools.smsmessenger/.activities.MainActivity: +120ms\n`,
    ]);
    s.close();
    // The device handles the connection's messages in order: once this answers, the close was seen.
    await adb.run('shell:true');
    expect(host.device.log.following).toBe(0);
  });
});

describe('hostile shell input', () => {
  it('ends an interactive session whose line never ends, and a stream whose packet claims too much', async () => {
    const s = (await adb.openStream('shell,v2,raw:'))!;
    for (let i = 0; i < 3; i++) await s.write(shellPacket(0, Buffer.alloc(400_000, 0x61)));
    const packets = shellPackets(await s.readAll());
    expect(packets.map((p) => [p.id, p.data.toString('latin1')])).toEqual([[2, '/system/bin/sh: line too long\n'], [3, '\x01']]);
    const bad = (await adb.openStream('shell,v2,raw:cat'))!;
    const header = Buffer.alloc(5);
    header.writeUInt32LE(0xffffff00, 1);
    await bad.write(header);
    expect((await bad.readAll()).length).toBe(0);
    expect((await adb.run('shell:echo still')).toString()).toBe('still\n');
  });
});

describe('other services', () => {
  it('answers root:, remount: and reboot: like a userdebug emulator', async () => {
    expect((await adb.run('root:')).toString()).toBe('adbd is already running as root\n');
    expect((await adb.run('remount:')).toString()).toBe('remount succeeded\n');
    await adb.run('shell:settings put system font_scale 1.3; am start -n com.android.settings/.Settings');
    expect(host.device.wm.foreground().package).toBe('com.android.settings');
    const uptimeBefore = host.device.clock.uptimeMs();
    expect((await adb.run('reboot:')).length).toBe(0);
    expect(host.device.wm.foreground().package).toBe('com.google.android.apps.nexuslauncher');
    expect(host.device.clock.uptimeMs()).toBeLessThan(uptimeBefore + 1);
    expect((await adb.run('shell:settings get system font_scale')).toString()).toBe('1.3\n');
  });
});

/** A sync request: id, little-endian length, payload. */
function syncRequest(id: string, payload: Buffer | string | number): Buffer {
  const body = typeof payload === 'number' ? Buffer.alloc(0) : Buffer.from(payload);
  const h = Buffer.alloc(8);
  h.write(id, 0, 'latin1');
  h.writeUInt32LE(typeof payload === 'number' ? payload : body.length, 4);
  return Buffer.concat([h, body]);
}

describe('sync', () => {
  it('stats (v1 and v2) and lists (LIS2) in adbd\'s binary layout', async () => {
    await adb.run('shell:mkdir -p /sdcard/syn && echo 12345 > /sdcard/syn/f.txt');
    const s = (await adb.openStream('sync:'))!;
    await s.write(Buffer.concat([syncRequest('STAT', '/sdcard/syn/f.txt'), syncRequest('STAT', '/nope'), syncRequest('STA2', '/nope'), syncRequest('LIS2', '/sdcard/syn'), syncRequest('QUIT', 0)]));
    const r = await s.readAll();
    expect(r.toString('latin1', 0, 4)).toBe('STAT');
    expect([r.readUInt32LE(4).toString(8), r.readUInt32LE(8)]).toEqual(['100660', 6]);
    expect(r.subarray(16, 32).equals(Buffer.concat([Buffer.from('STAT'), Buffer.alloc(12)]))).toBe(true);
    expect(r.toString('latin1', 32, 36)).toBe('STA2');
    expect(r.readUInt32LE(36)).toBe(2);
    // LIS2: DNT2 entries of 76 bytes plus the name, then a 76-byte DONE.
    const names: string[] = [];
    let at = 32 + 72;
    while (r.toString('latin1', at, at + 4) === 'DNT2') {
      const len = r.readUInt32LE(at + 72);
      names.push(r.toString('utf8', at + 76, at + 76 + len));
      at += 76 + len;
    }
    expect(names).toEqual(['.', '..', 'f.txt']);
    expect(r.toString('latin1', at, at + 4)).toBe('DONE');
    expect(r.length).toBe(at + 76);
  });

  const refusals: Array<[string, string, string]> = [
    ['a directory', '/sdcard/syn,33206', "couldn't create file: Is a directory"],
    ['a live database', '/data/data/com.android.providers.contacts/databases/contacts2.db,33206', "couldn't create file: Text file busy"],
    ['below a file', '/sdcard/syn/f.txt/inside,33206', 'secure_mkdirs failed: Not a directory'],
    ['a symlink', '/sdcard/syn/link,41471', "couldn't create symlink: Operation not supported"],
    ['no mode', '/sdcard/syn/nomode', 'missing , in ID_SEND'],
  ];
  it.each(refusals)('refuses to push onto %s with FAIL, after draining the data', async (_what, spec, message) => {
    const s = (await adb.openStream('sync:'))!;
    await s.write(Buffer.concat([syncRequest('SEND', spec), syncRequest('DATA', 'abc'), syncRequest('DONE', 1700000000)]));
    const r = await s.readAll();
    expect(r.toString('latin1', 0, 4)).toBe('FAIL');
    expect(r.toString('utf8', 8)).toBe(message);
  });

  it('refuses an oversized DATA chunk, and keeps the device intact', async () => {
    const s = (await adb.openStream('sync:'))!;
    await s.write(Buffer.concat([syncRequest('SEND', '/sdcard/syn/big,420'), syncRequest('DATA', 65537)]));
    expect((await s.readAll()).toString('utf8', 8)).toBe('data too large');
    expect((await adb.run('shell:ls /sdcard/syn')).toString()).toBe('f.txt\n');
  });
});
