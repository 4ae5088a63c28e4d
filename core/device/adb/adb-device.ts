import { PassThrough } from 'node:stream';
import type { DeviceClient } from '@devicefarmer/adbkit';
import {
  BOOT_SNAPSHOT, FileWriteError, type Device, type FileWritable, type ForegroundApp, type InputEvent, type Reconnectable, type ScreenInfo,
  type Rotation, type RotationCapable, type ScreenPixels, type ScreenshotOptions, type ShellResult, type SnapshotCapable, type TouchAction,
  type TouchStreamCapable, shellOk,
} from '../device.js';
import { shellCommand, shellQuote } from '../shell-quote.js';
import type { SettleOptions } from '../stable.js';
import { parseUiTree, type UiTree } from '../../a11y/ui-tree.js';
import { assertNever } from '../../util/errors.js';
import { ConsoleError, consoleCommand } from './console-client.js';
import { QuickBootSnapshotMissingError } from './avd.js';
import { EmulatorSnapshotError, type EmulatorGrpcClient } from './emulator-grpc.js';
import { EmulatorFrameSource } from './grpc-frames.js';
import { EmulatorGrpcLink, FALL_BACK, sendInputOverGrpc, sendTouchOverGrpc, type EmulatorGrpcSetting } from './grpc-link.js';
import type { FrameSource, MirrorOptions } from '../frames.js';
import { exec, shellV1, shellV2 } from './transport.js';
import { parseRawScreencap, pngFromPng, pngFromRaw, ScreencapChooser, type ScreencapFormat } from './screencap.js';
import { halveRgba } from '../../util/png.js';
import type { AdbServer } from './server.js';

/**
 * A Device reached through an adb server with adbkit: a real AVD, a phone, or SimDroid over its
 * adbd. Everything goes through the same shell commands a person would type (`input`, `uiautomator
 * dump`, `screencap`, `dumpsys`), so the task checkers run here unchanged. Snapshots go through
 * the emulator console (even port next to the adb port). An emulator with a gRPC endpoint (found
 * in its discovery file, or given) is driven through it instead where it is faster: input
 * (sendTouch/sendKey), snapshots (SnapshotService) and mirroring (streamScreenshot); adb and the
 * console remain the fallback (grpc-link.ts).
 */
export interface AdbDeviceOptions {
  serial: string;
  server: AdbServer;
  /** The emulator console port; default: NNNN of `emulator-NNNN`, or the adb port - 1 for host:port. */
  consolePort?: number;
  consoleHost?: string;
  consoleTokenPath?: string;
  /**
   * 'raw' transfers pixels and encodes the PNG here (fast on emulators, whose own PNG encoder takes
   * most of a second); 'png' asks the device for `screencap -p`; 'auto' (default) times both and
   * keeps the faster (screencap.ts).
   */
  screencap?: ScreencapFormat;
  /** How long a dumped accessibility tree may be reused if nothing was sent to the device since. */
  treeReuseMs?: number;
  /** The emulator's gRPC endpoint: 'discover' (default: its discovery file), 'off', or HOST:PORT (+ token). */
  grpc?: EmulatorGrpcSetting;
  /** Where one-line notices go (gRPC fallbacks); default stderr. */
  log?: (line: string) => void;
  /** The environment discovery reads ($AWB_AVD_RUNNING_DIR, …); default process.env. */
  env?: NodeJS.ProcessEnv;
}

export class DeviceOfflineError extends Error {
  override name = 'DeviceOfflineError';
  constructor(readonly serial: string, reason: string) {
    super(`${serial}: ${reason}`);
  }
}

export class UiDumpError extends Error {
  override name = 'UiDumpError';
  constructor(readonly serial: string, readonly output: string) {
    super(`${serial}: uiautomator dump failed: ${output.trim().slice(0, 200)}`);
  }
}

/** Waiting for stability on a real device: trees are compared until equal, up to 6 s (AndroidWorld). */
export const ADB_SETTLE: SettleOptions = { minDelayMs: 0, intervalMs: 250, timeoutMs: 6000 };

