import { BOOT_SNAPSHOT, FileWriteError, type Device, type FileWritable, type ForegroundApp, type InputEvent, type ScreenInfo, type ScreenshotOptions, type ShellResult, type SnapshotCapable, type TouchAction, type TouchStreamCapable } from '../../core/device/device.js';
import type { UiTree } from '../../core/a11y/ui-tree.js';
import { serializeUiTree } from '../../core/a11y/ui-tree.js';
import { createRng, assertSeed } from '../../core/util/rng.js';
import { assertNever } from '../../core/util/errors.js';
import type { AppDef, AppEnv, SystemServices } from './runtime/app.js';
import { composeFrame, type Frame } from './runtime/frame.js';
import { InputDispatcher } from './runtime/input.js';
import { initialUiState, type UiState } from './runtime/ui-state.js';
import { WindowManager } from './runtime/window-manager.js';
import { frameToUiTree } from './view/a11y.js';
import { FrameRenderer } from './render/rasterize.js';
import { Clock } from './system/clock.js';
import { DatabaseRegistry, type DbSnapshot } from './system/databases.js';
import { FileSystem, EXTERNAL_STORAGE, type FsEntry } from './system/fs.js';
import { SettingsStore, type SettingsData } from './system/settings.js';
import { CALLLOG_DB, PROVIDER_DATABASES } from './system/providers.js';
import { Telephony, type GsmCall } from './system/telephony.js';
import { pushFile, PushRefusedError } from './system/push.js';
import { DeviceLog } from './system/log.js';
import { runShell, type ShellOutput } from './shell/run.js';
import { isPngScreencap, mayChangeState } from './shell/effects.js';
import { ALL_APPS } from './apps/index.js';

export interface SimDroidOptions {
  serial?: string;
  /** Seeds the device's own randomness (first-boot content). Default 0. */
  seed?: number;
  width?: number;
  height?: number;
  density?: number;
  /** Apps to install (default: all of SimDroid's). */
  apps?: readonly AppDef[];
}

interface DeviceSnapshot {
  settings: SettingsData;
  fs: Map<string, FsEntry>;
  dbs: Map<string, DbSnapshot>;
  ui: UiState;
  calls: GsmCall[];
  clock: { now: number; boot: number; zone: string };
}

export class SnapshotNotFoundError extends Error {
  override name = 'SnapshotNotFoundError';
  constructor(readonly snapshot: string, readonly serial: string) {
    super(`${serial}: no snapshot named ${JSON.stringify(snapshot)}`);
  }
}

/** Device time each input event takes, so clocks, timers and toasts move as on a phone. */
const EVENT_MS: Record<InputEvent['kind'], number> = { tap: 1000, long_press: 1500, swipe: 1000, text: 1000, key: 500 };
/** A streamed touch's events: a move is one display frame; lifting settles the gesture as a whole one does. */
const TOUCH_MS: Record<TouchAction, number> = { down: 16, move: 16, up: 1000 };

/** What is derived from one version of the state: frame, tree, PNGs, and PNG encodes under way. */
interface ViewCache {
  version: number;
  frame?: Frame;
  tree?: UiTree;
  png: Map<number, Buffer>;
  encoding: Map<number, Promise<Buffer>>;
  /** RGBA pixels by `WxH@scale`. */
  rgba: Map<string, Buffer>;
}

export const DEFAULT_SCREEN: ScreenInfo = { width: 1080, height: 2400, density: 420 };

/**
 * SimDroid: a deterministic simulated Android phone. Implements the workbench's Device interface
 * in-process (the fast path) and the snapshot capability; the same state answers shell commands,
 * so checkers written as device queries work here and on a real emulator.
 */
export class SimDroid implements Device, FileWritable, SnapshotCapable, TouchStreamCapable {
  readonly serial: string;
  readonly screen: ScreenInfo;
  readonly settings = new SettingsStore();
  readonly clock = new Clock();
  readonly fs = new FileSystem(this.clock);
  readonly dbs = new DatabaseRegistry(this.fs, this.clock);
  /** The modem's voice calls (the console's `gsm` commands). */
  readonly telephony = new Telephony(this.clock, () => this.dbs.require(CALLLOG_DB));
  readonly log = new DeviceLog(this.clock);
  readonly wm: WindowManager;
  readonly dispatcher: InputDispatcher;
  private readonly renderer = new FrameRenderer();
  private readonly snapshots = new Map<string, DeviceSnapshot>();
  /** Bumped on every change; caches of the frame, tree and screenshots are keyed by it. */
  private version = 0;
  private cache: ViewCache = { version: -1, png: new Map(), encoding: new Map(), rgba: new Map() };
  readonly sys: SystemServices;

