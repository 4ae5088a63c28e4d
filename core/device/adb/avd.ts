import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { runningEmulators } from './emulator-discovery.js';
import type { AdbServer } from './server.js';

/**
 * Android Virtual Devices through the SDK's `emulator` tool: list them, launch one headless on
 * chosen ports, wait until it has booted. Needs ANDROID_HOME or ANDROID_SDK_ROOT.
 */
export class SdkNotFoundError extends Error {
  override name = 'SdkNotFoundError';
  constructor(readonly looked: string) {
    super(`No Android SDK emulator found (${looked}); set ANDROID_HOME or ANDROID_SDK_ROOT`);
  }
}

export class BootTimeoutError extends Error {
  override name = 'BootTimeoutError';
  constructor(readonly serial: string, readonly timeoutMs: number) {
    super(`${serial} did not finish booting within ${Math.round(timeoutMs / 1000)} s (sys.boot_completed != 1)`);
  }
}

/** The name the emulator gives an AVD's quick-boot snapshot (device.ts's BOOT_SNAPSHOT). */
const QUICK_BOOT = 'default_boot';

export class QuickBootSnapshotMissingError extends Error {
  override name = 'QuickBootSnapshotMissingError';
  /** `where`: the AVD name and the snapshot folder looked for, or the serial and the emulator's refusal. */
  constructor(readonly where: string, readonly detail: string) {
    super(`${where}: no quick-boot snapshot '${QUICK_BOOT}' (${detail}); make one: launch the AVD alone (\`awb avd launch NAME\`), `
      + `let it boot, then \`adb -s emulator-PORT emu avd snapshot save ${QUICK_BOOT}\` (or close it normally: the emulator saves it on exit)`);
  }
}

/**
 * The AVD's content folder: `path=` in <avd home>/<name>.ini, else <avd home>/<name>.avd. The AVD
 * home is $ANDROID_AVD_HOME, else $ANDROID_EMULATOR_HOME/avd, else $ANDROID_SDK_HOME/.android/avd,
 * else ~/.android/avd (the SDK's own order).
 */
export function avdDirectory(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const home = env.ANDROID_AVD_HOME
    || (env.ANDROID_EMULATOR_HOME && join(env.ANDROID_EMULATOR_HOME, 'avd'))
    || (env.ANDROID_SDK_HOME && join(env.ANDROID_SDK_HOME, '.android', 'avd'))
    || join(env.HOME || homedir(), '.android', 'avd');
  try {
    const path = /^path=(.+)$/m.exec(readFileSync(join(home, `${name}.ini`), 'utf8'))?.[1]?.trim();
    if (path) return isAbsolute(path) ? path : join(home, path);
  } catch {
    // No .ini: the folder next to where it would be.
  }
  return join(home, `${name}.avd`);
}

/** Throws QuickBootSnapshotMissingError unless the AVD has saved its quick-boot snapshot. */
export function requireQuickBootSnapshot(name: string, env: NodeJS.ProcessEnv = process.env): void {
  const dir = join(avdDirectory(name, env), 'snapshots', QUICK_BOOT);
  if (!existsSync(dir)) throw new QuickBootSnapshotMissingError(`AVD ${name}`, `${dir} does not exist`);
}

export function emulatorBinary(env: NodeJS.ProcessEnv = process.env): string {
  const sdk = env.ANDROID_HOME || env.ANDROID_SDK_ROOT;
  if (!sdk) throw new SdkNotFoundError('ANDROID_HOME and ANDROID_SDK_ROOT are unset');
  const bin = join(sdk, 'emulator', 'emulator');
  if (!existsSync(bin)) throw new SdkNotFoundError(bin);
  return bin;
}

function run(bin: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${bin} ${args.join(' ')} exited ${code}`))));
  });
}

export async function listAvds(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const out = await run(emulatorBinary(env), ['-list-avds']);
  // Newer emulators print INFO/WARNING lines before the names.
  return out.split('\n').map((l) => l.trim()).filter((l) => l && !/^(INFO|WARNING|ERROR)\b/.test(l));
}

export interface LaunchOptions {
  name: string;
  /** Even console port (adb = port + 1); 5554–5584 so a local adb server finds it by itself. */
  port: number;
  server: AdbServer;
  headless?: boolean;
  /** Also serve the emulator's gRPC control endpoint (the fast screenshot stream). */
  grpcPort?: number;
  /** `-grpc-use-token`: the endpoint wants the token the emulator writes into its discovery file. */
  grpcToken?: boolean;
  extraArgs?: string[];
  bootTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

export interface LaunchedAvd {
  serial: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export interface LaunchPlan {
  args: string[];
  /** Another instance of this AVD runs: this one is started -read-only (it writes nothing back to the AVD). */
  readOnly: boolean;
}

/**
 * The emulator's arguments. The emulator locks an AVD while it runs, so a second instance of the
 * same AVD must be `-read-only`; such an instance boots from the quick-boot snapshot and cannot
 * save one, so the snapshot must exist (QuickBootSnapshotMissingError otherwise).
 */
export function planLaunch(o: LaunchOptions): LaunchPlan {
  if (o.port % 2 !== 0 || o.port < 5554 || o.port > 5682) throw new RangeError(`AVD console port must be even, 5554–5682, got ${o.port}`);
  if (o.grpcPort !== undefined && (!Number.isInteger(o.grpcPort) || o.grpcPort < 1 || o.grpcPort > 65535)) throw new RangeError(`gRPC port must be 1–65535, got ${o.grpcPort}`);
  const env = o.env ?? process.env;
  const readOnly = runningEmulators(env).emulators.some((e) => e.avdName === o.name);
  if (readOnly) requireQuickBootSnapshot(o.name, env);
  const args = ['-avd', o.name, '-port', String(o.port)];
  if (o.headless ?? true) args.push('-no-window', '-no-audio', '-no-boot-anim');
  if (o.grpcPort) args.push('-grpc', String(o.grpcPort));
  if (o.grpcToken) args.push('-grpc-use-token');
  if (readOnly) args.push('-read-only');
  args.push(...(o.extraArgs ?? []));
  return { args, readOnly };
}

export async function launchAvd(o: LaunchOptions): Promise<LaunchedAvd & LaunchPlan> {
  const plan = planLaunch(o);
  const child = spawn(emulatorBinary(o.env), plan.args, { stdio: 'ignore', env: o.env ?? process.env });
  const serial = `emulator-${o.port}`;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    await Promise.race([
      waitForBoot(o.server, serial, o.bootTimeoutMs ?? 180_000),
      exited.then((code) => { throw new Error(`emulator for ${o.name} exited (${code}) before booting`); }),
    ]);
  } catch (e) {
    await stop();
    throw e;
  }
  return { serial, process: child, stop, ...plan };
}

/** Waits for the device to appear, then for `sys.boot_completed` to be 1. */
export async function waitForBoot(server: AdbServer, serial: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const listed = (await server.devices()).find((d) => d.serial === serial);
      if (listed?.state === 'device') {
        const r = await server.device(serial).shell('getprop sys.boot_completed');
        if (r.stdout.trim() === '1') return;
      }
    } catch {
      // The server or the device is still coming up.
    }
    if (Date.now() > deadline) throw new BootTimeoutError(serial, timeoutMs);
    await new Promise((r) => setTimeout(r, 500));
  }
}
