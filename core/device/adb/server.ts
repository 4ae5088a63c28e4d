import { createRequire } from 'node:module';
import type * as Adbkit from '@devicefarmer/adbkit';
import type { Client, Device as AdbListedDevice } from '@devicefarmer/adbkit';
import { AdbDevice, type AdbDeviceOptions } from './adb-device.js';

// adbkit is CommonJS whose named exports Node's ESM loader cannot detect; require() sees them
// the same way under Node, tsx and vitest. Loaded on the first AdbServer, not on import: every
// process that can reach a device imports this module (the rollout workers among them), and most
// never talk to adb; adbkit's load costs ~0.2 s of each worker's start.
let adbkit: typeof Adbkit | null = null;
const loadAdbkit = (): typeof Adbkit => (adbkit ??= createRequire(import.meta.url)('@devicefarmer/adbkit') as typeof Adbkit);

/**
 * The adb server the workbench talks to (Debian's `adb` or the SDK's): listing and tracking
 * devices, pairing by host:port (remote emulators are common in RL labs), and AdbDevices for the
 * runner. adbkit starts the server itself when it is not running (and again after it dies).
 */
export interface AdbServerOptions {
  /** Default: $ANDROID_ADB_SERVER_PORT, else 5037. */
  port?: number;
  host?: string;
  /** The adb binary used to start the server. */
  bin?: string;
}

export interface ListedDevice {
  serial: string;
  /** 'device', 'offline', 'unauthorized', … as adb reports it. */
  state: string;
}

export class AdbConnectError extends Error {
  override name = 'AdbConnectError';
  constructor(readonly address: string, reason: string) {
    super(`adb connect ${address}: ${reason}`);
  }
}

export function parseAddress(address: string): { host: string; port: number } {
  const m = /^([^:]+):(\d{1,5})$/.exec(address.trim());
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) throw new AdbConnectError(address, 'expected host:port');
  return { host: m[1]!, port: Number(m[2]) };
}

export class AdbServer {
  readonly client: Client;
  readonly port: number;

  constructor(opts: AdbServerOptions = {}) {
    this.port = opts.port ?? (Number(process.env.ANDROID_ADB_SERVER_PORT) || 5037);
    this.client = loadAdbkit().Adb.createClient({ port: this.port, ...(opts.host ? { host: opts.host } : {}), ...(opts.bin ? { bin: opts.bin } : {}) });
  }

  async devices(): Promise<ListedDevice[]> {
    const list: AdbListedDevice[] = await this.client.listDevices();
    return list.map((d) => ({ serial: d.id, state: d.type }));
  }

  /** Calls back on every change of the device list until the returned function is called. */
  async track(onChange: (devices: ListedDevice[]) => void): Promise<() => void> {
    const tracker = await this.client.trackDevices();
    const current = new Map<string, string>();
    const emit = () => onChange([...current].map(([serial, state]) => ({ serial, state })));
    tracker.on('add', (d: AdbListedDevice) => { current.set(d.id, d.type); emit(); });
    tracker.on('change', (d: AdbListedDevice) => { current.set(d.id, d.type); emit(); });
    tracker.on('remove', (d: AdbListedDevice) => { current.delete(d.id); emit(); });
    return () => tracker.end();
  }

  /** `adb connect host:port`; resolves with the serial once the device is online. */
  async connect(address: string, timeoutMs = 15_000): Promise<string> {
    const { host, port } = parseAddress(address);
    let serial: string;
    try {
      serial = await this.client.connect(host, port);
    } catch (e) {
      throw new AdbConnectError(address, (e as Error).message);
    }
    await this.waitFor(serial, timeoutMs);
    return serial;
  }

  async disconnect(address: string): Promise<void> {
    const { host, port } = parseAddress(address);
    await this.client.disconnect(host, port);
  }

  /** Waits until a device shows up in state 'device'. */
  async waitFor(serial: string, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const d = (await this.devices()).find((x) => x.serial === serial);
      if (d?.state === 'device') return;
      if (Date.now() > deadline) throw new AdbConnectError(serial, d ? `still ${d.state} after ${timeoutMs} ms` : `not listed after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  device(serial: string, opts: Omit<AdbDeviceOptions, 'serial' | 'server'> = {}): AdbDevice {
    return new AdbDevice({ ...opts, serial, server: this });
  }

  /**
   * The adb features the device advertised when it connected (shell_v2, stat_v2, …), from the
   * server (`host-serial:<serial>:features`), not the device's hardware features.
   */
  async features(serial: string): Promise<Set<string>> {
    const conn = await this.client.connection();
    try {
      const request = Buffer.from(`host-serial:${serial}:features`, 'utf8');
      conn.write(Buffer.concat([Buffer.from(request.length.toString(16).padStart(4, '0'), 'ascii'), request]));
      const reply = await conn.parser.readAscii(4);
      const len = parseInt(await conn.parser.readAscii(4), 16);
      const text = (await conn.parser.readBytes(len)).toString('utf8');
      if (reply !== 'OKAY') throw new AdbConnectError(serial, text);
      return new Set(text.split(',').filter(Boolean));
    } finally {
      conn.end();
    }
  }

  async kill(): Promise<void> {
    await this.client.kill();
  }
}
