import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { boundsCenter, findFirst, flattenUiTree, parseUiTree, type UiSelector } from '../../../core/a11y/ui-tree.js';
import { extractDump } from '../../../core/device/adb/adb-device.js';
import { EmulatorPortInUseError, startEmulatorHost, type EmulatorHost, type EmulatorHostOptions } from '../../../emulators/simdroid/host.js';

/**
 * Helpers for the adb tests: SimDroid hosts on free ports, and the real `adb` binary talking to a
 * private adb server with its own HOME (its own adbkey and console token), killed afterwards.
 */

/** Console ports for this file: 30000–39998, away from test/device's 20000–24000, spread by pid. */
let nextConsolePort = 30000 + 2 * ((process.pid * 13) % 4900);

export async function startHost(opts: Omit<EmulatorHostOptions, 'port'> = {}): Promise<EmulatorHost> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = nextConsolePort;
    nextConsolePort = nextConsolePort >= 39990 ? 30000 : nextConsolePort + 2;
    try {
      return await startEmulatorHost({ ...opts, port });
    } catch (e) {
      if (!(e instanceof EmulatorPortInUseError)) throw e;
    }
  }
  throw new Error('no free emulator port pair in 30000–39999');
}

/** A port nobody listens on right now (the kernel's pick). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface RunResult {
  stdout: Buffer;
  stderr: Buffer;
  code: number | null;
  out: string;
  err: string;
}

/** A temporary HOME holding the console token, as `adb emu` and the emulator expect it. */
export function tempHome(token = 'simdroid-test-token'): { home: string; tokenPath: string; remove(): void } {
  const home = mkdtempSync(join(tmpdir(), 'awb-adb-home-'));
  const tokenPath = join(home, '.emulator_console_auth_token');
  writeFileSync(tokenPath, token);
  return { home, tokenPath, remove: () => rmSync(home, { recursive: true, force: true }) };
}

/** `adb -P <port> …` with a private HOME; stdin is the given input, or empty. */
export class AdbCli {
  constructor(readonly serverPort: number, readonly home: string) {}

  run(args: string[], input?: Buffer | string): Promise<RunResult> {
    return new Promise((resolve, reject) => {
      const child = spawn('adb', ['-P', String(this.serverPort), ...args], {
        env: { ...process.env, HOME: this.home, ANDROID_SERIAL: '' },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (c: Buffer) => out.push(c));
      child.stderr.on('data', (c: Buffer) => err.push(c));
      child.on('error', reject);
      child.on('close', (code) => {
        const stdout = Buffer.concat(out);
        const stderr = Buffer.concat(err);
        resolve({ stdout, stderr, code, out: stdout.toString('utf8'), err: stderr.toString('utf8') });
      });
      // adb may exit without reading its stdin (e.g. a refused connection): that EPIPE is no error.
      child.stdin.on('error', () => {});
      child.stdin.end(input ?? '');
    });
  }

  /** Like run, but throws unless adb exits 0. */
  async ok(args: string[], input?: Buffer | string): Promise<RunResult> {
    const r = await this.run(args, input);
    if (r.code !== 0) throw new Error(`adb ${args.join(' ')} exited ${r.code}: ${r.err || r.out}`);
    return r;
  }

  async killServer(): Promise<void> {
    await this.run(['kill-server']);
  }
}

/**
 * A SimDroid and Debian's real adb on a private server (its own HOME: `home`), connected (`adb connect` +
 * `wait-for-device`), with a scratch folder; `sh(...)` is `adb -s <address> shell ...`. close() stops both and removes the folders.
 */
export async function connectedAdb(scratchPrefix: string): Promise<{
  host: EmulatorHost; adb: AdbCli; home: ReturnType<typeof tempHome>; scratch: string; sh: (...args: string[]) => Promise<RunResult>; close(): Promise<void>;
}> {
  const home = tempHome();
  const scratch = mkdtempSync(join(tmpdir(), scratchPrefix));
  const host = await startHost({ authTokenPath: home.tokenPath });
  const adb = new AdbCli(await freePort(), home.home);
  await adb.ok(['start-server']);
  await adb.ok(['connect', host.address]);
  await adb.ok(['-s', host.address, 'wait-for-device']);
  return {
    host, adb, home, scratch,
    sh: (...args) => adb.run(['-s', host.address, 'shell', ...args]),
    close: async () => {
      await adb.killServer();
      await host.stop();
      home.remove();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/**
 * The screen as an agent reads it over adb (`uiautomator dump /dev/tty`, flattened), and a tap at a node's centre
 * with `input tap`, as AndroidWorld's click does.
 */
export function adbScreen(sh: (...args: string[]) => Promise<RunResult>) {
  const screen = async () => {
    const out = (await sh('uiautomator dump /dev/tty')).out;
    const xml = extractDump(out);
    if (xml === null) throw new Error(`uiautomator dump gave no hierarchy: ${out.slice(0, 200)}`);
    return flattenUiTree(parseUiTree(xml));
  };
  const center = async (sel: UiSelector) => {
    const el = findFirst(await screen(), sel);
    if (!el) throw new Error(`no ${JSON.stringify(sel)} on screen`);
    return boundsCenter(el.node.bounds);
  };
  const tap = async (sel: UiSelector) => {
    const c = await center(sel);
    expect((await sh(`input tap ${c.x} ${c.y}`)).code).toBe(0);
  };
  return { screen, center, tap };
}

/** Width and height from a PNG's IHDR chunk, after checking the signature. */
export function pngSize(png: Buffer): { width: number; height: number } {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (!png.subarray(0, 8).equals(signature) || png.toString('latin1', 12, 16) !== 'IHDR') {
    throw new Error(`not a PNG: ${png.subarray(0, 16).toString('hex')}`);
  }
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
