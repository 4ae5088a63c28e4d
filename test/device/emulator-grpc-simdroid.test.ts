import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AVD_RUNNING_DIR_ENV } from '../../core/device/adb/emulator-discovery.js';
import { EmulatorGrpcClient, EmulatorSnapshotError } from '../../core/device/adb/emulator-grpc.js';
import { parseRawScreencap } from '../../core/device/adb/screencap.js';
import { exec } from '../../core/device/adb/transport.js';
import type { AdbDevice } from '../../core/device/adb/adb-device.js';
import type { Frame } from '../../core/device/frames.js';
import { adbRig, type AdbRig } from './adb-env.js';

/**
 * The workbench's gRPC client against SimDroid's gRPC server (the emulator's API, token required),
 * found as Android Studio finds an emulator: through the discovery file SimDroid writes. One
 * SimDroid host and one real adb server for the file.
 */
const TOKEN = 'avd-grpc-token';
const running = mkdtempSync(join(tmpdir(), 'awb-avd-running-'));
let rig: AdbRig;
let device: AdbDevice;
const lines: string[] = [];

beforeAll(async () => {
  rig = await adbRig({ grpcPort: 0, grpcToken: TOKEN, discoveryDir: running, notifyAdbServer: false });
  device = rig.server.device(rig.serial, { consoleTokenPath: rig.tokenPath, log: (l) => lines.push(l), env: { [AVD_RUNNING_DIR_ENV]: running } });
});
afterAll(async () => {
  device?.close();
  await rig?.close();
  rmSync(running, { recursive: true, force: true });
});

const foreground = () => rig.host.device.wm.foreground().package;
const until = async (cond: () => boolean, ms = 5000) => {
  for (let t = 0; t < ms && !cond(); t += 10) await new Promise((r) => setTimeout(r, 10));
  expect(cond()).toBe(true);
};

describe('an AdbDevice on SimDroid over gRPC', () => {
  it('finds the endpoint and token in the discovery file; status and screenshots are the device\'s', async () => {
    const client = await device.grpcClient();
    expect(client?.endpoint).toEqual({ host: '127.0.0.1', port: rig.host.grpcPort, token: TOKEN });
    const status = await client!.getStatus();
    expect(status.booted).toBe(true);
    const raw = parseRawScreencap(await exec(rig.server.client.getDevice(rig.serial), rig.serial, 'screencap'));
    expect(status.hardware['hw.lcd.width']).toBe(String(raw.width));
    const img = await client!.getScreenshot('RGBA8888');
    expect([img.width, img.height]).toEqual([raw.width, raw.height]);
    expect(img.data.equals(raw.rgba)).toBe(true);
  });

  it('sends input through sendTouch/sendKey, not adb', async () => {
    const touch = vi.spyOn(EmulatorGrpcClient.prototype, 'sendTouch');
    const key = vi.spyOn(EmulatorGrpcClient.prototype, 'sendKey');
    try {
      await device.shell('am start -n com.android.settings/.Settings');
      await until(() => foreground() === 'com.android.settings');
      await device.input({ kind: 'key', key: 'HOME' });
      await until(() => foreground() !== 'com.android.settings');
      expect(key).toHaveBeenCalledWith({ kind: 'key', key: 'GoHome' });
      await device.input({ kind: 'swipe', x1: 500, y1: 1800, x2: 500, y2: 600, durationMs: 48 });
      // Down, a move per 16 ms, up.
      expect(touch.mock.calls.map((c) => c[0][0]!.pressure)).toEqual([1, 1, 1, 1, 0]);
      // Two callers at once: each gesture's touches stay together (one finger), the first sent first.
      touch.mockClear();
      await Promise.all([
        device.input({ kind: 'swipe', x1: 500, y1: 1800, x2: 500, y2: 900, durationMs: 32 }),
        device.input({ kind: 'tap', x: 100, y: 200 }),
      ]);
      expect(touch.mock.calls.map((c) => `${c[0][0]!.y}:${c[0][0]!.pressure}`)).toEqual(['1800:1', '1350:1', '900:1', '900:0', '200:1', '200:0']);
      expect(lines).toEqual([]);
    } finally {
      touch.mockRestore();
      key.mockRestore();
    }
  });

  it('saves, lists, loads and deletes snapshots through SnapshotService; an unknown one is a named error', async () => {
    await device.saveSnapshot('grpc-a');
    expect(await device.listSnapshots()).toContain('grpc-a');
    await device.shell('am start -n com.android.settings/.Settings');
    await until(() => foreground() === 'com.android.settings');
    await device.loadSnapshot('default_boot');
    expect(foreground()).not.toBe('com.android.settings');
    await expect(device.loadSnapshot('no-such')).rejects.toBeInstanceOf(EmulatorSnapshotError);
    await device.deleteSnapshot('grpc-a');
    expect(await device.listSnapshots()).not.toContain('grpc-a');
    expect(lines).toEqual([]);
  });

  it.each(['grpc-png', 'grpc-rgba'] as const)('mirrors through streamScreenshot (%s): half-size frames, a new one when the screen changes', async (emulator) => {
    await device.shell('input keyevent KEYCODE_HOME');
    const source = device.frames({ scale: 0.5, fps: 30, emulator });
    const frames: Frame[] = [];
    source.onFrame((f) => frames.push(f));
    source.start();
    try {
      await until(() => frames.length >= 1);
      expect(source.kind).toBe('push');
      const png = frames[0]!.png;
      expect(png.readUInt32BE(16)).toBe(Math.floor(rig.host.device.screen.width / 2));
      const before = frames.length;
      await device.shell('am start -n com.android.settings/.Settings');
      await until(() => frames.length > before);
      expect(new Set(frames.map((f) => f.path))).toEqual(new Set(['grpc-stream']));
    } finally {
      source.stop();
    }
  });

  it("polls screencap when the setting says 'adb-polling', though the device has gRPC", async () => {
    const source = device.frames({ scale: 0.5, fps: 30, emulator: 'adb-polling' });
    const frames: Frame[] = [];
    source.onFrame((f) => frames.push(f));
    source.start();
    try {
      await until(() => frames.length >= 1);
      expect(source.kind).toBe('poll');
      expect(frames[0]!.path).toBe('polling');
    } finally {
      source.stop();
    }
  });

  it('a wrong token: one logged line (UNAUTHENTICATED), and the device goes on over adb', async () => {
    const own: string[] = [];
    const wrong = rig.server.device(rig.serial, { grpc: { host: '127.0.0.1', port: rig.host.grpcPort!, token: 'wrong' }, log: (l) => own.push(l) });
    await wrong.input({ kind: 'key', key: 'HOME' });
    expect(own).toEqual([expect.stringMatching(/gRPC 127\.0\.0\.1:\d+ unusable \(.*UNAUTHENTICATED.*\); using adb$/)]);
    expect(await wrong.grpcClient()).toBeNull();
    wrong.close();
  });
});
