import type { InputEvent, KeyName, TouchAction } from '../device.js';
import { assertNever } from '../../util/errors.js';
import { emulatorForSerial, runningEmulators } from './emulator-discovery.js';
import { EmulatorGrpcClient, endpointAddress, isUnusable, type GrpcEndpoint, type KeyInput } from './emulator-grpc.js';

/**
 * An AdbDevice's optional gRPC side. Which endpoint: the one named in the device's settings
 * (`--grpc [HOST:]PORT`), else the emulator's discovery file for the serial ('discover', the
 * default), or none ('off'). The endpoint is opened on first use and checked with getStatus (a
 * wrong token fails there, UNAUTHENTICATED); when it cannot be used — nothing listens, the token is
 * refused, the call times out — the device logs one line with the reason and goes on over adb
 * (the link stays down until `reset()`, i.e. a reconnect). Errors about the request itself (an
 * unknown snapshot) are not transport failures and reach the caller.
 */
export type EmulatorGrpcSetting = 'discover' | 'off' | GrpcEndpoint;

export interface GrpcLinkOptions {
  serial: string;
  setting: EmulatorGrpcSetting;
  log: (line: string) => void;
  /** Where discovery looks ($AWB_AVD_RUNNING_DIR, $XDG_RUNTIME_DIR, …); default process.env. */
  env?: NodeJS.ProcessEnv;
  connectTimeoutMs?: number;
}

/** Returned by `run` when the caller should do it over adb instead. */
export const FALL_BACK = Symbol('fall back to adb');

export class EmulatorGrpcLink {
  private opened: Promise<EmulatorGrpcClient | null> | null = null;
  private current: EmulatorGrpcClient | null = null;

  constructor(private readonly opts: GrpcLinkOptions) {}

  /** The endpoint to use, or null (with the reason logged when there is one worth telling). */
  endpoint(): GrpcEndpoint | null {
    const { setting, serial } = this.opts;
    if (setting === 'off') return null;
    const found = runningEmulators(this.opts.env);
    if (setting !== 'discover') {
      // An explicit port: the token, unless given, is the one its emulator published.
      if (setting.token) return setting;
      const token = found.emulators.find((e) => e.grpcPort === setting.port)?.grpcToken;
      return token ? { ...setting, token } : setting;
    }
    const emu = emulatorForSerial(serial, found.emulators);
    if (emu?.grpcPort) return { host: '127.0.0.1', port: emu.grpcPort, ...(emu.grpcToken ? { token: emu.grpcToken } : {}) };
    if (!emu && found.unreadable.length) {
      this.opts.log(`${serial}: no gRPC endpoint found (${found.unreadable.length} unreadable discovery file(s); ${found.unreadable[0]!.message}); using adb`);
    }
    return null;
  }

  /** The connected, checked client, or null when the device has none usable. */
  client(): Promise<EmulatorGrpcClient | null> {
    this.opened ??= this.open();
    return this.opened;
  }

  private async open(): Promise<EmulatorGrpcClient | null> {
    const endpoint = this.endpoint();
    if (!endpoint) return null;
    let client: EmulatorGrpcClient | null = null;
    try {
      client = await EmulatorGrpcClient.connect(endpoint, { connectTimeoutMs: this.opts.connectTimeoutMs ?? 3000 });
      await client.getStatus();
      this.current = client;
      return client;
    } catch (e) {
      client?.close();
      this.opts.log(`${this.opts.serial}: gRPC ${endpointAddress(endpoint)} unusable (${(e as Error).message}); using adb`);
      return null;
    }
  }

  /**
   * Runs `fn` over gRPC; FALL_BACK when there is no usable endpoint or it just failed as a
   * transport (logged once, and the link stays down).
   */
  async run<T>(what: string, fn: (c: EmulatorGrpcClient) => Promise<T>): Promise<T | typeof FALL_BACK> {
    const c = await this.client();
    if (!c) return FALL_BACK;
    try {
      return await fn(c);
    } catch (e) {
      if (!isUnusable(e)) throw e;
      this.drop(`${what}: ${(e as Error).message}`);
      return FALL_BACK;
    }
  }

  /** Stops using gRPC until `reset()`, logging why. */
  drop(reason: string): void {
    if (!this.current) return;
    this.opts.log(`${this.opts.serial}: gRPC dropped (${reason}); using adb`);
    this.current.close();
    this.current = null;
    this.opened = Promise.resolve(null);
  }

  /** Forgets the endpoint: the next use looks for it again (after a reconnect, the emulator may have restarted). */
  reset(): void {
    this.current?.close();
    this.current = null;
    this.opened = null;
  }
}

// ------------------------------------------------------------------ input as the emulator's own UI sends it

/** Our key names as W3C key values (the emulator's KeyboardEvent.key; space is " "). */
export const GRPC_KEYS: Record<KeyName, KeyInput> = {
  BACK: { kind: 'key', key: 'GoBack' }, HOME: { kind: 'key', key: 'GoHome' }, ENTER: { kind: 'key', key: 'Enter' },
  DEL: { kind: 'key', key: 'Backspace' }, APP_SWITCH: { kind: 'key', key: 'AppSwitch' }, TAB: { kind: 'key', key: 'Tab' },
  MOVE_END: { kind: 'key', key: 'End' }, MOVE_HOME: { kind: 'key', key: 'Home' }, ESCAPE: { kind: 'key', key: 'Escape' },
  SPACE: { kind: 'key', key: ' ' },
};

/** Finger pressure for a contact (the guest sees it as ABS_MT_PRESSURE; 0 lifts the finger). */
const DOWN = 1;
/** A swipe's moves, one per frame as a finger's would be reported (60 Hz). */
const MOVE_MS = 16;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One InputEvent over sendTouch/sendKey: down, moves and up as `input` would inject them. */
/** One event of a streamed touch as the emulator's touch event: finger 0, pressed while down or moving, lifted on up. */
export async function sendTouchOverGrpc(c: EmulatorGrpcClient, action: TouchAction, x: number, y: number): Promise<void> {
  await c.sendTouch([{ x, y, pressure: action === 'up' ? 0 : DOWN }]);
}

export async function sendInputOverGrpc(c: EmulatorGrpcClient, e: InputEvent): Promise<void> {
  switch (e.kind) {
    case 'tap':
      await c.sendTouch([{ x: e.x, y: e.y, pressure: DOWN }]);
      await c.sendTouch([{ x: e.x, y: e.y, pressure: 0 }]);
      return;
    case 'long_press':
      await c.sendTouch([{ x: e.x, y: e.y, pressure: DOWN }]);
      await sleep(e.durationMs);
      await c.sendTouch([{ x: e.x, y: e.y, pressure: 0 }]);
      return;
    case 'swipe': {
      const steps = Math.max(1, Math.ceil(e.durationMs / MOVE_MS));
      await c.sendTouch([{ x: e.x1, y: e.y1, pressure: DOWN }]);
      for (let i = 1; i <= steps; i++) {
        await sleep(e.durationMs / steps);
        const t = i / steps;
        await c.sendTouch([{ x: e.x1 + (e.x2 - e.x1) * t, y: e.y1 + (e.y2 - e.y1) * t, pressure: DOWN }]);
      }
      await c.sendTouch([{ x: e.x2, y: e.y2, pressure: 0 }]);
      return;
    }
    case 'text':
      await c.sendKey({ kind: 'text', text: e.text });
      return;
    case 'key':
      await c.sendKey(GRPC_KEYS[e.key]);
      return;
    default:
      return assertNever(e, 'input event');
  }
}
