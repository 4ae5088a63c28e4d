import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHost } from '../../../emulators/simdroid/host.js';
import { existsSync } from 'node:fs';
import { PYTHON, PythonEnvMissingError } from '../../python-env.js';
import { AdbCli, freePort, startHost, tempHome } from '../adb/helpers.js';

/**
 * DeepMind's android_env (PyPI) attaches to a SimDroid as to an emulator it did not launch (adb,
 * console and gRPC ports given), through its own generated gRPC stubs and its adb controller; adbutils
 * (PyPI) is a second, independent adb client. One Python process runs them all (android_env_client.py).
 */
const SCRIPT = join(import.meta.dirname, 'android_env_client.py');
const home = tempHome();
let host: EmulatorHost;
let adb: AdbCli;
let observed: Record<string, unknown>;

/** The venv's Python; not requirePython(), whose torch/transformers import check costs ~20 s here for nothing. */
function runPython(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  if (!existsSync(PYTHON)) throw new PythonEnvMissingError(PYTHON, 'no such file');
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [SCRIPT, ...args], { env: { ...process.env, HOME: home.home, PYTHONDONTWRITEBYTECODE: '1' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

beforeAll(async () => {
  // The adb server runs first, so the emulator's start-up notice (host:emulator:<port>) registers
  // it as emulator-<console port>, the serial android_env derives from the adb port.
  adb = new AdbCli(await freePort(), home.home);
  await adb.ok(['start-server']);
  host = await startHost({ authTokenPath: home.tokenPath, grpcPort: 0, notifyAdbServer: adb.serverPort });
  await adb.ok(['-s', host.serial, 'wait-for-device']);
  const r = await runPython([String(host.adbPort), String(host.consolePort), String(host.grpcPort), String(adb.serverPort)]);
  if (r.code !== 0) throw new Error(`android_env_client.py exited ${r.code}: ${r.err.split('\n').slice(-8).join('\n')}`);
  observed = JSON.parse(r.out.trim().split('\n').pop()!) as Record<string, unknown>;
}, 120_000);
afterAll(async () => {
  await adb?.killServer();
  await host?.stop();
  home.remove();
});

describe('android_env attached to SimDroid', () => {
  it('connects over gRPC and sees the device booted, under the serial android_env expects', () => {
    expect(observed).toMatchObject({ device_name: host.serial, booted: true });
  });

  it('reads RGBA screenshots of the screen size whose pixels equal `adb exec-out screencap`', () => {
    expect(observed.screenshot_shape).toEqual([2400, 1080, 3]);
    expect(observed.screencap_shape).toEqual([2400, 1080, 3]);
    expect(observed.pixels_equal_screencap).toBe(true);
  });

  it('opens an app with a touch (down, up) and resets through LoadSnapshot', () => {
    expect(observed).toMatchObject({
      app_opened: true, screen_changed: true, load_default_boot: 'OK', app_gone_after_load: true, pixels_after_load_equal_first: true, load_missing: 'NOT_FOUND', save: 'OK',
    });
    expect(host.device.listSnapshotsSync()).toContain('android_env_saved');
  });

  it("android_env's AndroidEnv (loader.load + our task proto) resets, steps with touches that open an app, and ends the episode from logcat", () => {
    const env = observed.env as {
      observation_spec: Record<string, number[]>;
      reset: { step_type: string; pixels_shape: number[]; orientation: number[]; on_launcher: boolean };
      steps: Array<{ action: string; step_type: string; discount: number; timedelta_us: number; orientation: number[]; pixels_shape: number[]; pixels_equal_screencap: boolean }>;
      app_open_at_end: boolean;
      episode_steps: number;
    };
    expect(env.observation_spec).toEqual({ pixels: [2400, 1080, 3], timedelta: [], orientation: [4] });
    // The reset ran the task's reset step (HOME) and read the orientation through `dumpsys input`.
    expect(env.reset).toEqual({ step_type: 'FIRST', pixels_shape: [2400, 1080, 3], orientation: [1, 0, 0, 0], on_launcher: true });
    const [touch, ...lifts] = env.steps;
    expect(touch).toMatchObject({ action: 'TOUCH', step_type: 'MID' });
    expect(lifts[0]!.action).toBe('LIFT');
    for (const s of env.steps) {
      expect(s).toMatchObject({ pixels_shape: [2400, 1080, 3], pixels_equal_screencap: true, orientation: [1, 0, 0, 0] });
      expect(s.timedelta_us).toBeGreaterThan(0);
    }
    // Termination (discount 0) from the task's episode_end regexp on ActivityTaskManager's
    // "Displayed" line, not truncation at max_episode_steps (discount 1).
    const last = env.steps[env.steps.length - 1]!;
    expect(last).toMatchObject({ action: 'LIFT', step_type: 'LAST', discount: 0 });
    expect(env.app_open_at_end).toBe(true);
    expect(env.episode_steps).toBe(env.steps.length);
  });

  it('adbutils runs commands as a second adb client', () => {
    expect(observed.adbutils).toEqual({
      serials: [host.serial],
      echo: 'hello from adbutils',
      model: 'SimDroid Pixel',
      window_size: [1080, 2400],
      serialno: host.serial,
    });
  });
});
