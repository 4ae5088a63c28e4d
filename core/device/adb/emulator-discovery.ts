import { readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Finding a running emulator's gRPC endpoint the way Android Studio does: every emulator writes a
 * discovery file `pid_<pid>.ini` (key=value lines) into its running-instances directory while it
 * runs — `port.serial` (the console port: `emulator-5554` ↔ 5554), `port.adb`, `avd.name`,
 * `avd.id`, `avd.dir`, `grpc.port`, and `grpc.token` when started with `-grpc-use-token` — and
 * removes it when it exits. A file whose process is gone (the emulator crashed) is stale and
 * ignored, as the emulator's own tools do. SimDroid's `awb emulator start` writes the same files.
 */

/** Overrides every discovery directory with one (tests, and SimDroid's server writes there too). */
export const AVD_RUNNING_DIR_ENV = 'AWB_AVD_RUNNING_DIR';

export interface RunningEmulator {
  pid: number;
  file: string;
  /** `port.serial`: the console port, NNNN of `emulator-NNNN`. */
  consolePort: number;
  adbPort?: number;
  grpcPort?: number;
  grpcToken?: string;
  avdName?: string;
  /** The file asks for JWT auth (`grpc.jwks`), which this client does not do: a bearer token or nothing. */
  jwt: boolean;
  props: Readonly<Record<string, string>>;
}

export class DiscoveryFileError extends Error {
  override name = 'DiscoveryFileError';
  constructor(readonly file: string, readonly reason: string) {
    super(`emulator discovery file ${file}: ${reason}`);
  }
}

/**
 * The directories the emulator may write discovery files to, in the order its own discovery code
 * searches them (aemu's EmulatorDiscovery, ConfigDirs): $ANDROID_EMULATOR_HOME, $ANDROID_SDK_HOME/.android,
 * $ANDROID_AVD_HOME, ~/.android, then the runtime directory ($XDG_RUNTIME_DIR or /run/user/<uid> on
 * Linux, ~/Library/Caches/TemporaryItems on macOS, %LOCALAPPDATA%\Temp on Windows), each + avd/running;
 * then <tmp>/avd/running. $AWB_AVD_RUNNING_DIR replaces them all.
 */
export function discoveryDirectories(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const override = env[AVD_RUNNING_DIR_ENV];
  if (override) return [override];
  const home = env.HOME || homedir();
  const roots: string[] = [];
  if (env.ANDROID_EMULATOR_HOME) roots.push(env.ANDROID_EMULATOR_HOME);
  if (env.ANDROID_SDK_HOME) roots.push(join(env.ANDROID_SDK_HOME, '.android'));
  if (env.ANDROID_AVD_HOME) roots.push(env.ANDROID_AVD_HOME);
  roots.push(join(home, '.android'));
  if (platform === 'linux') roots.push(env.XDG_RUNTIME_DIR || `/run/user/${process.getuid?.() ?? 0}`);
  else if (platform === 'darwin') roots.push(join(home, 'Library', 'Caches', 'TemporaryItems'));
  else if (platform === 'win32' && env.LOCALAPPDATA) roots.push(join(env.LOCALAPPDATA, 'Temp'));
  const dirs = [...roots.map((r) => join(r, 'avd', 'running')), join(tmpdir(), 'avd', 'running')];
  return [...new Set(dirs)];
}

const PORT = /^\d{1,5}$/;

function port(file: string, key: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value.trim());
  if (!PORT.test(value.trim()) || n < 1 || n > 65535) throw new DiscoveryFileError(file, `${key}=${JSON.stringify(value.slice(0, 40))} is not a port`);
  return n;
}

/** Parses one discovery file's text; throws DiscoveryFileError for text that is not one. */
export function parseDiscoveryFile(file: string, pid: number, text: string): RunningEmulator {
  if (text.includes('\0')) throw new DiscoveryFileError(file, 'binary content');
  const props: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const eq = line.indexOf('=');
    if (eq > 0) props[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  const consolePort = port(file, 'port.serial', props['port.serial']);
  if (consolePort === undefined) throw new DiscoveryFileError(file, 'no port.serial');
  const grpcToken = props['grpc.token'];
  const adbPort = port(file, 'port.adb', props['port.adb']);
  // grpc.port=0: the instance serves no gRPC (SimDroid without --grpc writes that).
  const grpcPort = props['grpc.port']?.trim() === '0' ? undefined : port(file, 'grpc.port', props['grpc.port']);
  return {
    pid, file, consolePort, jwt: 'grpc.jwks' in props, props,
    ...(adbPort !== undefined ? { adbPort } : {}),
    ...(grpcPort !== undefined ? { grpcPort } : {}),
    ...(grpcToken ? { grpcToken } : {}),
    ...(props['avd.name'] ? { avdName: props['avd.name'] } : {}),
  };
}

/** Whether a process runs (EPERM: it runs, as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface Discovery {
  emulators: RunningEmulator[];
  /** Files that are not discovery files the emulator would write (one line each, for a log). */
  unreadable: DiscoveryFileError[];
}

/** The running emulators' discovery files; stale ones (dead pid) are left out silently. */
export function runningEmulators(env: NodeJS.ProcessEnv = process.env, alive: (pid: number) => boolean = processAlive): Discovery {
  const out: Discovery = { emulators: [], unreadable: [] };
  const seen = new Set<number>();
  for (const dir of discoveryDirectories(env)) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const m = /^pid_(\d+)\.ini$/.exec(name);
      if (!m) continue;
      const pid = Number(m[1]);
      const file = join(dir, name);
      if (seen.has(pid) || !alive(pid)) continue;
      try {
        if (!statSync(file).isFile()) continue;
        out.emulators.push(parseDiscoveryFile(file, pid, readFileSync(file, 'utf8')));
        seen.add(pid);
      } catch (e) {
        out.unreadable.push(e instanceof DiscoveryFileError ? e : new DiscoveryFileError(file, (e as Error).message));
      }
    }
  }
  return out;
}

/**
 * The running emulator behind an adb serial: `emulator-NNNN` by its console port, a loopback
 * `HOST:PORT` (a SimDroid or an emulator reached with `adb connect`) by its adb port. Serials of
 * other hosts have no local discovery file.
 */
export function emulatorForSerial(serial: string, found: RunningEmulator[]): RunningEmulator | null {
  const emu = /^emulator-(\d+)$/.exec(serial);
  if (emu) return found.find((e) => e.consolePort === Number(emu[1])) ?? null;
  const hp = /^(127\.0\.0\.1|localhost|\[::1\]):(\d+)$/.exec(serial);
  if (hp) return found.find((e) => e.adbPort === Number(hp[2])) ?? null;
  return null;
}
