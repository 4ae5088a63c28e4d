import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AVD_RUNNING_DIR_ENV, discoveryDirectories, emulatorForSerial, runningEmulators,
} from '../../core/device/adb/emulator-discovery.js';
import {
  imageFormatRequest, imageFromReply, keyRequest, loadEmulatorProto, touchRequest,
} from '../../core/device/adb/emulator-grpc.js';
import { EmulatorGrpcLink, GRPC_KEYS } from '../../core/device/adb/grpc-link.js';
import { planLaunch, QuickBootSnapshotMissingError } from '../../core/device/adb/avd.js';
import { AdbServer } from '../../core/device/adb/server.js';
import type { Frame } from '../../core/device/frames.js';
import { KEYS } from '../../core/device/device.js';
import { adbRig, type AdbRig } from './adb-env.js';

/**
 * The workbench's side of the emulator's gRPC API: request shapes against the proto files,
 * discovery files as the emulator writes them (live, stale, garbage), the fallback to adb when an
 * endpoint cannot be used, and `awb avd launch`'s arguments. No real emulator runs here.
 */
const dir = mkdtempSync(join(tmpdir(), 'awb-avd-running-'));
const env = { ...process.env, [AVD_RUNNING_DIR_ENV]: dir };
const deadPid = spawnSync('true').pid!;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A port nothing listens on (bound, then released). */
async function refusedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

describe('request shapes against the emulator proto files', () => {
  const def = loadEmulatorProto().definition;
  const controller = def['android.emulation.control.EmulatorController'] as Record<string, {
    requestSerialize(v: unknown): Buffer; requestDeserialize(b: Buffer): unknown; responseSerialize(v: unknown): Buffer; responseDeserialize(b: Buffer): unknown;
  }>;
  const snapshots = def['android.emulation.control.SnapshotService'] as typeof controller;
  // A field name the proto does not have would be dropped by the encoder: the round trip would differ.
  const roundTrip = (m: { requestSerialize(v: unknown): Buffer; requestDeserialize(b: Buffer): unknown }, req: object) =>
    expect(m.requestDeserialize(m.requestSerialize(req))).toMatchObject(req);

  it('encodes touches, keys, image formats and snapshot names with the proto field names', () => {
    const touch = touchRequest([{ x: 10.4, y: 2399.6, pressure: 1 }, { x: 5, y: 6, identifier: 1, pressure: 0 }]);
    expect(touch.touches[0]).toEqual({ x: 10, y: 2400, identifier: 0, pressure: 1 });
    roundTrip(controller.sendTouch!, touch);
    // TouchEvent.touches is field 1 (tag 0x0a); in Touch x, y, identifier, pressure are fields 1–4; display is field 2.
    expect(controller.sendTouch!.requestSerialize(touchRequest([{ x: 3, y: 4, pressure: 1 }])).toString('hex')).toBe('0a08' + '0803' + '1004' + '1800' + '2001' + '1000');
    for (const k of KEYS) roundTrip(controller.sendKey!, keyRequest(GRPC_KEYS[k]));
    roundTrip(controller.sendKey!, keyRequest({ kind: 'text', text: 'héllo wörld' }));
    roundTrip(controller.sendKey!, keyRequest({ kind: 'evdev', keyCode: 158, eventType: 'keydown' }));
    roundTrip(controller.getScreenshot!, imageFormatRequest('RGBA8888', 540, 1200));
    expect(() => imageFormatRequest('PNG', -1, 10)).toThrow(RangeError);
    for (const m of ['LoadSnapshot', 'SaveSnapshot', 'DeleteSnapshot']) roundTrip(snapshots[m]!, { snapshot_id: 'default_boot' });
  });

  it('reads an Image reply: sizes from its format, pixels, sequence number', () => {
    const reply = { format: { format: 'RGBA8888', width: 2, height: 1 }, image: Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]), seq: 7, timestampUs: 1_700_000_000_000_000 };
    const img = imageFromReply(controller.getScreenshot!.responseDeserialize(controller.getScreenshot!.responseSerialize(reply)) as Parameters<typeof imageFromReply>[0]);
    expect(img).toEqual({ format: 'RGBA8888', width: 2, height: 1, data: reply.image, seq: 7, timestampUs: 1_700_000_000_000_000 });
  });
});

