import { readFileSync, statSync } from 'node:fs';

/**
 * The processes holding a POSIX write lock on any of `paths`, from Linux's /proc/locks (`N: POSIX ADVISORY WRITE pid
 * maj:min:inode start end`): SQLite locks a database with fcntl, in WAL mode the writer's lock sits on the -shm file.
 * Matched by inode; this process left out. Empty where there is no /proc/locks (not Linux) or nobody holds one.
 */
export function writeLockHolders(paths: readonly string[]): number[] {
  const inodes = new Set<string>();
  for (const p of paths) {
    try {
      inodes.add(String(statSync(p).ino));
    } catch {
      // a -wal or -shm that does not exist holds no lock
    }
  }
  let table: string;
  try {
    table = readFileSync('/proc/locks', 'utf8');
  } catch {
    return [];
  }
  const pids = new Set<number>();
  for (const line of table.split('\n')) {
    // "1: POSIX  ADVISORY  WRITE 18239 fe:00:10225507 120 120" (a blocked waiter's line starts "1: -> POSIX …")
    const f = line.trim().split(/\s+/);
    if (f[1] !== 'POSIX' || f[3] !== 'WRITE') continue;
    const pid = Number(f[4]);
    const inode = f[5]?.split(':')[2];
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && inode !== undefined && inodes.has(inode)) pids.add(pid);
  }
  return [...pids];
}
