import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHost } from '../../../emulators/simdroid/host.js';
import { startHost, tempHome } from './helpers.js';
import { CMD, HOST_BANNER, RawAdb, RawStream, frame, shellPackets } from './raw-adb.js';

/** The adbd transport spoken byte by byte: handshake, streams, flow control, and hostile input. */
let host: EmulatorHost;
const home = tempHome();
const log: string[] = [];

beforeAll(async () => {
  host = await startHost({ authTokenPath: home.tokenPath, log: (m) => log.push(m) });
});
afterAll(async () => {
  await host.stop();
  home.remove();
});

/** A fresh connection still gets its handshake and runs a command: the device is still serving. */
async function stillServing(): Promise<void> {
  const { adb } = await RawAdb.online(host.adbPort);
  expect((await adb.run('shell:echo alive')).toString()).toBe('alive\n');
  adb.close();
}

describe('handshake', () => {
  it('answers CNXN with its version, the negotiated maxdata and a device banner', async () => {
    const { adb, cnxn } = await RawAdb.online(host.adbPort, { maxdata: 256 * 1024 });
    expect(cnxn.arg0).toBe(0x01000001);
    expect(cnxn.arg1).toBe(256 * 1024);
    const banner = cnxn.data.toString();
    expect(banner).toMatch(/^device::ro\.product\.name=simdroid_x86_64;ro\.product\.model=SimDroid Pixel;ro\.product\.device=simdroid;features=/);
    expect(banner.split('features=')[1]!.split(',')).toEqual(expect.arrayContaining(['shell_v2', 'cmd', 'stat_v2', 'ls_v2', 'fixed_push_mkdir']));
    adb.close();
  });

  it('caps maxdata at 1 MiB and ignores stream messages sent before CNXN', async () => {
    const adb = await RawAdb.open(host.adbPort);
    adb.send(CMD.OPEN, 7, 0, 'shell:echo early\0');
    adb.send(CMD.CNXN, 0x01000001, 16 * 1024 * 1024, HOST_BANNER);
    const cnxn = await adb.next();
    expect(cnxn.command).toBe(CMD.CNXN);
    expect(cnxn.arg1).toBe(1024 * 1024);
    // The early OPEN got no answer: the next message is the reply to this one.
    expect((await adb.run('shell:echo late')).toString()).toBe('late\n');
    adb.close();
  });

  it('refuses a peer with an unknown protocol version', async () => {
    const adb = await RawAdb.open(host.adbPort);
    adb.send(CMD.CNXN, 0x00000001, 4096, HOST_BANNER);
    await adb.closed;
    await stillServing();
  });
});

describe('streams', () => {
  it('refuses unknown services with CLSE(0, id), as adbd does', async () => {
    const { adb } = await RawAdb.online(host.adbPort);
    for (const name of ['frobnicate:', 'tcp:5000', 'shell', 'jdwp:1', 'shellx:ls']) expect(await adb.openStream(name)).toBeNull();
    expect((await adb.run('shell:echo ok')).toString()).toBe('ok\n');
    adb.close();
  });

  it('never sends more than maxdata per WRTE, nor a second WRTE before the OKAY for the first', async () => {
    const { adb } = await RawAdb.online(host.adbPort, { maxdata: 4096 });
    await adb.run(`shell:echo ${'x'.repeat(3000)} > /sdcard/big.txt`);
    const big = (await adb.openStream(`exec:cat ${Array(5).fill('/sdcard/big.txt').join(' ')}`))!;
    const w1 = await adb.next();
    expect(w1.command).toBe(CMD.WRTE);
    expect(w1.data.length).toBe(4096);
    // Without our OKAY the device must hold its second WRTE: the next thing we see answers a new OPEN.
    const ping = (await adb.openStream('shell:echo ping'))!;
    expect((await adb.next())).toMatchObject({ command: CMD.WRTE, arg1: ping.local });
    adb.send(CMD.OKAY, ping.local, ping.remote);
    expect((await adb.next())).toMatchObject({ command: CMD.CLSE, arg1: ping.local });
    adb.send(CMD.OKAY, big.local, big.remote);
    const rest = await big.readAll({ maxPayload: 4096 });
    expect(w1.data.length + rest.length).toBe(5 * 3001);
    adb.close();
  });

  it('runs twenty streams at once on one connection, and two connections side by side', async () => {
    const [{ adb: a }, { adb: b }] = await Promise.all([RawAdb.online(host.adbPort), RawAdb.online(host.adbPort)]);
    // Twenty OPENs back to back: replies and output of all streams interleave on the connection.
    for (let i = 0; i < 20; i++) a.send(CMD.OPEN, 1000 + i, 0, `shell,v2,raw:echo stream-${i}\0`);
    const fromB = b.run('shell:getprop ro.serialno');
    const outputs = new Map<number, Buffer[]>();
    const ready = new Set<number>();
    for (let open = 20; open > 0;) {
      const m = await a.next();
      if (m.command === CMD.OKAY) ready.add(m.arg1);
      else if (m.command === CMD.WRTE) {
        outputs.set(m.arg1, [...(outputs.get(m.arg1) ?? []), m.data]);
        a.send(CMD.OKAY, m.arg1, m.arg0);
      } else if (m.command === CMD.CLSE) open--;
    }
    expect(ready.size).toBe(20);
    for (let i = 0; i < 20; i++) {
      const packets = shellPackets(Buffer.concat(outputs.get(1000 + i) ?? []));
      expect(packets[0]).toMatchObject({ id: 1 });
      expect(packets[0]!.data.toString()).toBe(`stream-${i}\n`);
      expect(packets.at(-1)).toMatchObject({ id: 3 });
    }
    expect((await fromB).toString()).toBe(`${host.serial}\n`);
    a.close();
    b.close();
  });

  it('closes a stream when the host sends CLSE, without answering it', async () => {
    const { adb } = await RawAdb.online(host.adbPort);
    const s = (await adb.openStream('shell:'))!;
    expect((await adb.next()).data.toString()).toBe('simdroid:/ $ ');
    adb.send(CMD.OKAY, s.local, s.remote);
    adb.send(CMD.CLSE, s.local, s.remote);
    // The next message is the reply to a new OPEN, not a CLSE echo.
    expect((await adb.run('shell:echo after')).toString()).toBe('after\n');
    adb.close();
  });
});