describe('discovery files of running emulators', () => {
  beforeAll(() => {
    writeFileSync(join(dir, `pid_${process.pid}.ini`), 'avd.name=Pixel_6_API_33\navd.id=Pixel_6_API_33\nport.serial=5556\nport.adb=5557\ngrpc.port=8556\ngrpc.token=c2VjcmV0\ngrpc.jwks=/x\n');
    writeFileSync(join(dir, `pid_${deadPid}.ini`), 'port.serial=5554\nport.adb=5555\ngrpc.port=8554\n');
    // Written by a live process (ours) but not discovery files: garbage, a port that is not one.
    writeFileSync(join(dir, `pid_${process.ppid}.ini`), Buffer.from([0x89, 0x50, 0x00, 0xff]));
    writeFileSync(join(dir, 'pid_1.ini'), 'port.serial=5558\ngrpc.port=99999\n');
    writeFileSync(join(dir, 'notes.ini'), 'port.serial=5560\n');
  });

  it('reads live ones, leaves stale ones out, names the unreadable ones', () => {
    const found = runningEmulators(env);
    expect(found.emulators).toEqual([expect.objectContaining({
      pid: process.pid, consolePort: 5556, adbPort: 5557, grpcPort: 8556, grpcToken: 'c2VjcmV0', avdName: 'Pixel_6_API_33', jwt: true,
    })]);
    expect(found.unreadable.map((e) => e.reason).sort()).toEqual(['binary content', 'grpc.port="99999" is not a port']);
    expect(emulatorForSerial('emulator-5556', found.emulators)?.grpcPort).toBe(8556);
    expect(emulatorForSerial('127.0.0.1:5557', found.emulators)?.pid).toBe(process.pid);
    expect(emulatorForSerial('emulator-5554', found.emulators)).toBeNull();
    expect(emulatorForSerial('10.0.0.2:5557', found.emulators)).toBeNull();
  });

  it('looks where the emulator writes them, unless AWB_AVD_RUNNING_DIR says where', () => {
    expect(discoveryDirectories(env)).toEqual([dir]);
    const dirs = discoveryDirectories({ HOME: '/h', XDG_RUNTIME_DIR: '/run/user/7', ANDROID_EMULATOR_HOME: '/e' }, 'linux');
    expect(dirs.slice(0, 3)).toEqual(['/e/avd/running', '/h/.android/avd/running', '/run/user/7/avd/running']);
    expect(discoveryDirectories({ HOME: '/h' }, 'darwin')).toContain('/h/Library/Caches/TemporaryItems/avd/running');
  });

  it('a discovered endpoint that refuses falls back with one logged line; an explicit port takes its emulator\'s token', async () => {
    const lines: string[] = [];
    const explicit = new EmulatorGrpcLink({ serial: 'emulator-5556', setting: { host: '127.0.0.1', port: 8556 }, log: (l) => lines.push(l), env });
    expect(explicit.endpoint()).toEqual({ host: '127.0.0.1', port: 8556, token: 'c2VjcmV0' });
    const port = await refusedPort();
    const link = new EmulatorGrpcLink({ serial: 'emulator-5556', setting: { host: '127.0.0.1', port }, log: (l) => lines.push(l), env, connectTimeoutMs: 300 });
    expect(await link.client()).toBeNull();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^emulator-5556: gRPC 127\\.0\\.0\\.1:${port} unusable \\(.*UNAVAILABLE.*\\); using adb$`));
    expect(lines[0]).not.toContain('\n');
  });
});

describe('AdbDevice without a usable gRPC endpoint works over adb', () => {
  let rig: AdbRig;
  beforeAll(async () => { rig = await adbRig(); });
  afterAll(async () => rig?.close());

  it('input and mirroring fall back to adb, with the reason logged once', async () => {
    const lines: string[] = [];
    const port = await refusedPort();
    const device = new AdbServer({ port: rig.server.port }).device(rig.serial, {
      grpc: { host: '127.0.0.1', port }, log: (l) => lines.push(l), consoleTokenPath: rig.tokenPath,
    });
    await device.input({ kind: 'key', key: 'HOME' });
    await device.input({ kind: 'tap', x: 10, y: 10 });
    expect(lines).toEqual([expect.stringMatching(/unusable .*UNAVAILABLE.*; using adb$/)]);
    const frames = device.frames({ fps: 20, scale: 0.5 });
    const got: Frame[] = [];
    frames.onFrame((f) => got.push(f));
    frames.start();
    for (let t = 0; t < 10_000 && got.length === 0; t += 20) await new Promise((r) => setTimeout(r, 20));
    frames.stop();
    expect(frames.kind).toBe('poll');
    expect(got[0]!.png.subarray(1, 4).toString()).toBe('PNG');
    // A reset to a snapshot over the console still works (the SimDroid boot snapshot).
    await device.loadSnapshot('default_boot');
    device.close();
  });

  it('a garbage discovery file for the device is named in the log, and adb is used', async () => {
    const garbage = mkdtempSync(join(tmpdir(), 'awb-avd-garbage-'));
    try {
      writeFileSync(join(garbage, `pid_${process.pid}.ini`), 'port.serial=not-a-port\n');
      const lines: string[] = [];
      const device = rig.server.device(rig.serial, { log: (l) => lines.push(l), env: { [AVD_RUNNING_DIR_ENV]: garbage } });
      await device.input({ kind: 'key', key: 'BACK' });
      expect(lines).toEqual([`${rig.serial}: no gRPC endpoint found (1 unreadable discovery file(s); emulator discovery file ${join(garbage, `pid_${process.pid}.ini`)}: port.serial="not-a-port" is not a port); using adb`]);
    } finally {
      rmSync(garbage, { recursive: true, force: true });
    }
  });
});

describe('awb avd launch arguments', () => {
  const avdHome = join(dir, 'avd-home');
  const launchEnv = { ...env, ANDROID_AVD_HOME: avdHome };
  const server = new AdbServer({ port: 1 });

  it('a first instance: -grpc and -grpc-use-token as asked, not read-only', () => {
    const plan = planLaunch({ name: 'SimDroid_Test', port: 5580, server, grpcPort: 8580, grpcToken: true, env: launchEnv });
    expect(plan).toEqual({ readOnly: false, args: ['-avd', 'SimDroid_Test', '-port', '5580', '-no-window', '-no-audio', '-no-boot-anim', '-grpc', '8580', '-grpc-use-token'] });
  });

  it('a second instance of a running AVD is -read-only, and needs the quick-boot snapshot', () => {
    // Pixel_6_API_33 runs (the live discovery file above).
    const second = { name: 'Pixel_6_API_33', port: 5580, server, env: launchEnv };
    const err = (() => { try { planLaunch(second); } catch (e) { return e; } })();
    expect(err).toBeInstanceOf(QuickBootSnapshotMissingError);
    expect((err as Error).message).toContain(join(avdHome, 'Pixel_6_API_33.avd', 'snapshots', 'default_boot'));
    expect((err as Error).message).toMatch(/make one: .*emu avd snapshot save default_boot/);
    // The AVD's .ini can place its folder elsewhere, as avdmanager writes it.
    mkdirSync(join(dir, 'elsewhere', 'snapshots', 'default_boot'), { recursive: true });
    mkdirSync(avdHome, { recursive: true });
    writeFileSync(join(avdHome, 'Pixel_6_API_33.ini'), `avd.ini.encoding=UTF-8\npath=${join(dir, 'elsewhere')}\n`);
    expect(planLaunch(second).args.slice(-1)).toEqual(['-read-only']);
  });
});
