import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
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
  extraArgs?: string[];
  bootTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

export interface LaunchedAvd {
  serial: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function launchAvd(o: LaunchOptions): Promise<LaunchedAvd> {
  if (o.port % 2 !== 0 || o.port < 5554 || o.port > 5682) throw new RangeError(`AVD console port must be even, 5554–5682, got ${o.port}`);
  const args = ['-avd', o.name, '-port', String(o.port)];
  if (o.headless ?? true) args.push('-no-window', '-no-audio', '-no-boot-anim');
  if (o.grpcPort) args.push('-grpc', String(o.grpcPort));
  args.push(...(o.extraArgs ?? []));
  const child = spawn(emulatorBinary(o.env), args, { stdio: 'ignore', env: o.env ?? process.env });
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
  return { serial, process: child, stop };
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
