import { randomBytes } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import { Adb, type Client, type DeviceClient } from '@devicefarmer/adbkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHost } from '../../../emulators/simdroid/host.js';
import { AdbCli, freePort, pngSize, startHost, tempHome } from './helpers.js';

/** @devicefarmer/adbkit (3.3.9) against SimDroid through the real adb server. */
let host: EmulatorHost;
let cli: AdbCli;
let client: Client;
let device: DeviceClient;
let serial: string;
const home = tempHome();

function collect(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    stream.on('data', (c: Buffer) => parts.push(c));
    stream.on('end', () => resolve(Buffer.concat(parts)));
    stream.on('error', reject);
  });
}

beforeAll(async () => {
  host = await startHost({ authTokenPath: home.tokenPath });
  cli = new AdbCli(await freePort(), home.home);
  // Started by us, so the server has a private HOME (adbkit would start one with ours).
  await cli.ok(['start-server']);
  client = Adb.createClient({ port: cli.serverPort });
  serial = await client.connect('127.0.0.1', host.adbPort);
  await cli.ok(['-s', serial, 'wait-for-device']);
  device = client.getDevice(serial);
});
afterAll(async () => {
  await cli.killServer();
  await host.stop();
  home.remove();
});

describe('adbkit', () => {
  it('lists the device, and reads its properties', async () => {
    const devices: Array<{ id: string; type: string }> = await client.listDevices();
    expect(devices).toContainEqual({ id: serial, type: 'device' });
    expect((await device.getProperties())['ro.product.model']).toBe('SimDroid Pixel');
  });

  it('runs a v1 shell: raw output, stderr merged in', async () => {
    const out = await Adb.util.readAll(await device.shell('echo hi; ls /nope'));
    expect(out.toString()).toBe('hi\nls: /nope: No such file or directory\n');
    const bytes = await Adb.util.readAll(await device.shell('cat /data/data/com.android.providers.contacts/databases/contacts2.db'));
    expect(bytes.toString('latin1', 0, 16)).toBe('SQLite format 3\0');
  });

  it('takes a screenshot with screencap()', async () => {
    expect(pngSize(await collect(await device.screencap()))).toEqual({ width: 1080, height: 2400 });
  });

  it('stats and lists files through sync', async () => {
    await Adb.util.readAll(await device.shell('mkdir -p /sdcard/kit && echo eleven byte > /sdcard/kit/a.txt'));
    const st = await device.stat('/sdcard/kit/a.txt');
    expect(st.isFile()).toBe(true);
    expect(st.size).toBe(12);
    expect((await device.stat('/sdcard/kit')).isDirectory()).toBe(true);
    await expect(device.stat('/sdcard/kit/none')).rejects.toThrow(/ENOENT/);
    const entries: Array<{ name: string; size: number | bigint; isFile(): boolean }> = await device.readdir('/sdcard/kit');
    expect(entries.map((e) => [e.name, e.isFile(), Number(e.size)])).toEqual([['a.txt', true, 12]]);
  });

  it('pushes and pulls binary data', async () => {
    const data = randomBytes(200_000);
    const source = new PassThrough();
    source.end(data);
    const transfer = await device.push(source, '/sdcard/kit/blob.bin');
    await new Promise<void>((resolve, reject) => {
      transfer.on('end', () => resolve());
      transfer.on('error', reject);
    });
    expect((await collect(await device.pull('/sdcard/kit/blob.bin'))).equals(data)).toBe(true);
    // adbkit ends the transfer, then emits the device's FAIL as an error.
    const failed = await device.pull('/sdcard/kit/none');
    failed.resume();
    const error = await new Promise<Error>((resolve) => failed.on('error', resolve));
    expect(error.message).toContain('open failed: No such file or directory');
  });

  it('gets the already-root answer from root() and reboots', async () => {
    await expect(device.root()).rejects.toThrow('adbd is already running as root');
    expect(await device.reboot()).toBe(true);
  });
});