  constructor(opts: SimDroidOptions = {}) {
    const seed = opts.seed ?? 0;
    assertSeed(seed);
    this.serial = opts.serial ?? 'simdroid-0';
    this.screen = {
      width: opts.width ?? DEFAULT_SCREEN.width,
      height: opts.height ?? DEFAULT_SCREEN.height,
      density: opts.density ?? DEFAULT_SCREEN.density,
    };
    for (const [k, v] of Object.entries(this.screen)) {
      if (!Number.isInteger(v) || v <= 0 || v > 8192) throw new RangeError(`SimDroid ${k} must be a positive integer, got ${v}`);
    }
    const apps = opts.apps ?? ALL_APPS;
    const dbs = this.dbs;
    const appsInfo = apps.filter((a) => !a.hidden).map((a) => ({ package: a.package, label: a.label, icon: a.icon }));
    this.sys = {
      settings: this.settings,
      fs: this.fs,
      clock: this.clock,
      log: this.log,
      // Opening a database that was deleted (AndroidWorld's pushes empty a databases folder) makes an empty one, as
      // SQLiteOpenHelper does; the app then creates its tables.
      db: (path) => dbs.openOrCreate(path),
      installedApps: () => appsInfo,
      clipboard: { text: () => this.wm.state.clipboard, setText: (text) => { this.wm.state.clipboard = text; } },
    };
    this.wm = new WindowManager(apps, initialUiState(), this.sys, (pkg) => this.appEnv(pkg), (pkg) => this.clearAppData(pkg));
    this.dispatcher = new InputDispatcher(this.wm, () => this.frame());
    this.boot(apps, seed);
    this.saveSnapshotSync(BOOT_SNAPSHOT);
  }

  private appEnv(pkg: string): AppEnv {
    const app = this.wm.app(pkg);
    const dbPath = app.databases?.[0]?.path;
    const dbs = this.dbs;
    return {
      package: pkg,
      label: app.label,
      get db() {
        if (!dbPath) throw new Error(`${pkg} declares no database`);
        return dbs.require(dbPath);
      },
      prefs: this.wm.prefs(pkg),
    };
  }

  /** `pm clear`: stops the app and wipes /data/data/<package> (databases, preferences, files) and its first-launch state. */
  clearAppData(pkg: string): void {
    const app = this.wm.app(pkg);
    this.wm.forceStop(pkg);
    const dataDir = `/data/data/${pkg}`;
    for (const db of this.dbs.paths()) if (db.startsWith(`${dataDir}/`)) this.dbs.remove(db);
    if (this.fs.exists(dataDir)) this.fs.remove(dataDir, true);
    this.fs.mkdirp(dataDir);
    for (const d of app.databases ?? []) this.dbs.create(d.path, d.schema);
    delete this.wm.state.prefs[pkg];
    delete this.wm.state.launched[pkg];
    delete this.wm.state.permissions[pkg];
    this.changed();
  }

  private boot(apps: readonly AppDef[], seed: number): void {
    for (const dir of ['Alarms', 'DCIM', 'Documents', 'Download', 'Movies', 'Music', 'Notifications', 'Pictures', 'Podcasts', 'Recordings', 'Ringtones']) {
      this.fs.mkdirp(`${EXTERNAL_STORAGE}/${dir}`);
    }
    this.fs.mkdirp('/data/local/tmp');
    this.fs.mkdirp('/system/bin');
    for (const d of PROVIDER_DATABASES) this.dbs.create(d.path, d.schema);
    const rng = createRng(`simdroid-boot/${seed}`);
    for (const app of apps) {
      this.fs.mkdirp(`/data/data/${app.package}`);
      for (const d of app.databases ?? []) this.dbs.create(d.path, d.schema);
    }
    for (const app of apps) app.boot?.({ app: this.appEnv(app.package), sys: this.sys, rng: rng.fork(app.package) });
    this.changed();
  }

  private readonly changeListeners = new Set<() => void>();

  /** Marks the state changed: the next observation re-renders, and listeners (mirrors) hear of it. */
  changed(): void {
    this.version++;
    for (const l of this.changeListeners) l();
  }

