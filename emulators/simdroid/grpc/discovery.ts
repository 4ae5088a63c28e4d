import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Overrides where SimDroid writes its discovery file (tests, several users on one machine). */
export const DISCOVERY_DIR_ENV = 'AWB_AVD_RUNNING_DIR';

/**
 * The folder where running emulators advertise themselves (pid_<pid>.ini), picked as the emulator
 * picks it on Linux: $XDG_RUNTIME_DIR/avd/running when that runtime folder exists, else
 * $ANDROID_EMULATOR_HOME/avd/running, else ~/.android/avd/running. macOS:
 * ~/Library/Caches/TemporaryItems/avd/running; Windows: %LOCALAPPDATA%/Temp/avd/running.
 */
export function runningInstancesDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const override = env[DISCOVERY_DIR_ENV];
  if (override) return override;
  const home = env.HOME ?? homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'TemporaryItems', 'avd', 'running');
  if (platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'Temp', 'avd', 'running');
  if (env.XDG_RUNTIME_DIR && existsSync(env.XDG_RUNTIME_DIR)) return join(env.XDG_RUNTIME_DIR, 'avd', 'running');
  if (env.ANDROID_EMULATOR_HOME) return join(env.ANDROID_EMULATOR_HOME, 'avd', 'running');
  return join(home, '.android', 'avd', 'running');
}

export interface DiscoveryInfo {
  pid: number;
  avdName: string;
  consolePort: number;
  adbPort: number;
  grpcPort: number;
  /** Written as grpc.token only when the emulator requires one. */
  grpcToken?: string;
  /** The command line the instance was started with. */
  cmdline: readonly string[];
}

/** The key=value lines the emulator writes (the keys Android Studio and the emulator's own tools read). */
export function discoveryFileText(info: DiscoveryInfo): string {
  const lines: Array<[string, string | number]> = [
    ['avd.name', info.avdName],
    ['avd.id', info.avdName],
    ['port.serial', info.consolePort],
    ['port.adb', info.adbPort],
    ['grpc.port', info.grpcPort],
    ...(info.grpcToken !== undefined ? [['grpc.token', info.grpcToken] as [string, string]] : []),
    ['cmdline', info.cmdline.map((a) => (/[\s"]/.test(a) ? `"${a.replace(/(["\\])/g, '\\$1')}"` : a)).join(' ')],
  ];
  return lines.map(([k, v]) => `${k}=${v}\n`).join('');
}

/** Writes pid_<pid>.ini (owner-only: it may hold the token) and returns a function that removes it. */
export function writeDiscoveryFile(info: DiscoveryInfo, dir = runningInstancesDir()): { path: string; remove(): void } {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `pid_${info.pid}.ini`);
  writeFileSync(path, discoveryFileText(info), { mode: 0o600 });
  return { path, remove: () => rmSync(path, { force: true }) };
}
