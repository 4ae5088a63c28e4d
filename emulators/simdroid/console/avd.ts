import type { SimDroid } from '../simdroid.js';
import type { ConsoleCommand, ConsoleSession } from './commands.js';

/** `avd status`: SimDroid never pauses, so it is always running. */
export const avdStatus: ConsoleCommand = {
  names: 'status',
  abstract: 'query virtual device status',
  description: "'avd status' will indicate whether the virtual device is running or not\n",
  run: (session) => {
    session.write('virtual device is running\n');
    return true;
  },
};

/** QEMU's human-readable sizes: "512", "1.5K", "75M". */
export function humanSize(bytes: number): string {
  if (bytes <= 999) return String(bytes);
  let base = 1024;
  const suffixes = ['K', 'M', 'G', 'T'];
  for (const [i, suffix] of suffixes.entries()) {
    if (bytes < 10 * base) return `${(bytes / base).toFixed(1)}${suffix}`;
    if (bytes < 1000 * base || i === suffixes.length - 1) return `${Math.round(bytes / base)}${suffix}`;
    base *= 1024;
  }
  return String(bytes);
}

function dateTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

function vmClock(ms: number): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const total = Math.max(0, Math.floor(ms));
  return `${p(Math.floor(total / 3_600_000))}:${p(Math.floor(total / 60_000) % 60)}:${p(Math.floor(total / 1000) % 60)}.${p(total % 1000, 3)}`;
}

/** The table of `avd snapshot list`, in QEMU's columns (ID, TAG, VM SIZE, DATE, VM CLOCK). */
export function snapshotTable(device: SimDroid, names: readonly string[]): string {
  const rows = names
    .map((name) => ({ name, info: device.snapshotInfo(name) }))
    .filter((r): r is { name: string; info: NonNullable<typeof r.info> } => r.info !== undefined)
    .sort((a, b) => a.info.savedAtMs - b.info.savedAtMs || a.name.localeCompare(b.name));
  if (rows.length === 0) return 'There is no snapshot available.\n';
  const line = (id: string, tag: string, size: string, date: string, clock: string) =>
    `${id.padEnd(10)}${tag.padEnd(20)}${size.padStart(7)}${date.padStart(20)}${clock.padStart(15)}\n`;
  let out = 'List of snapshots present on all disks:\n';
  out += line('ID', 'TAG', 'VM SIZE', 'DATE', 'VM CLOCK');
  for (const r of rows) out += line('--', r.name, humanSize(r.info.bytes), dateTime(r.info.savedAtMs), vmClock(r.info.uptimeMs));
  return out;
}

function missingName(session: ConsoleSession, verb: string): false {
  session.write(`KO: Argument missing, try 'avd snapshot ${verb} <name>'\n`);
  return false;
}

function noSuchSnapshot(session: ConsoleSession, name: string): false {
  session.write(`KO: Snapshot '${name}' does not exist\n`);
  return false;
}

const list: ConsoleCommand = {
  names: 'list',
  abstract: 'list available state snapshots',
  description: "'avd snapshot list' will show a list of all state snapshots that can be loaded\n",
  run: (session) => {
    session.write(snapshotTable(session.device, session.device.listSnapshotsSync()));
    return true;
  },
};

const save: ConsoleCommand = {
  names: 'save',
  abstract: 'save state snapshot',
  description: "'avd snapshot save <name>' will save the current (run-time) state to a snapshot with the given name\n",
  run: (session, name) => {
    if (name === null) return missingName(session, 'save');
    session.device.saveSnapshotSync(name);
    return true;
  },
};

const load: ConsoleCommand = {
  names: 'load',
  abstract: 'load state snapshot',
  description: "'avd snapshot load <name>' will load the state snapshot of the given name\n",
  run: (session, name) => {
    if (name === null) return missingName(session, 'load');
    if (!session.device.snapshotInfo(name)) return noSuchSnapshot(session, name);
    session.device.loadSnapshotSync(name);
    return true;
  },
};

const del: ConsoleCommand = {
  // The real console calls it "del"; "delete" is accepted too, as SimDroid's API names it.
  names: 'del|delete',
  abstract: 'delete state snapshot',
  description: "'avd snapshot del <name>' will delete the state snapshot with the given name\n",
  run: (session, name) => {
    if (name === null) return missingName(session, 'del');
    if (!session.device.snapshotInfo(name)) return noSuchSnapshot(session, name);
    session.device.deleteSnapshotSync(name);
    return true;
  },
};

export const avdSnapshot: ConsoleCommand = {
  names: 'snapshot',
  abstract: 'state snapshot commands',
  description: 'allows you to save and restore the virtual device state in snapshots\n',
  sub: [list, save, load, del],
};