const KEYCODES: Record<Extract<InputEvent, { kind: 'key' }>['key'], string> = {
  BACK: 'KEYCODE_BACK', HOME: 'KEYCODE_HOME', ENTER: 'KEYCODE_ENTER', DEL: 'KEYCODE_DEL', APP_SWITCH: 'KEYCODE_APP_SWITCH',
  TAB: 'KEYCODE_TAB', MOVE_END: 'KEYCODE_MOVE_END', MOVE_HOME: 'KEYCODE_MOVE_HOME', ESCAPE: 'KEYCODE_ESCAPE', SPACE: 'KEYCODE_SPACE',
};

/** `input text` reads %s as a space; everything else is shell-quoted. */
export function inputTextArg(text: string): string {
  return shellQuote(text.replace(/ /g, '%s'));
}

/** The focused window from `dumpsys window` (falls back to the focused app during transitions). */
export function parseFocus(dumpsys: string): ForegroundApp | null {
  const m = /mCurrentFocus=Window\{\S+ u\d+ ([\w.]+)\/([\w.$]+)\}/.exec(dumpsys)
    ?? /mFocusedApp=(?:AppWindowToken\{\S+ token=Token\{\S+ )?ActivityRecord\{\S+ u\d+ ([\w.]+)\/([\w.$]+)/.exec(dumpsys);
  if (!m) return null;
  const pkg = m[1]!;
  const activity = m[2]!.startsWith('.') ? pkg + m[2]! : m[2]!;
  return { package: pkg, activity };
}

/** Extracts the XML of `uiautomator dump /dev/tty` (the dump is followed by a status line). */
export function extractDump(output: string): string | null {
  const start = output.indexOf('<?xml');
  const end = output.lastIndexOf('</hierarchy>');
  if (start < 0 || end < 0) return null;
  return output.slice(start, end + '</hierarchy>'.length);
}

export class AdbDevice implements Device, FileWritable, SnapshotCapable, Reconnectable, TouchStreamCapable, RotationCapable {
  readonly serial: string;
  readonly settle = ADB_SETTLE;
  private readonly server: AdbServer;
  private client: DeviceClient;
  private screen: ScreenInfo | null = null;
  private v2: boolean | null = null;
  private tree: { at: number; tree: UiTree } | null = null;
  private readonly screencap: ScreencapChooser;
  private readonly grpc: EmulatorGrpcLink;
  private inputs: Promise<void> = Promise.resolve();

  constructor(private readonly opts: AdbDeviceOptions) {
    this.serial = opts.serial;
    this.grpc = new EmulatorGrpcLink({
      serial: opts.serial, setting: opts.grpc ?? 'discover', ...(opts.env ? { env: opts.env } : {}),
      log: opts.log ?? ((line) => process.stderr.write(`awb: ${line}\n`)),
    });
    this.screencap = new ScreencapChooser(opts.screencap ?? 'auto');
    this.server = opts.server;
    this.client = opts.server.client.getDevice(opts.serial);
  }

  private async guard<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof UiDumpError || e instanceof RangeError) throw e;
      throw new DeviceOfflineError(this.serial, `${what}: ${(e as Error).message}`);
    }
  }

  async shell(command: string): Promise<ShellResult> {
    const r = await this.shellBytes(command);
    return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
  }

  private async shellBytes(command: string) {
    this.tree = null;
    return this.guard('shell', async () => {
      this.v2 ??= (await this.server.features(this.serial)).has('shell_v2');
      return this.v2 ? shellV2(this.client, this.serial, command) : shellV1(this.client, this.serial, command);
    });
  }

  /** `adb push` of bytes: a sync SEND, so the size is not bound by the shell's command-line limit. */
  async writeFile(path: string, data: Buffer): Promise<void> {
    this.tree = null;
    try {
      const transfer = await this.client.push(new PassThrough().end(data), path, 0o660);
      await new Promise<void>((resolve, reject) => {
        transfer.on('end', resolve);
        transfer.on('error', reject);
      });
    } catch (e) {
      // adbkit reports adbd's FAIL as "Failure: '<reason>'"; anything else is the link failing.
      const refused = /^Failure: '(.*)'$/s.exec((e as Error).message);
      if (refused) throw new FileWriteError(this.serial, path, refused[1]!);
      throw new DeviceOfflineError(this.serial, `push ${path}: ${(e as Error).message}`);
    }
  }

  async screenInfo(): Promise<ScreenInfo> {
    if (this.screen) return this.screen;
    const size = await this.shell('wm size');
    const density = await this.shell('wm density');
    // "Override size" wins over "Physical size", as the display uses it.
    const s = /Override size: (\d+)x(\d+)/.exec(size.stdout) ?? /Physical size: (\d+)x(\d+)/.exec(size.stdout);
    const dn = /Override density: (\d+)/.exec(density.stdout) ?? /Physical density: (\d+)/.exec(density.stdout);
    if (!s || !dn) throw new DeviceOfflineError(this.serial, `cannot read the screen size from ${JSON.stringify(size.stdout + density.stdout)}`);
    this.screen = { width: Number(s[1]), height: Number(s[2]), density: Number(dn[1]) };
    return this.screen;
  }

  async uiTree(): Promise<UiTree> {
    const reuse = this.opts.treeReuseMs ?? 250;
    if (this.tree && performance.now() - this.tree.at <= reuse) return this.tree.tree;
    // uiautomator gives up when the screen never goes idle (an animation): try again, as AndroidWorld does.
    let last = '';
    for (let attempt = 0; attempt < 4; attempt++) {
      const r = await this.guard('uiautomator', () => this.shellBytesRaw('uiautomator dump /dev/tty'));
      const xml = extractDump(r.stdout);
      if (xml) {
        const tree = parseUiTree(xml);
        this.tree = { at: performance.now(), tree };
        return tree;
      }
      last = r.stdout + r.stderr;
      await new Promise((res) => setTimeout(res, 200 * (attempt + 1)));
    }
    throw new UiDumpError(this.serial, last);
  }

  /** A shell command that leaves the tree cache alone (reading the screen does not change it). */
  private async shellBytesRaw(command: string) {
    const cached = this.tree;
    const r = await this.shellBytes(command);
    this.tree = cached;
    return r;
  }

  /** Raw pixels from `screencap` (no -p), halved here for scale 0.5 as the PNG path halves them. */
  async screenPixels(scale: 1 | 0.5): Promise<ScreenPixels> {
    const p = parseRawScreencap(await this.guard('screencap', () => exec(this.client, this.serial, 'screencap')));
    return scale === 0.5 ? halveRgba(p.rgba, p.width, p.height) : p;
  }

  async screenshot(opts: ScreenshotOptions = {}): Promise<Buffer> {
    const scale = opts.scale ?? 1;
    const format = this.screencap.next(scale);
    const started = performance.now();
    try {
      const png = format === 'raw'
        ? await pngFromRaw(await this.guard('screencap', () => exec(this.client, this.serial, 'screencap')), scale)
        : await pngFromPng(await this.guard('screencap', () => exec(this.client, this.serial, 'screencap -p')), scale);
      this.screencap.record(format, scale, performance.now() - started);
      return png;
    } catch (e) {
      // Output this side cannot read (an unusual pixel format, a broken PNG): try the other format.
      if (!(e instanceof RangeError) || !this.screencap.canFallBack(format)) throw e;
      this.screencap.fail(format);
      return this.screenshot(opts);
    }
  }

  /** The screencap format in use at a size ('raw' or 'png'), or null while 'auto' is still timing both. */
  screencapFormat(scale: 1 | 0.5 = 1): 'raw' | 'png' | null {
    return this.screencap.chosen(scale);
  }

  async foreground(): Promise<ForegroundApp> {
    const r = await this.shellBytesRaw('dumpsys window');
    const f = parseFocus(r.stdout);
    if (!f) {
      const a = await this.shellBytesRaw('dumpsys activity activities');
      const m = /mResumedActivity: ActivityRecord\{\S+ u\d+ ([\w.]+)\/([\w.$]+)/.exec(a.stdout);
      if (m) return { package: m[1]!, activity: m[2]!.startsWith('.') ? m[1]! + m[2]! : m[2]! };
      throw new DeviceOfflineError(this.serial, 'no focused window in dumpsys window');
    }
    return f;
  }

  /** The emulator's gRPC client when the device has a usable one (null: adb only). */
  grpcClient(): Promise<EmulatorGrpcClient | null> {
    return this.grpc.client();
  }

  /** Frames of the screen: the emulator's stream when it has gRPC (unless `emulator` says 'adb-polling'), else screencap polled. */
  frames(opts: MirrorOptions = {}): FrameSource {
    return new EmulatorFrameSource(this, this.grpc, opts);
  }

  /**
   * One gesture at a time, in the order sent: over gRPC every gesture is finger 0, so two callers'
   * gestures interleaved (the Live view and a script, say) would make one wrong gesture — a drag
   * read as a tap. `adb shell input` commands are kept in order the same way.
   */
  input(e: InputEvent): Promise<void> {
    const run = this.inputs.then(() => this.inputNow(e));
    this.inputs = run.catch(() => {});
    return run;
  }

  private async inputNow(e: InputEvent): Promise<void> {
    this.tree = null;
    const sent = await this.guard('gRPC input', () => this.grpc.run('input', (c) => sendInputOverGrpc(c, e)));
    if (sent !== FALL_BACK) return;
    let command: string;
    switch (e.kind) {
      case 'tap':
        command = `input tap ${Math.round(e.x)} ${Math.round(e.y)}`;
        break;
      case 'long_press':
        command = `input swipe ${Math.round(e.x)} ${Math.round(e.y)} ${Math.round(e.x)} ${Math.round(e.y)} ${e.durationMs}`;
        break;
      case 'swipe':
        command = `input swipe ${Math.round(e.x1)} ${Math.round(e.y1)} ${Math.round(e.x2)} ${Math.round(e.y2)} ${e.durationMs}`;
        break;
      case 'text':
        command = `input text ${inputTextArg(e.text)}`;
        break;
      case 'key':
        command = `input keyevent ${KEYCODES[e.key]}`;
        break;
      default:
        return assertNever(e, 'input event');
    }
    const r = await this.shell(command);
    if (r.exitCode !== 0) throw new DeviceOfflineError(this.serial, `${command}: ${(r.stderr || r.stdout).trim()}`);
  }

  /**
   * A streamed touch (TouchStreamCapable), in the same order as the gestures: the emulator's gRPC touch event (pressure
   * 1 down and moving, 0 lifted, finger 0) when it has gRPC, else `input motionevent DOWN|MOVE|UP x y` (Android 11+).
   */
  touch(action: TouchAction, x: number, y: number): Promise<void> {
    const run = this.inputs.then(() => this.touchNow(action, x, y));
    this.inputs = run.catch(() => {});
    return run;
  }

  private async touchNow(action: TouchAction, x: number, y: number): Promise<void> {
    this.tree = null;
    const sent = await this.guard('gRPC touch', () => this.grpc.run('touch', (c) => sendTouchOverGrpc(c, action, x, y)));
    if (sent !== FALL_BACK) return;
    const command = `input motionevent ${action.toUpperCase()} ${Math.round(x)} ${Math.round(y)}`;
    const r = await this.shell(command);
    if (r.exitCode !== 0) throw new DeviceOfflineError(this.serial, `${command}: ${(r.stderr || r.stdout).trim()}`);
  }

  /** Turns the display (auto-rotate off, then `user_rotation`), as Android's quick-settings rotate button does. */
  async setRotation(rotation: Rotation): Promise<void> {
    await shellOk(this, `settings put system accelerometer_rotation 0 && settings put system user_rotation ${rotation}`);
    this.screen = null;
    this.tree = null;
  }

  async idle(ms: number): Promise<void> {
    this.tree = null;
    await new Promise((r) => setTimeout(r, ms));
  }

  // ------------------------------------------------------------------ snapshots (emulator console)

  private consolePort(): number {
    if (this.opts.consolePort) return this.opts.consolePort;
    const emu = /^emulator-(\d+)$/.exec(this.serial);
    if (emu) return Number(emu[1]);
    const hp = /:(\d+)$/.exec(this.serial);
    if (hp) return Number(hp[1]) - 1;
    throw new DeviceOfflineError(this.serial, 'no emulator console port for this device (pass consolePort)');
  }

  private async console(command: string): Promise<string[]> {
    const host = this.opts.consoleHost ?? (/^(.+):\d+$/.exec(this.serial)?.[1] ?? '127.0.0.1');
    return consoleCommand({ host, port: this.consolePort(), ...(this.opts.consoleTokenPath ? { tokenPath: this.opts.consoleTokenPath } : {}) }, command);
  }

  async saveSnapshot(name: string): Promise<void> {
    if ((await this.grpc.run('SaveSnapshot', (c) => c.saveSnapshot(name))) !== FALL_BACK) return;
    await this.console(`avd snapshot save ${shellCommand(name)}`);
  }

  async loadSnapshot(name: string): Promise<void> {
    this.tree = null;
    try {
      if ((await this.grpc.run('LoadSnapshot', (c) => c.loadSnapshot(name))) !== FALL_BACK) return;
      await this.console(`avd snapshot load ${shellCommand(name)}`);
    } catch (e) {
      // Resetting to a quick-boot snapshot the AVD never saved: say how to make one.
      const refused = e instanceof EmulatorSnapshotError ? e.reason : e instanceof ConsoleError ? e.message : null;
      if (name === BOOT_SNAPSHOT && refused !== null && /not.?found|no such|does not exist|unknown|missing/i.test(refused)) {
        throw new QuickBootSnapshotMissingError(this.serial, refused);
      }
      throw e;
    }
  }

  async listSnapshots(): Promise<string[]> {
    const viaGrpc = await this.grpc.run('ListSnapshots', (c) => c.listSnapshots());
    if (viaGrpc !== FALL_BACK) return viaGrpc;
    const lines = await this.console('avd snapshot list');
    // The table: a header line ("ID  TAG  VM SIZE  DATE  VM CLOCK"), then one row per snapshot.
    return lines.filter((l) => /^\S+\s+\S+/.test(l) && !/^(ID|List of snapshots)/i.test(l)).map((l) => l.trim().split(/\s+/)[1]!).filter(Boolean);
  }

  async deleteSnapshot(name: string): Promise<void> {
    if ((await this.grpc.run('DeleteSnapshot', (c) => c.deleteSnapshot(name))) !== FALL_BACK) return;
    // The emulator console's verb is `del`.
    await this.console(`avd snapshot del ${shellCommand(name)}`);
  }

  /**
   * After the link dropped: reconnect host:port devices and wait until the device is back. adb keeps a host:port
   * transport it lost as `offline`, and `adb connect` to it then does nothing ("already connected"); so, as a user
   * would, disconnect an offline transport first, and try again until the device answers (it may be restarting).
   */
  async reconnect(timeoutMs = 30_000): Promise<void> {
    this.tree = null;
    this.v2 = null;
    this.grpc.reset();
    if (/^[^:]+:\d+$/.test(this.serial)) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const listed = (await this.server.devices()).find((d) => d.serial === this.serial);
        if (listed && listed.state !== 'device') await this.server.disconnect(this.serial).catch(() => {});
        try {
          await this.server.connect(this.serial, Math.max(1000, Math.min(5000, deadline - Date.now())));
          break;
        } catch (e) {
          if (Date.now() >= deadline) throw e;
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    } else {
      await this.server.waitFor(this.serial, timeoutMs);
    }
    this.client = this.server.client.getDevice(this.serial);
  }

  /** Closes the gRPC channel, if one was opened. */
  close(): void {
    this.grpc.reset();
  }
}
