import type { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { SimDroidFrameSource } from '../../emulators/simdroid/frames.js';
import { startEmulatorHost, type EmulatorHost } from '../../emulators/simdroid/host.js';
import { isRotationCapable, isTouchStreamCapable, type Device, type Rotation, type TouchAction } from '../device/device.js';
import { PollingFrameSource, type EmulatorMirror, type FrameSource } from '../device/frames.js';
import type { AdbServer } from '../device/adb/server.js';
import type { AdbDevice } from '../device/adb/adb-device.js';
import { launchAvd, listAvds, SdkNotFoundError } from '../device/adb/avd.js';
import { openAdbDevice, openAdbServer, openSimDroid } from '../devices/provider.js';
import { deviceKindOf } from '../store/catalog.js';
import { pngSize } from '../store/content.js';
import type { AvdList, DeviceList, DeviceSummary, FrameView } from '../api/types.js';

export class DeviceNotFoundError extends Error {
  override name = 'DeviceNotFoundError';
  constructor(readonly serial: string) {
    super(`No device ${JSON.stringify(serial)}: start a SimDroid or connect one on the Devices view`);
  }
}

export class TouchUnsupportedError extends Error {
  override name = 'TouchUnsupportedError';
  constructor(readonly serial: string) {
    super(`${serial} takes whole gestures only, not a streamed touch: send the drag as a swipe`);
  }
}

export class RotationUnsupportedError extends Error {
  override name = 'RotationUnsupportedError';
  constructor(readonly serial: string) {
    super(`${serial} cannot be rotated: SimDroid draws its screen in portrait only`);
  }
}

export class AdbDisabledError extends Error {
  override name = 'AdbDisabledError';
  constructor() {
    super('adb is disabled in this workbench (started with --no-adb)');
  }
}

interface Embedded {
  device: SimDroid;
  host: EmulatorHost | null;
}

export interface DeviceRegistryOptions {
  /** The adb server's port, or false to work without adb (embedded SimDroids only). */
  adbPort: number | null | false;
  /** Which session drives a device (for the list). */
  sessionOf(serial: string): string | null;
}

/**
 * The devices the workbench can drive: SimDroids in its own process (the embedded default; each
 * can also serve ADB on a port pair) and whatever the adb server lists (AVDs, phones, remote
 * emulators). One Device object per serial, shared by the live view and sessions.
 */
export class DeviceRegistry {
  private readonly embedded = new Map<string, Embedded>();
  private readonly adbDevices = new Map<string, AdbDevice>();
  private adbServer: AdbServer | null = null;
  private nextEmbedded = 1;
  private readonly listeners = new Set<(list: DeviceList) => void>();

  constructor(private readonly opts: DeviceRegistryOptions) {}

  private adb(): AdbServer {
    if (this.opts.adbPort === false) throw new AdbDisabledError();
    this.adbServer ??= openAdbServer(this.opts.adbPort ?? undefined);
    return this.adbServer;
  }

  async list(): Promise<DeviceList> {
    const devices: DeviceSummary[] = [];
    for (const [serial, e] of this.embedded) {
      devices.push({
        serial, kind: 'simdroid', transport: 'embedded', state: 'device', online: true, screen: await e.device.screenInfo(),
        adbAddress: e.host?.address ?? null, sessionId: this.opts.sessionOf(serial), touch: true, rotate: false,
      });
    }
    let adbError: string | null = null;
    if (this.opts.adbPort === false) adbError = new AdbDisabledError().message;
    else {
      try {
        const embeddedHosts = new Set([...this.embedded.values()].flatMap((e) => (e.host ? [e.host.serial, e.host.address] : [])));
        for (const d of await this.adb().devices()) {
          if (embeddedHosts.has(d.serial)) continue; // already listed as embedded
          devices.push({
            serial: d.serial, kind: deviceKindOf(d.serial), transport: 'adb',
            state: d.state, online: d.state === 'device', screen: null, adbAddress: null, sessionId: this.opts.sessionOf(d.serial),
            // Every adb device streams touches (gRPC or `input motionevent`); SimDroid served over adb draws portrait only.
            touch: true, rotate: deviceKindOf(d.serial) !== 'simdroid',
          });
        }
      } catch (e) {
        adbError = `adb server: ${(e as Error).message}`;
      }
    }
    return { devices, adbError };
  }

  onChange(listener: (list: DeviceList) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells listeners the list changed (a device started or stopped, a session took one). */
  async changed(): Promise<void> {
    if (this.listeners.size === 0) return;
    const list = await this.list();
    for (const l of this.listeners) l(list);
  }

  get(serial: string): Device {
    const e = this.embedded.get(serial);
    if (e) return e.device;
    let d = this.adbDevices.get(serial);
    if (!d) {
      if (this.opts.adbPort === false) throw new DeviceNotFoundError(serial);
      d = openAdbDevice(serial, { server: this.adb() });
      this.adbDevices.set(serial, d);
    }
    return d;
  }

  /** One event of a streamed touch; TouchUnsupportedError for a device that takes whole gestures only. */
  async touch(serial: string, action: TouchAction, x: number, y: number): Promise<void> {
    const d = this.get(serial);
    if (!isTouchStreamCapable(d)) throw new TouchUnsupportedError(serial);
    await d.touch(action, x, y);
  }

  /** Turns the display; RotationUnsupportedError for SimDroid (in process or over adb), which draws portrait only. */
  async rotate(serial: string, rotation: Rotation): Promise<void> {
    const d = this.get(serial);
    if (this.embedded.has(serial) || deviceKindOf(serial) === 'simdroid' || !isRotationCapable(d)) throw new RotationUnsupportedError(serial);
    await d.setRotation(rotation);
  }

  /** Throws DeviceNotFoundError unless the serial is listed and online. */
  async require(serial: string): Promise<Device> {
    if (this.embedded.has(serial)) return this.embedded.get(serial)!.device;
    const listed = (await this.list()).devices.find((d) => d.serial === serial);
    if (!listed?.online) throw new DeviceNotFoundError(serial);
    return this.get(serial);
  }

  async startSimDroid(adbPort?: number): Promise<DeviceSummary> {
    const serial = `simdroid-${this.nextEmbedded++}`;
    const device = openSimDroid({ serial });
    let host: EmulatorHost | null = null;
    if (adbPort !== undefined) {
      try {
        host = await startEmulatorHost({ device, port: adbPort - 1, notifyAdbServer: this.opts.adbPort === false ? false : this.opts.adbPort ?? undefined });
      } catch (e) {
        device.close();
        throw e;
      }
    }
    this.embedded.set(serial, { device, host });
    void this.changed();
    return (await this.list()).devices.find((d) => d.serial === serial)!;
  }

  async stopSimDroid(serial: string): Promise<void> {
    const e = this.embedded.get(serial);
    if (!e) throw new DeviceNotFoundError(serial);
    this.embedded.delete(serial);
    await e.host?.stop();
    e.device.close();
    void this.changed();
  }

  async connect(address: string): Promise<DeviceSummary> {
    const serial = await this.adb().connect(address);
    void this.changed();
    const listed = (await this.list()).devices.find((d) => d.serial === serial);
    if (!listed) throw new DeviceNotFoundError(serial);
    return listed;
  }

  async disconnect(address: string): Promise<void> {
    await this.adb().disconnect(address);
    this.adbDevices.get(address)?.close();
    this.adbDevices.delete(address);
    void this.changed();
  }

  async avds(): Promise<AvdList> {
    const sdk = process.env.ANDROID_HOME ?? process.env.ANDROID_SDK_ROOT ?? null;
    try {
      return { sdk, avds: await listAvds(), error: null };
    } catch (e) {
      return { sdk, avds: [], error: e instanceof SdkNotFoundError ? e.message : `emulator -list-avds: ${(e as Error).message}` };
    }
  }

  async launchAvd(name: string, port = 5554): Promise<DeviceSummary> {
    const avd = await launchAvd({ name, port, server: this.adb() });
    avd.process.unref();
    void this.changed();
    return (await this.list()).devices.find((d) => d.serial === avd.serial)!;
  }

  /**
   * A frame source: pushed by an embedded SimDroid; from an adb device, streamed over the
   * emulator's gRPC API when it has one (as `emulator` says), else polled by screencap (AdbDevice.frames chooses).
   */
  frames(serial: string, scale: 1 | 0.5, maxFps: number, emulator: EmulatorMirror = 'grpc-png'): FrameSource {
    const e = this.embedded.get(serial);
    if (e) return new SimDroidFrameSource(e.device, { scale, maxFps });
    const d = this.get(serial);
    const adb = this.adbDevices.get(serial);
    return adb ? adb.frames({ scale, fps: maxFps, emulator }) : new PollingFrameSource(d, { scale, fps: maxFps });
  }

  watchFrames(serial: string, mirror: { scale: 1 | 0.5; maxFps: number; emulator: EmulatorMirror }, listener: (f: FrameView) => void): () => void {
    const source = this.frames(serial, mirror.scale, mirror.maxFps, mirror.emulator);
    const off = source.onFrame((f) => {
      listener({ serial, png: f.png, ...pngSize(f.png), path: f.path, seq: f.seq, at: f.at, changedAt: f.changedAt ?? null });
    });
    source.start();
    return () => {
      off();
      source.stop();
    };
  }

  async close(): Promise<void> {
    for (const serial of [...this.embedded.keys()]) await this.stopSimDroid(serial);
    for (const d of this.adbDevices.values()) d.close();
  }
}
