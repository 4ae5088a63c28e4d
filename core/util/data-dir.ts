import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Where the trajectory store lives: `--db PATH`, else $AWB_DB, else <data folder>/trajectories.db
 * where the data folder is $AWB_HOME or ~/.awb (the workbench's settings will point here too).
 */
export function dataDir(): string {
  return process.env.AWB_HOME ? resolve(process.env.AWB_HOME) : join(homedir(), '.awb');
}

export function dbPath(flag: string | undefined): string {
  if (flag) return resolve(flag);
  if (process.env.AWB_DB) return resolve(process.env.AWB_DB);
  return join(dataDir(), 'trajectories.db');
}
