import { credentials, loadPackageDefinition, makeGenericClientConstructor, Metadata, status, type Client, type ServiceError } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHost } from '../../../emulators/simdroid/host.js';
import { pngSize, startHost } from '../adb/helpers.js';

/**
 * SimDroid's gRPC server against a plain @grpc/grpc-js client built from the proto files alone
 * (none of the workbench's code): every served method, auth, bad input, and a stream's cleanup.
 */
const PROTOS = join(import.meta.dirname, '../../../emulators/simdroid/grpc/proto');
const TOKEN = 'grpc-test-token';
const defs = loadSync(['emulator_controller.proto', 'snapshot_service.proto'], { includeDirs: [PROTOS], keepCase: true, longs: Number, enums: String, defaults: true });
type Ctor = new (address: string, creds: ReturnType<typeof credentials.createInsecure>, options?: object) => Client;
/** Full-size RGBA frames are ~10 MB, over grpc-js's 4 MB default (android_env lifts it the same way). */
const CHANNEL = { 'grpc.max_receive_message_length': -1 };
const control = (loadPackageDefinition(defs) as unknown as { android: { emulation: { control: Record<string, Ctor> } } }).android.emulation.control;

let host: EmulatorHost;
let emu: Client;
let snaps: Client;
const auth = new Metadata();
auth.set('authorization', `Bearer ${TOKEN}`);

/** A unary call; resolves with the reply or rejects with the ServiceError. */
function call<T = Record<string, unknown>>(client: Client, method: string, req: object, md = auth): Promise<T> {
  return new Promise((resolve, reject) => {
    (client as unknown as Record<string, (r: object, m: Metadata, cb: (e: ServiceError | null, v: T) => void) => void>)[method]!(req, md, (e, v) => (e ? reject(e) : resolve(v)));
  });
}
const code = (p: Promise<unknown>) => p.then(() => 'OK', (e: ServiceError) => status[e.code]);

interface Img { format: { width: number; height: number; format: string }; image: Buffer; seq: number }

/** Centre of the node with this text in SimDroid's UI dump. */
function centreOf(text: string): { x: number; y: number } {
  const m = new RegExp(`text="${text}"[^>]*bounds="\\[(\\d+),(\\d+)\\]\\[(\\d+),(\\d+)\\]"`).exec(host.device.uiXml())!;
  return { x: (Number(m[1]) + Number(m[3])) >> 1, y: (Number(m[2]) + Number(m[4])) >> 1 };
}
const foreground = () => host.device.wm.foreground().package;

beforeAll(async () => {
  host = await startHost({ grpcPort: 0, grpcToken: TOKEN, notifyAdbServer: false });
  emu = new control.EmulatorController!(`127.0.0.1:${host.grpcPort}`, credentials.createInsecure(), CHANNEL);
  snaps = new control.SnapshotService!(`127.0.0.1:${host.grpcPort}`, credentials.createInsecure(), CHANNEL);
});
afterAll(async () => {
  emu?.close();
  snaps?.close();
  await host?.stop();
});

