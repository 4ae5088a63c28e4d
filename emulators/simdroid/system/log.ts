import type { Clock } from './clock.js';

/**
 * The device's log (logd's buffers, as `logcat` reads them). SimDroid's system services write to
 * it (ActivityTaskManager's "Displayed" line when an activity comes to the front, as android_env
 * tasks and test harnesses watch for); `logcat` dumps, clears and follows it.
 */
export const LOG_PRIORITIES = ['V', 'D', 'I', 'W', 'E', 'F'] as const;
export type LogPriority = (typeof LOG_PRIORITIES)[number];

/** logd's buffers; `-b all` names them all, `-b default` main, system and crash. */
export const LOG_BUFFERS = ['main', 'system', 'radio', 'events', 'crash', 'kernel'] as const;
export type LogBufferName = (typeof LOG_BUFFERS)[number];

export interface LogEntry {
  buffer: LogBufferName;
  /** The device's wall clock when written (ms since the epoch). */
  timeMs: number;
  pid: number;
  tid: number;
  priority: LogPriority;
  tag: string;
  message: string;
}

/** system_server's pid on the emulator images SimDroid mimics (ActivityTaskManager logs from it). */
export const SYSTEM_SERVER_PID = 542;

/** Entries kept per device; the oldest are dropped first, as logd prunes a full buffer. */
export const LOG_CAPACITY = 4096;

export class DeviceLog {
  private entries: LogEntry[] = [];
  private readonly followers = new Set<(e: LogEntry) => void>();

  constructor(private readonly clock: Clock) {}

  write(e: Omit<LogEntry, 'timeMs'>): void {
    const entry: LogEntry = { ...e, timeMs: this.clock.now() };
    this.entries.push(entry);
    if (this.entries.length > LOG_CAPACITY) this.entries.splice(0, this.entries.length - LOG_CAPACITY);
    for (const f of this.followers) f(entry);
  }

  read(buffers: ReadonlySet<LogBufferName>): LogEntry[] {
    return this.entries.filter((e) => buffers.has(e.buffer));
  }

  clear(buffers: ReadonlySet<LogBufferName>): void {
    this.entries = this.entries.filter((e) => !buffers.has(e.buffer));
  }

  /** How many readers follow the log now (an `adb logcat` each). */
  get following(): number {
    return this.followers.size;
  }

  /** Calls `f` with each entry written from now on, until the returned function is called. */
  follow(f: (e: LogEntry) => void): () => void {
    this.followers.add(f);
    return () => this.followers.delete(f);
  }
}
