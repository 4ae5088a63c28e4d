import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulatorHost, type EmulatorHostOptions } from '../../emulators/simdroid/host.js';
import { AdbServer } from '../../core/device/adb/server.js';
import type { AdbDevice } from '../../core/device/adb/adb-device.js';
import { freePort } from '../emulators/adb/helpers.js';

/**
 * A private adb server (Debian's real `adb`) and SimDroid hosts serving ADB. Console ports are
 * derived from the process id (20000–23999, below the kernel's ephemeral range) so parallel test
 * files do not collide; an adb server's port is one the kernel has just found free, since a derived
 * one in 40000–59999 could be any connection's ephemeral port (`adb start-server` failed on one).
 */
let nextPort = 20000 + 2 * ((process.pid * 7) % 2000);

export function freshPorts(): { console: number } {
  const console = nextPort;
  nextPort += 2;
  return { console };
}

export interface AdbRig {
  server: AdbServer;
  serial: string;
  device: AdbDevice;
  host: Awaited<ReturnType<typeof startEmulatorHost>>;
  tokenPath: string;
  close(): Promise<void>;
}

/** `host`: more options for the SimDroid host (its gRPC port, token, discovery folder). */
export async function adbRig(host: Omit<EmulatorHostOptions, 'port' | 'authTokenPath'> = {}): Promise<AdbRig> {
  const ports = freshPorts();
  const dir = mkdtempSync(join(tmpdir(), 'awb-adb-'));
  const tokenPath = join(dir, 'console_token');
  writeFileSync(tokenPath, 'test-token-123\n');
  const emulator = await startEmulatorHost({ port: ports.console, authTokenPath: tokenPath, ...host });
  const adbServer = await freePort();
  const server = new AdbServer({ port: adbServer });
  execFileSync('adb', ['-P', String(adbServer), 'start-server'], { stdio: 'ignore' });
  const serial = await server.connect(emulator.address);
  const device = server.device(serial, { consoleTokenPath: tokenPath });
  return {
    server, serial, device, host: emulator, tokenPath,
    close: async () => {
      try {
        execFileSync('adb', ['-P', String(adbServer), 'kill-server'], { stdio: 'ignore' });
      } catch {
        // Already gone (a test killed it).
      }
      await emulator.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
