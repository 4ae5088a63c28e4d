import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { AdbCli, freePort, tempHome } from '../emulators/adb/helpers.js';

/**
 * A SimDroid as an AVD with gRPC looks to the workbench: its own process (`awb emulator start
 * --grpc`), announced to a private real adb server (Debian `adb` on its own port, never 5037), so
 * the server lists it as `emulator-NNNN`, and advertised in a private running-instances folder
 * (pid_<pid>.ini) where the workbench finds its gRPC port. `serveEnv` and `adbPort` point
 * `awb serve` at both, known before the emulator is up (so both can start at once). stop() kills
 * the emulator and the adb server and removes the folders.
 */
const AWB = fileURLToPath(new URL('../../bin/awb.js', import.meta.url));

export interface EmulatorRig {
  adb: AdbCli;
  /** The private adb server's port (`awb serve --adb-port`). */
  adbPort: number;
  /** Environment for `awb serve`: the running-instances folder. */
  serveEnv: NodeJS.ProcessEnv;
  /** `awb emulator start`; resolves once adb lists the instance online. `useToken`: `--grpc-use-token`. */
  start(opts?: { useToken?: boolean }): Promise<GrpcEmulator>;
  stop(): Promise<void>;
}

export interface GrpcEmulator {
  serial: string;
  consolePort: number;
  grpcPort: number;
}

/** An even console port whose adb (+1) and gRPC (+3000, the emulator's default) ports are free now. */
async function freeConsolePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const p = await freePort();
    const even = p - (p % 2);
    if (even < 1024 || even + 3000 > 65535) continue;
    return even;
  }
  throw new Error('no free even port');
}

async function listedOnline(adb: AdbCli, serial: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await adb.ok(['devices']);
    if (new RegExp(`^${serial}\\s+device$`, 'm').test(r.out)) return;
    if (Date.now() > deadline) throw new Error(`${serial} not listed online by adb after ${timeoutMs} ms: ${r.out}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

export async function openEmulatorRig(): Promise<EmulatorRig> {
  const home = tempHome();
  const running = mkdtempSync(join(tmpdir(), 'awb-avd-running-'));
  const adb = new AdbCli(await freePort(), home.home);
  const env = { ...process.env, HOME: home.home, AWB_HOME: home.home, AWB_AVD_RUNNING_DIR: running, ANDROID_ADB_SERVER_PORT: String(adb.serverPort) };
  let child: ChildProcess | null = null;
  const stop = async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const c = child;
      await new Promise<void>((resolve) => (c.once('exit', () => resolve()), c.kill('SIGTERM')));
    }
    await adb.killServer();
    home.remove();
    rmSync(running, { recursive: true, force: true });
  };
  try {
    await adb.ok(['start-server']);
  } catch (e) {
    await stop();
    throw e;
  }
  const start = async (opts: { useToken?: boolean } = {}): Promise<GrpcEmulator> => {
    let lastError = '';
    for (let attempt = 0; attempt < 5; attempt++) {
      const port = await freeConsolePort();
      const c = spawn(process.execPath, [AWB, 'emulator', 'start', '--port', String(port), '--json', ...(opts.useToken ? ['--grpc-use-token'] : [])], {
        env, stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      c.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      const line = await new Promise<string | null>((resolve) => {
        createInterface({ input: c.stdout! }).once('line', resolve);
        c.once('exit', () => resolve(null));
      });
      if (line) {
        child = c;
        const info = JSON.parse(line) as { serial: string; port: number; grpcPort: number };
        // The emulator told the adb server about itself (host:emulator:<adb port>): wait until it is listed online.
        await listedOnline(adb, info.serial);
        return { serial: info.serial, consolePort: info.port, grpcPort: info.grpcPort };
      }
      lastError = stderr; // a port taken meanwhile: try another
    }
    throw new Error(`awb emulator start failed: ${lastError}`);
  };
  return { adb, adbPort: adb.serverPort, serveEnv: { AWB_AVD_RUNNING_DIR: running }, start, stop };
}