describe('EmulatorController', () => {
  it('refuses calls without the bearer token, like -grpc-use-token', async () => {
    expect(await code(call(emu, 'getStatus', {}, new Metadata()))).toBe('UNAUTHENTICATED');
    const wrong = new Metadata();
    wrong.set('authorization', 'Bearer nope');
    expect(await code(call(emu, 'getStatus', {}, wrong))).toBe('UNAUTHENTICATED');
  });

  it('reports booted, uptime and the screen in hardwareConfig', async () => {
    const s = await call<{ booted: boolean; uptime: number; hardwareConfig: { entry: Array<{ key: string; value: string }> } }>(emu, 'getStatus', {});
    expect(s.booted).toBe(true);
    expect(s.uptime).toBeGreaterThanOrEqual(0);
    const hw = Object.fromEntries(s.hardwareConfig.entry.map((e) => [e.key, e.value]));
    expect(hw).toMatchObject({ 'hw.lcd.width': '1080', 'hw.lcd.height': '2400', 'hw.lcd.density': '420' });
  });

  it('takes screenshots in RGBA8888, RGB888 and PNG, scaled into the requested box keeping the aspect ratio', async () => {
    const rgba = await call<Img>(emu, 'getScreenshot', { format: 'RGBA8888' });
    expect(rgba.format).toMatchObject({ width: 1080, height: 2400, format: 'RGBA8888' });
    expect(rgba.image.equals(host.device.screenshotRaw().rgba)).toBe(true);
    const rgb = await call<Img>(emu, 'getScreenshot', { format: 'RGB888', width: 540 });
    expect(rgb.format).toMatchObject({ width: 540, height: 1200 });
    expect(rgb.image.length).toBe(540 * 1200 * 3);
    const png = await call<Img>(emu, 'getScreenshot', { format: 'PNG', width: 100, height: 100 });
    expect(pngSize(png.image)).toEqual({ width: 45, height: 100 });
    expect(png.format).toMatchObject({ width: 45, height: 100 });
    // Replies are serialized into one reused buffer: replies in flight together must each keep their own bytes.
    const [full, half, rgb2] = await Promise.all([
      call<Img>(emu, 'getScreenshot', { format: 'RGBA8888' }),
      call<Img>(emu, 'getScreenshot', { format: 'RGBA8888', width: 540 }),
      call<Img>(emu, 'getScreenshot', { format: 'RGB888', width: 540 }),
    ]);
    expect(full.image.equals(host.device.screenshotRaw().rgba)).toBe(true);
    expect(half.image.equals(host.device.screenshotRgba(540, 1200, 0.5).rgba)).toBe(true);
    expect(rgb2.image.equals(rgb.image)).toBe(true);
  });

  it('refuses absurd sizes and unknown methods and stays up', async () => {
    expect(await code(call(emu, 'getScreenshot', { format: 'RGBA8888', width: 100_000, height: 100_000 }))).toBe('INVALID_ARGUMENT');
    expect(await code(call(emu, 'getScreenshot', { format: 'PNG', transport: { channel: 'MMAP', handle: 'file:///tmp/x' } }))).toBe('UNIMPLEMENTED');
    const Raw = makeGenericClientConstructor({
      streamSensor: { path: '/android.emulation.control.EmulatorController/streamSensor', requestStream: false, responseStream: false, requestSerialize: (b: Buffer) => b, requestDeserialize: (b: Buffer) => b, responseSerialize: (b: Buffer) => b, responseDeserialize: (b: Buffer) => b },
      sendTouch: { path: '/android.emulation.control.EmulatorController/sendTouch', requestStream: false, responseStream: false, requestSerialize: (b: Buffer) => b, requestDeserialize: (b: Buffer) => b, responseSerialize: (b: Buffer) => b, responseDeserialize: (b: Buffer) => b },
    }, 'Raw');
    const raw = new Raw(`127.0.0.1:${host.grpcPort}`, credentials.createInsecure());
    try {
      expect(await code(call(raw, 'streamSensor', Buffer.alloc(0)))).toBe('UNIMPLEMENTED');
      // A truncated message: field 1 (touches) announces 50 bytes and ends.
      expect(await code(call(raw, 'sendTouch', Buffer.from([0x0a, 0x32, 0x08])))).toBe('INTERNAL');
    } finally {
      raw.close();
    }
    expect((await call<{ booted: boolean }>(emu, 'getStatus', {})).booted).toBe(true);
  });

  it('taps as a finger would through sendTouch (down, then up), and refuses bad touches', async () => {
    await call(emu, 'sendKey', { key: 'GoHome' });
    const icon = centreOf('Simple SMS Messenger');
    await call(emu, 'sendTouch', { touches: [{ ...icon, identifier: 7, pressure: 1 }] });
    expect(foreground()).not.toBe('com.simplemobiletools.smsmessenger'); // nothing happens until the finger lifts
    await call(emu, 'sendTouch', { touches: [{ ...icon, identifier: 7, pressure: 0 }] });
    expect(foreground()).toBe('com.simplemobiletools.smsmessenger');
    expect(await code(call(emu, 'sendTouch', { touches: [{ x: 1, y: 1, identifier: -2, pressure: 1 }] }))).toBe('INVALID_ARGUMENT');
    expect(await code(call(emu, 'sendTouch', { touches: [{ x: 1, y: 1, identifier: 1, pressure: 1 }], display: 3 }))).toBe('INVALID_ARGUMENT');
    const eleven = Array.from({ length: 11 }, (_, i) => ({ x: 10 * i, y: 10, identifier: i, pressure: 1 }));
    expect(await code(call(emu, 'sendTouch', { touches: eleven }))).toBe('INVALID_ARGUMENT');
  });

  it('sends keys by XKB and evdev code and by key value, and clicks with the mouse', async () => {
    expect(foreground()).toBe('com.simplemobiletools.smsmessenger');
    const inApp = host.device.uiXml();
    await call(emu, 'sendKey', { codeType: 'XKB', keyCode: 158 + 8 }); // KEY_BACK, as android_env sends on Linux
    expect(host.device.uiXml()).not.toBe(inApp);
    await call(emu, 'sendKey', { codeType: 'Evdev', keyCode: 172 }); // KEY_HOMEPAGE: Home
    const launcher = foreground();
    const icon = centreOf('Simple SMS Messenger');
    await call(emu, 'sendMouse', { ...icon, buttons: 1 });
    await call(emu, 'sendMouse', { ...icon, buttons: 0 });
    expect(foreground()).toBe('com.simplemobiletools.smsmessenger');
    await call(emu, 'sendKey', { key: 'GoHome' });
    expect(foreground()).toBe(launcher);
    expect(await code(call(emu, 'sendKey', { key: 'NoSuchKey' }))).toBe('INVALID_ARGUMENT');
    expect(await code(call(emu, 'sendKey', { codeType: 'Mac', keyCode: 36 }))).toBe('INVALID_ARGUMENT');
    expect(await code(call(emu, 'sendKey', {}))).toBe('INVALID_ARGUMENT');
  });

  it('streams a frame at once and another on each screen change; a cancelled stream is cleaned up', async () => {
    const listeners = () => (host.device as unknown as { changeListeners: Set<unknown> }).changeListeners.size;
    const before = listeners();
    const stream = (emu as unknown as { streamScreenshot(r: object, m: Metadata): NodeJS.ReadableStream & { cancel(): void } }).streamScreenshot({ format: 'RGBA8888', width: 270 }, auth);
    const ended = new Promise<ServiceError>((resolve) => stream.once('error', resolve));
    const frames: Img[] = [];
    const next = () => new Promise<Img>((resolve) => stream.once('data', resolve));
    frames.push(await next());
    expect(frames[0]!.format).toMatchObject({ width: 270, height: 600 });
    expect(listeners()).toBe(before + 1);
    const changed = next();
    await call(emu, 'sendKey', { key: 'AppSwitch' });
    frames.push(await changed);
    expect(frames[1]!.seq).toBeGreaterThan(frames[0]!.seq);
    expect(frames[1]!.image.equals(frames[0]!.image)).toBe(false);
    stream.cancel();
    expect((await ended).code).toBe(status.CANCELLED);
    for (let i = 0; i < 50 && listeners() !== before; i++) await new Promise((r) => setImmediate(r));
    expect(listeners()).toBe(before);
    expect((await call<{ booted: boolean }>(emu, 'getStatus', {})).booted).toBe(true);
  });
});

