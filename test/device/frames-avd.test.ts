import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { PollingFrameSource, type Frame } from '../../core/device/frames.js';
import { SimDroidFrameSource } from '../../emulators/simdroid/frames.js';
import { launchAvd, listAvds, SdkNotFoundError } from '../../core/device/adb/avd.js';
import { AdbServer } from '../../core/device/adb/server.js';
import { device, tap } from '../helpers/simdroid.js';

const until = async (cond: () => boolean, ms = 5000) => {
  for (let t = 0; t < ms && !cond(); t += 10) await new Promise((r) => setTimeout(r, 10));
  expect(cond()).toBe(true);
};

describe('frame sources', () => {
  it('SimDroid pushes a frame when the screen changes, and only then', async () => {
    const d = device();
    const src = new SimDroidFrameSource(d, { maxFps: 30 });
    const frames: Frame[] = [];
    src.onFrame((f) => frames.push(f));
    src.start();
    await until(() => frames.length === 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(frames).toHaveLength(1);
    d.shellBytes('am start -n com.android.settings/.Settings');
    tap(d, { text: 'Display' });
    await until(() => frames.length >= 2);
    const last = frames.at(-1)!;
    expect(last.at - last.changedAt!).toBeLessThan(1000);
    expect(last.png.subarray(1, 4).toString()).toBe('PNG');
    src.stop();
    d.close();
  });

  it('a polled device emits a frame when its screenshot changes', async () => {
    const d = device();
    const src = new PollingFrameSource(d, { fps: 50, scale: 0.5 });
    const frames: Frame[] = [];
    src.onFrame((f) => frames.push(f));
    src.start();
    await until(() => frames.length === 1);
    await new Promise((r) => setTimeout(r, 120));
    expect(frames).toHaveLength(1);
    d.shellBytes('am start -n com.android.settings/.Settings');
    await until(() => frames.length === 2);
    src.stop();
    d.close();
  });
});

describe('AVDs through the SDK emulator tool', () => {
  const sdk = resolve('test/fixtures/fake-sdk');
  const temps: string[] = [];
  afterAll(() => temps.forEach((t) => rmSync(t, { recursive: true, force: true })));

  it('needs ANDROID_HOME or ANDROID_SDK_ROOT', async () => {
    await expect(listAvds({})).rejects.toBeInstanceOf(SdkNotFoundError);
  });

  it('lists AVDs and launches one headless, waiting for boot', async () => {
    expect(await listAvds({ ANDROID_HOME: sdk })).toEqual(['Pixel_6_API_33', 'SimDroid_Test']);
    // The fake SDK's emulator starts SimDroid on the requested port; on the default range a
    // fresh adb server finds it by itself as emulator-NNNN.
    const home = mkdtempSync(join(tmpdir(), 'awb-avd-'));
    temps.push(home);
    writeFileSync(join(home, '.emulator_console_auth_token'), '');
    const adbPort = 41000 + (process.pid % 10000);
    const server = new AdbServer({ port: adbPort });
    execFileSync('adb', ['-P', String(adbPort), 'start-server'], { stdio: 'ignore' });
    // The launched emulator tells this server about itself, as the real one does.
    const argsFile = join(home, 'emulator-args');
    const env = {
      ...process.env, ANDROID_HOME: sdk, HOME: home, AWB_HOME: home, ANDROID_ADB_SERVER_PORT: String(adbPort),
      FAKE_EMULATOR_ARGS: argsFile, AWB_AVD_RUNNING_DIR: join(home, 'running'),
    };
    try {
      const avd = await launchAvd({ name: 'SimDroid_Test', port: 5582, server, env, bootTimeoutMs: 30_000, grpcPort: 8582, grpcToken: true });
      expect(avd.serial).toBe('emulator-5582');
      expect(readFileSync(argsFile, 'utf8').split('\n')).toEqual(expect.arrayContaining(['-avd', 'SimDroid_Test', '-port', '5582', '-grpc', '8582', '-grpc-use-token']));
      expect(avd.readOnly).toBe(false);
      expect((await server.device(avd.serial).shell('getprop sys.boot_completed')).stdout.trim()).toBe('1');
      await avd.stop();
    } finally {
      execFileSync('adb', ['-P', String(adbPort), 'kill-server'], { stdio: 'ignore' });
    }
  });
});
