import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Which process holds something (a run being recorded), in a form another process can check later: its pid, the host
 * it runs on and, where the system tells it (Linux's /proc), when it started, so a pid the kernel has since handed to
 * another program is not taken for the holder.
 */
export interface ProcessOwner {
  pid: number;
  host: string;
  /** /proc/<pid>/stat's start time (clock ticks since boot); null where there is no /proc. */
  start: string | null;
}

/**
 * - `alive`: the holder still runs (or cannot be told from another process with its pid and start).
 * - `dead`: it is gone, or its pid now belongs to a process started later.
 * - `elsewhere`: it ran on another host; this one cannot tell.
 */
export type OwnerState = 'alive' | 'dead' | 'elsewhere';

/** A process's start time from /proc/<pid>/stat (field 22, after the parenthesised command name, which may hold spaces). */
export function processStart(pid: number | 'self'): string | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields from the third on (state is 3): starttime is field 22, so index 22 - 3.
  return fields[19] ?? null;
}

let self: ProcessOwner | null = null;

/** This process. */
export function currentProcess(): ProcessOwner {
  self ??= { pid: process.pid, host: hostname(), start: processStart('self') };
  return self;
}

export function ownerState(owner: ProcessOwner): OwnerState {
  if (owner.host !== hostname()) return 'elsewhere';
  try {
    process.kill(owner.pid, 0);
  } catch (e) {
    // EPERM: the process exists but belongs to another user.
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return 'dead';
  }
  if (owner.start === null) return 'alive';
  const start = processStart(owner.pid);
  return start === null || start === owner.start ? 'alive' : 'dead';
}

/** The command line of a process on this host, for messages ("held by pid 123: node bin/awb.js suite run"); null if unknown. */
export function processCommand(pid: number): string | null {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    return argv.length ? argv.join(' ') : null;
  } catch {
    return null;
  }
}