describe('hostile input', () => {
  const cases: Array<[string, (adb: RawAdb) => void]> = [
    ['a bad magic', (adb) => adb.write(frame(CMD.OPEN, 1, 0, 'shell:ls\0', { magic: 0x12345678 }))],
    ['a payload larger than maxdata', (adb) => adb.write(frame(CMD.WRTE, 1, 1, Buffer.alloc(8), { length: 4097 }))],
    ['an absurd payload length', (adb) => adb.write(frame(CMD.OPEN, 1, 0, Buffer.alloc(0), { length: 0xffffffff }))],
    ['an unknown command', (adb) => adb.write(frame(0x4b4e554a, 1, 2))],
    ['the obsolete SYNC on the wire', (adb) => adb.write(frame(CMD.SYNC, 1, 2))],
    ['garbage bytes', (adb) => adb.write(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'))],
  ];
  it.each(cases)('closes the connection on %s and keeps serving others', async (_name, attack) => {
    const { adb } = await RawAdb.online(host.adbPort, { maxdata: 4096 });
    const bystander = (await RawAdb.online(host.adbPort)).adb;
    attack(adb);
    await adb.closed;
    expect((await bystander.run('shell:echo bystander')).toString()).toBe('bystander\n');
    bystander.close();
    await stillServing();
  });

  it('checks checksums for a peer older than A_VERSION_SKIP_CHECKSUM, and only then', async () => {
    const { adb: old } = await RawAdb.online(host.adbPort, { version: 0x01000000 });
    expect((await old.run('shell:echo summed')).toString()).toBe('summed\n');
    old.write(frame(CMD.OPEN, 9, 0, 'shell:echo bad\0', { checksum: 1 }));
    await old.closed;
    // CNXN and the OPEN in one write: the OPEN is judged by the version its CNXN announced.
    const current = await RawAdb.open(host.adbPort);
    current.write(Buffer.concat([frame(CMD.CNXN, 0x01000001, 4096, HOST_BANNER), frame(CMD.OPEN, 9, 0, 'shell:echo unchecked\0', { checksum: 1 })]));
    expect((await current.next()).command).toBe(CMD.CNXN);
    const s = await current.next();
    expect(s.command).toBe(CMD.OKAY);
    expect((await new RawStream(current, 9, s.arg0).readAll()).toString()).toBe('unchecked\n');
    current.close();
  });

  it('ignores WRTE, OKAY and CLSE for streams that do not exist', async () => {
    const { adb } = await RawAdb.online(host.adbPort);
    adb.send(CMD.WRTE, 5, 4242, 'data for nobody');
    adb.send(CMD.OKAY, 5, 4243);
    adb.send(CMD.CLSE, 5, 4244);
    adb.send(CMD.OPEN, 0, 0, 'shell:echo no-local-id\0');
    expect((await adb.run('shell:echo fine')).toString()).toBe('fine\n');
    adb.close();
  });

  it('refuses service names that are too long or contain a NUL, and accepts one without the trailing NUL as adbd does', async () => {
    const { adb } = await RawAdb.online(host.adbPort);
    expect(await adb.openStream(`shell:echo ${'a'.repeat(70 * 1024)}`)).toBeNull();
    expect(await adb.openStream(Buffer.from('shell:echo a\0b\0'))).toBeNull();
    expect(await adb.openStream(Buffer.alloc(0))).toBeNull();
    const s = (await adb.openStream(Buffer.from('shell:echo unterminated')))!;
    expect((await s.readAll()).toString()).toBe('unterminated\n');
    adb.close();
  });

  it('survives a peer that disconnects in the middle of a message', async () => {
    const { adb } = await RawAdb.online(host.adbPort);
    adb.write(frame(CMD.OPEN, 1, 0, 'shell:echo never\0').subarray(0, 30));
    adb.close();
    const half = await RawAdb.open(host.adbPort);
    half.write(frame(CMD.CNXN, 0x01000001, 4096, HOST_BANNER).subarray(0, 10));
    half.close();
    await stillServing();
  });

  it('answers a sync request with a bad path length with FAIL and closes only that stream', async () => {
    const { adb } = await RawAdb.online(host.adbPort);
    const s = (await adb.openStream('sync:'))!;
    const req = Buffer.alloc(8);
    req.write('STAT', 0, 'latin1');
    req.writeUInt32LE(5000, 4);
    await s.write(req);
    const reply = await s.readAll();
    expect(reply.toString('latin1', 0, 4)).toBe('FAIL');
    expect(reply.toString('utf8', 8)).toBe('path too long');
    const u = (await adb.openStream('sync:'))!;
    await u.write(Buffer.from('JUNK\0\0\0\0'));
    expect((await u.readAll()).toString('utf8', 8)).toBe('unknown command 4b4e554a');
    expect((await adb.run('shell:echo unharmed')).toString()).toBe('unharmed\n');
    adb.close();
  });

  it('logs what it refused, naming the bad value', () => {
    expect(log.some((l) => /bad-magic: magic 0x12345678/.test(l))).toBe(true);
    expect(log.some((l) => /payload-too-large: .* 4294967295 bytes/.test(l))).toBe(true);
  });
});
