import type { UiTree } from '../a11y/ui-tree.js';

/**
 * The device as the rest of the workbench sees it. SimDroid implements it in-process; an ADB-backed
 * device implements it over adb. Kept small on purpose: anything more (snapshots, frame streams)
 * is a separate capability interface with a type guard, so a device only claims what it has.
 */
export interface Device {
  readonly serial: string;
  screenInfo(): Promise<ScreenInfo>;
  /** The accessibility tree, as `uiautomator dump` would write it. */
  uiTree(): Promise<UiTree>;
  /** A PNG of the screen; `scale` 0.5 renders at half resolution (fewer bytes, faster). */
  screenshot(opts?: ScreenshotOptions): Promise<Buffer>;
  /** Package and activity of the focused window (what `dumpsys window` reports). */
  foreground(): Promise<ForegroundApp>;
  /** One low-level input event, as `adb shell input …` would inject it. */
  input(event: InputEvent): Promise<void>;
  /** A shell command as `adb shell` runs it. Non-zero exit codes are returned, not thrown. */
  shell(command: string): Promise<ShellResult>;
  /** Let time pass on the device: virtual time on SimDroid, real time elsewhere. */
  idle(ms: number): Promise<void>;
}

export interface ScreenInfo {
  width: number;
  height: number;
  density: number;
}

export interface ScreenshotOptions {
  scale?: 1 | 0.5;
}

export interface ForegroundApp {
  package: string;
  activity: string;
}

export interface ShellResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Key names as `input keyevent` accepts them (KEYCODE_ prefix dropped). */
export const KEYS = ['BACK', 'HOME', 'ENTER', 'DEL', 'APP_SWITCH', 'TAB', 'MOVE_END', 'MOVE_HOME', 'ESCAPE', 'SPACE'] as const;
export type KeyName = (typeof KEYS)[number];

export type InputEvent =
  | { kind: 'tap'; x: number; y: number }
  | { kind: 'long_press'; x: number; y: number; durationMs: number }
  | { kind: 'swipe'; x1: number; y1: number; x2: number; y2: number; durationMs: number }
  | { kind: 'text'; text: string }
  | { kind: 'key'; key: KeyName };

/**
 * The snapshot a device is reset to before each episode. The Android emulator names its quick-boot
 * snapshot "default_boot"; SimDroid takes one under the same name right after it boots.
 */
export const BOOT_SNAPSHOT = 'default_boot';

/** Save/restore of the whole device state (SimDroid in-process; AVDs through the emulator console). */
export interface SnapshotCapable {
  saveSnapshot(name: string): Promise<void>;
  loadSnapshot(name: string): Promise<void>;
  listSnapshots(): Promise<string[]>;
  deleteSnapshot(name: string): Promise<void>;
}

export function isSnapshotCapable(d: Device): d is Device & SnapshotCapable {
  const c = d as Partial<SnapshotCapable>;
  return typeof c.saveSnapshot === 'function' && typeof c.loadSnapshot === 'function';
}

/** The screen's pixels, RGBA row by row, at full or half size. */
export interface ScreenPixels {
  width: number;
  height: number;
  /** width × height × 4 bytes; the caller must not write into it (devices may cache it per screen state). */
  rgba: Uint8Array;
}

/** One finger's stream as a touch screen reports it (Android's MotionEvent ACTION_DOWN, ACTION_MOVE, ACTION_UP). */
export const TOUCH_ACTIONS = ['down', 'move', 'up'] as const;
export type TouchAction = (typeof TOUCH_ACTIONS)[number];

/**
 * A finger streamed as it moves, as scrcpy and Android Studio's Running Devices send a drag: down, the moves as they
 * happen, up. `input` takes a whole gesture after the fact (a swipe from start to end); this lets the screen follow
 * the finger (a list scrolls while it is dragged). SimDroid's input dispatcher; an adb device's `input motionevent`
 * or its emulator's gRPC touch events.
 */
export interface TouchStreamCapable {
  touch(action: TouchAction, x: number, y: number): Promise<void>;
}

export function isTouchStreamCapable(d: Device): d is Device & TouchStreamCapable {
  return typeof (d as Partial<TouchStreamCapable>).touch === 'function';
}

/** Quarter turns of the display from its natural orientation (Android's Surface.ROTATION_0 … ROTATION_270). */
export type Rotation = 0 | 1 | 2 | 3;

/** A device whose display can be turned (an emulator or a phone: `settings put system user_rotation`); SimDroid draws portrait only. */
export interface RotationCapable {
  setRotation(rotation: Rotation): Promise<void>;
}

export function isRotationCapable(d: Device): d is Device & RotationCapable {
  return typeof (d as Partial<RotationCapable>).setRotation === 'function';
}

/** Raw pixels without a PNG round trip (SimDroid draws them; an adb device reads `screencap`'s raw output). */
export interface PixelCapable {
  screenPixels(scale: 1 | 0.5): Promise<ScreenPixels>;
}

export function isPixelCapable(d: Device): d is Device & PixelCapable {
  return typeof (d as Partial<PixelCapable>).screenPixels === 'function';
}

/** A device reached over a link that can drop (adb): it can be reconnected after a failure. */
export interface Reconnectable {
  reconnect(): Promise<void>;
}

export function isReconnectable(d: Device): d is Device & Reconnectable {
  return typeof (d as Partial<Reconnectable>).reconnect === 'function';
}

/**
 * Writing a whole file onto the device the way `adb push` does (the sync service's SEND), with its
 * parent folders: for contents too long for one shell command line (adbd refuses those over 64 KiB).
 */
export interface FileWritable {
  writeFile(path: string, data: Buffer): Promise<void>;
}

export function isFileWritable(d: Device): d is Device & FileWritable {
  return typeof (d as Partial<FileWritable>).writeFile === 'function';
}

/** A file the device refused to take, with the device's reason (adbd's words). */
export class FileWriteError extends Error {
  override name = 'FileWriteError';
  constructor(readonly serial: string, readonly path: string, readonly reason: string) {
    super(`${serial}: cannot write ${path}: ${reason}`);
  }
}

export class ShellCommandError extends Error {
  override name = 'ShellCommandError';
  constructor(readonly command: string, readonly result: ShellResult, readonly serial: string) {
    super(`${serial}: \`${command}\` exited ${result.exitCode}: ${(result.stderr || result.stdout).trim().slice(0, 300)}`);
  }
}

/** Runs a shell command and returns its stdout, throwing on a non-zero exit code. */
export async function shellOk(device: Device, command: string): Promise<string> {
  const r = await device.shell(command);
  if (r.exitCode !== 0) throw new ShellCommandError(command, r, device.serial);
  return r.stdout;
}