describe('SnapshotService', () => {
  it('lists, saves, loads and deletes SimDroid snapshots; failures come back in-band', async () => {
    const list = async () => (await call<{ snapshots: Array<{ snapshot_id: string; status: string }> }>(snaps, 'ListSnapshots', { statusFilter: 'All' })).snapshots;
    expect(await list()).toContainEqual(expect.objectContaining({ snapshot_id: 'default_boot', status: 'Loaded' }));
    await call(emu, 'sendKey', { key: 'GoHome' });
    expect(await call(snaps, 'SaveSnapshot', { snapshot_id: 'grpc-home' })).toMatchObject({ success: true });
    await call(emu, 'sendTouch', { touches: [{ ...centreOf('Simple SMS Messenger'), identifier: 0, pressure: 1 }] });
    await call(emu, 'sendTouch', { touches: [{ x: 0, y: 0, identifier: 0, pressure: 0 }] });
    expect(foreground()).toBe('com.simplemobiletools.smsmessenger');
    expect(await call(snaps, 'LoadSnapshot', { snapshot_id: 'grpc-home' })).toMatchObject({ success: true });
    expect(foreground()).not.toBe('com.simplemobiletools.smsmessenger');
    expect(await list()).toContainEqual(expect.objectContaining({ snapshot_id: 'grpc-home', status: 'Loaded' }));
    const missing = await call<{ success: boolean; err: Buffer }>(snaps, 'LoadSnapshot', { snapshot_id: 'nope' });
    expect(missing.success).toBe(false);
    expect(missing.err.toString()).toContain('nope');
    expect(await call(snaps, 'DeleteSnapshot', { snapshot_id: 'grpc-home' })).toMatchObject({ success: true });
    expect((await list()).map((s) => s.snapshot_id)).not.toContain('grpc-home');
    expect(await code(call(snaps, 'SaveSnapshot', { snapshot_id: '../x' }))).toBe('INVALID_ARGUMENT');
  });
});