  /** Called after every change of the device's state (input, shell commands, time, snapshots). */
  onChanged(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private fresh(): typeof this.cache {
    if (this.cache.version !== this.version) this.cache = { version: this.version, png: new Map(), encoding: new Map(), rgba: new Map() };
    return this.cache;
  }

  /** The composed frame (windows, laid-out views) for the current state. */
  frame(): Frame {
    const c = this.fresh();
    if (!c.frame) {
      // If rendering crashes an app, the frame shows the state after the crash; it is still this version's frame.
      c.frame = composeFrame(this.wm, this.screen, this.dispatcher.systemHandlers());
    }
    return c.frame;
  }

  // ------------------------------------------------------------------ Device

  async screenInfo(): Promise<ScreenInfo> {
    return { ...this.screen };
  }

  async uiTree(): Promise<UiTree> {
    return this.uiTreeSync();
  }

  uiTreeSync(): UiTree {
    const c = this.fresh();
    if (!c.tree) c.tree = frameToUiTree(this.frame());
    return c.tree;
  }

  uiXml(): string {
    return serializeUiTree(this.uiTreeSync());
  }

  /** The screenshot of the current state; its deflate runs on the thread pool (png-async.ts). */
  async screenshot(opts: ScreenshotOptions = {}): Promise<Buffer> {
    const scale = opts.scale ?? 1;
    const c = this.fresh();
    const done = c.png.get(scale);
    if (done) return done;
    let pending = c.encoding.get(scale);
    if (!pending) {
      // Drawn and read now; if the state changes before the encode ends, the PNG still shows this
      // version and stays in this version's cache only.
      pending = this.renderer.pngAsync(this.frame(), Math.round(this.screen.width * scale), Math.round(this.screen.height * scale), scale);
      const entry = pending;
      c.encoding.set(scale, entry);
      void entry.then((png) => c.png.set(scale, png), () => {}).finally(() => c.encoding.delete(scale));
    }
    return pending;
  }

  screenshotSync(scale: 1 | 0.5 = 1): Buffer {
    const c = this.fresh();
    let png = c.png.get(scale);
    if (!png) {
      const f = this.frame();
      png = this.renderer.png(f, Math.round(this.screen.width * scale), Math.round(this.screen.height * scale), scale);
      c.png.set(scale, png);
    }
    return png;
  }

  /** The screen's RGBA pixels at full or half size (PixelCapable: an outside agent's raw observation). */
  async screenPixels(scale: 1 | 0.5): Promise<{ width: number; height: number; rgba: Buffer }> {
    return this.screenshotRgba(Math.round(this.screen.width * scale), Math.round(this.screen.height * scale), scale);
  }

  /** Raw RGBA pixels (what `screencap` without -p writes after its header). */
  screenshotRaw(): { width: number; height: number; rgba: Buffer } {
    return this.screenshotRgba(this.screen.width, this.screen.height, 1);
  }

  /**
   * RGBA pixels of the screen drawn at `scale` into a width×height image (the gRPC screenshot's
   * scaled sizes); scale 1 at the screen's size is screencap's image.
   */
  screenshotRgba(width: number, height: number, scale: number): { width: number; height: number; rgba: Buffer } {
    // Kept per state, like the PNGs: an observation often reads the same state more than once
    // (android_env's reset and step, a screencap beside a gRPC screenshot). Callers must not write into it.
    const c = this.fresh();
    const key = `${width}x${height}@${scale}`;
    const cached = c.rgba.get(key);
    if (cached) return { width, height, rgba: cached };
    const canvas = this.renderer.draw(this.frame(), width, height, scale);
    const data = canvas.getContext('2d').getImageData(0, 0, width, height).data;
    const rgba = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    c.rgba.set(key, rgba);
    return { width, height, rgba };
  }

  async foreground(): Promise<ForegroundApp> {
    return this.wm.foreground();
  }

  async input(e: InputEvent): Promise<void> {
    this.inputSync(e);
  }

  inputSync(e: InputEvent): void {
    switch (e.kind) {
      case 'tap':
        this.dispatcher.tap(e.x, e.y);
        break;
      case 'long_press':
        this.dispatcher.longPress(e.x, e.y);
        break;
      case 'swipe':
        this.dispatcher.swipe(e.x1, e.y1, e.x2, e.y2, e.durationMs);
        break;
      case 'text':
        this.dispatcher.text(e.text);
        break;
      case 'key':
        this.dispatcher.key(e.key);
        break;
      default:
        assertNever(e, 'input event');
    }
    this.wm.syncResumed();
    this.clock.advance(EVENT_MS[e.kind]);
    this.changed();
  }

  async touch(action: TouchAction, x: number, y: number): Promise<void> {
    this.touchSync(action, x, y);
  }

  /**
   * A streamed touch (TouchStreamCapable): down, moves, up. How long the finger was held is the person's real time,
   * as the gRPC touch stream counts it (grpc/touch.ts), not the virtual clock, which moves only with events.
   */
  touchSync(action: TouchAction, x: number, y: number, at = performance.now()): void {
    switch (action) {
      case 'down':
        this.dispatcher.touchDown(x, y, at);
        break;
      case 'move':
        this.dispatcher.touchMove(x, y);
        break;
      case 'up':
        this.dispatcher.touchUp(x, y, at);
        break;
      default:
        assertNever(action, 'touch action');
    }
    this.wm.syncResumed();
    this.clock.advance(TOUCH_MS[action]);
    this.changed();
  }

  async shell(command: string): Promise<ShellResult> {
    const out = await this.shellBytesAsync(command);
    return { stdout: out.stdout.toString('utf8'), stderr: out.stderr.toString('utf8'), exitCode: out.exitCode };
  }

  /**
   * A shell command with binary output (screencap, cat of a binary file). Only a command that can
   * change the device counts as a change (shell/effects.ts): observing the screen through adb
   * must not invalidate the caches, wake mirrors or drop the press highlight of the last touch.
   */
  shellBytes(command: string, stdin?: Buffer, opts: { follow?: boolean } = {}): ShellOutput {
    if (!mayChangeState(command)) {
      const crashes = this.wm.state.crashes.length;
      const out = runShell(this, command, stdin, opts);
      // Rendering the screen (uiautomator dump) can crash an app; mirrors must hear of that.
      if (this.wm.state.crashes.length !== crashes) this.changed();
      return out;
    }
    try {
      return runShell(this, command, stdin, opts);
    } finally {
      this.wm.syncResumed();
      this.changed();
    }
  }

  /** shellBytes, with `screencap -p` to stdout encoded off the event loop (adbd's shell and exec use this). */
  async shellBytesAsync(command: string, stdin?: Buffer, opts: { follow?: boolean } = {}): Promise<ShellOutput> {
    if (!isPngScreencap(command)) return this.shellBytes(command, stdin, opts);
    return { stdout: await this.screenshot({ scale: 1 }), stderr: Buffer.alloc(0), exitCode: 0 };
  }

  /** `adb push` in-process: the same write the sync service's SEND makes (system/push.ts), at the virtual time. */
  async writeFile(path: string, data: Buffer): Promise<void> {
    try {
      pushFile(this, path, data, this.clock.now());
    } catch (e) {
      if (e instanceof PushRefusedError) throw new FileWriteError(this.serial, path, e.reason);
      throw e;
    }
  }

  async idle(ms: number): Promise<void> {
    this.clock.advance(ms);
    this.changed();
  }

  // ------------------------------------------------------------------ snapshots

  saveSnapshotSync(name: string): void {
    this.snapshots.set(name, {
      settings: structuredClone(this.settings.data),
      fs: new Map(this.fs.entries),
      dbs: this.dbs.snapshot(),
      ui: structuredClone(this.wm.state),
      calls: structuredClone(this.telephony.calls),
      clock: { now: this.clock.nowMs, boot: this.clock.bootMs, zone: this.clock.timeZone },
    });
  }

  loadSnapshotSync(name: string): void {
    const s = this.snapshots.get(name);
    if (!s) throw new SnapshotNotFoundError(name, this.serial);
    this.settings.data = structuredClone(s.settings);
    this.fs.entries = new Map(s.fs);
    this.dbs.restore(s.dbs);
    this.wm.state = structuredClone(s.ui);
    this.telephony.calls = structuredClone(s.calls);
    this.clock.nowMs = s.clock.now;
    this.clock.bootMs = s.clock.boot;
    this.clock.timeZone = s.clock.zone;
    this.changed();
  }

  async saveSnapshot(name: string): Promise<void> {
    this.saveSnapshotSync(name);
  }

  async loadSnapshot(name: string): Promise<void> {
    this.loadSnapshotSync(name);
  }

  async listSnapshots(): Promise<string[]> {
    return this.listSnapshotsSync();
  }

  listSnapshotsSync(): string[] {
    return [...this.snapshots.keys()].sort();
  }

  /** When a snapshot was taken (device time and uptime then) and about how many bytes of state it holds. */
  snapshotInfo(name: string): { savedAtMs: number; uptimeMs: number; bytes: number } | undefined {
    const s = this.snapshots.get(name);
    if (!s) return undefined;
    let bytes = 0;
    for (const e of s.fs.values()) if (e.type === 'file') bytes += e.data.length;
    for (const db of s.dbs.values()) bytes += db.bytes.length;
    return { savedAtMs: s.clock.now, uptimeMs: s.clock.now - s.clock.boot, bytes };
  }

  async deleteSnapshot(name: string): Promise<void> {
    this.deleteSnapshotSync(name);
  }

  deleteSnapshotSync(name: string): void {
    if (!this.snapshots.delete(name)) throw new SnapshotNotFoundError(name, this.serial);
  }

  /** Releases the databases. The device must not be used afterwards. */
  close(): void {
    this.dbs.closeAll();
  }
}
