import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { BUSY_TIMEOUT_MS } from '../store/db.js';
import { writeLockHolders } from '../util/file-locks.js';
import { processCommand } from '../util/process-owner.js';

/**
 * Errors the environment causes, said in one line (issue 32): a store another process keeps locked, a full disk, a
 * store or a path that cannot be opened, a folder where a file is meant, a port in use. Each names what it concerns;
 * a stack trace is for the bugs, not for these.
 */

/**
 * A command that recorded a run stopped on an error: the run is interrupted (marked now, or, when the store refused
 * that write too, when the store is next opened: its process is gone then) and can be continued.
 */
export class RunStoppedError extends Error {
  override name = 'RunStoppedError';
  constructor(readonly reason: Error, readonly runId: number, readonly resume: string | null, o: { store: string | null; marked: boolean }) {
    const what = environmentLine(reason, o.store) ?? `${reason.name}: ${reason.message}`;
    const run = o.marked ? `run ${runId} is interrupted` : `run ${runId} reads as interrupted once the store is opened again`;
    super(`${what}; ${run}, what it recorded is kept${resume ? `; continue with: ${resume}` : ''}`, { cause: reason });
  }
}

/**
 * Marks a run interrupted after `reason` stopped it and returns the error that says so; `interrupt` is the store's
 * interruptRun, which may fail on the same fault (a full disk, a lock held elsewhere).
 */
export function runStopped(reason: unknown, runId: number, resume: string | null, store: string | null, interrupt: () => void): RunStoppedError {
  let marked = true;
  try {
    interrupt();
  } catch {
    marked = false; // the store refuses writes now: reapDeadRuns marks the run when it is next opened
  }
  return new RunStoppedError(reason as Error, runId, resume, { store, marked });
}

const short = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** Who holds the store's write lock, from the locks the kernel lists (Linux); '' when it cannot say. */
function holders(store: string): string {
  const pids = writeLockHolders([store, `${store}-wal`, `${store}-shm`]);
  if (!pids.length) return '';
  return `: held by ${pids.map((pid) => {
    const cmd = processCommand(pid);
    return `process ${pid}${cmd ? ` (${short(cmd, 100)})` : ''}`;
  }).join(', ')}`;
}

function sqliteLine(code: string, message: string, store: string | null): string {
  const where = store ?? 'the trajectory store';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return `${where} stayed locked by another writer for ${BUSY_TIMEOUT_MS / 1000} s (${code})${store ? holders(store) : ''}; nothing was written, try again when it is done`;
  }
  if (code === 'SQLITE_FULL' || (code === 'SQLITE_IOERR_WRITE' && /full|space/i.test(message))) {
    return `the disk holding ${where} is full (${code}); free some space`;
  }
  if (code.startsWith('SQLITE_CANTOPEN')) {
    const why = store ? unwritable(dirname(store)) : null;
    return why ? `cannot open ${where} (${code}): ${why}` : `cannot open ${where} (${code}): its folder must exist and be writable, and its -wal and -shm files (if any) regular files`;
  }
  if (code.startsWith('SQLITE_READONLY')) return `${where} is read-only (${code}): it needs write access to the file and its folder`;
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return `the trajectory store is damaged (${code}): ${message}`;
  if (code.startsWith('SQLITE_IOERR')) return `reading or writing ${where} failed (${code}): ${message}`;
  return '';
}

/**
 * Why nothing can be written at `path`, judged at its nearest existing folder: on a read-only file system, or without
 * write permission; null when it could be written (or cannot be told).
 */
function unwritable(path: string): string | null {
  let p = path;
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  try {
    accessSync(p, constants.W_OK);
    return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EROFS') return `${p} is on a read-only file system (EROFS)`;
    if (code === 'EACCES' || code === 'EPERM') return `no permission to write in ${p} (${code})`;
    return null;
  }
}

const ERRNO: Record<string, (path: string, syscall: string | undefined) => string> = {
  ENOSPC: (p) => `the disk is full writing ${p}; free some space`,
  EDQUOT: (p) => `the disk quota is used up writing ${p}`,
  EROFS: (p) => `${p} is on a read-only file system`,
  EACCES: (p) => `permission denied: ${p}`,
  EPERM: (p) => `operation not permitted: ${p}`,
  EISDIR: (p) => `${p} is a folder where a file is meant`,
  ENOTDIR: (p) => `${p}: part of this path is a file where a folder is meant`,
  EEXIST: (p, syscall) => (syscall === 'mkdir' ? `${p} is a file where a folder is meant` : `${p} already exists`),
  // Node's recursive mkdir says ENOENT where the real cause is a read-only file system above the path.
  ENOENT: (p, syscall) => (syscall === 'mkdir' && unwritable(p)) || `${p} does not exist`,
  ENAMETOOLONG: (p) => `the path is too long: ${short(p)}`,
  EMFILE: () => 'too many open files in this process',
  ENFILE: () => 'too many open files on this system',
};

/** One line for an environment error (null for anything else: a bug keeps its stack). */
export function environmentLine(e: unknown, store: string | null = null): string | null {
  if (!(e instanceof Error)) return null;
  const err = e as NodeJS.ErrnoException & { address?: string; port?: number; dest?: string };
  const code = typeof err.code === 'string' ? err.code : '';
  if (err.name === 'SqliteError') return sqliteLine(code, err.message, store) || null;
  if (code === 'EADDRINUSE') return `port ${err.port ?? '?'} is in use by another program${err.address ? ` (${err.address}:${err.port})` : ''}; choose another one`;
  if (code === 'EADDRNOTAVAIL') return `cannot listen on ${err.address ?? 'that address'}: it is not an address of this machine`;
  const line = ERRNO[code];
  if (!line) return null;
  const path = err.path ?? err.dest ?? 'a file';
  return `${line(short(path, 300), err.syscall)} (${code}${err.syscall ? ` in ${err.syscall}` : ''})`;
}

/**
 * Runs a file operation, giving its error the path when Node leaves it out (read and write report none, only open
 * does): "the disk is full writing shots/step-03.png", not "writing a file".
 */
export function atPath<T>(path: string, op: () => T): T {
  try {
    return op();
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (typeof err.code === 'string' && err.path === undefined) err.path = path;
    throw e;
  }
}
