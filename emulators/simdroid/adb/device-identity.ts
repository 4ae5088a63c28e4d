import type { SimDroid } from '../simdroid.js';
import { properties } from '../shell/commands/system.js';
import { LAUNCHER_PACKAGE } from '../runtime/ui-state.js';

/**
 * Features this adbd advertises in its CNXN banner; the adb client only uses what both sides list.
 *   shell_v2          `shell,v2,…:` with separate stderr and the exit code (adb shell returns it)
 *   cmd               the `cmd` binary exists
 *   stat_v2 / ls_v2   STA2, LST2 and LIS2/DNT2 in the sync service (64-bit sizes and errno)
 *   fixed_push_mkdir  SEND creates missing parent directories, so adb push skips its `mkdir -p`
 * Not advertised, because not implemented: abb/abb_exec, sendrecv_v2*, remount_shell, apex,
 * track_app, delayed_ack.
 */
export const DEVICE_FEATURES = ['shell_v2', 'cmd', 'stat_v2', 'ls_v2', 'fixed_push_mkdir'] as const;

/** The CNXN system identity: "device::" and the properties adb shows in `adb devices -l`. */
export function deviceBanner(dev: SimDroid): string {
  const props = properties(dev);
  const fields = ['ro.product.name', 'ro.product.model', 'ro.product.device'].map((k) => `${k}=${props[k] ?? ''}`);
  return `device::${fields.join(';')};features=${DEVICE_FEATURES.join(',')}`;
}

/** Device time a reboot takes (an emulator cold boot is about this long). */
const BOOT_DURATION_MS = 30_000;

/**
 * `adb reboot` on SimDroid: the data partition (settings, files, databases) survives, every app is
 * stopped, the launcher comes up, and uptime starts again after a boot's worth of device time.
 */
export function rebootDevice(dev: SimDroid): void {
  const running = new Set(dev.wm.state.tasks.map((t) => t.package));
  for (const pkg of running) if (pkg !== LAUNCHER_PACKAGE && dev.wm.apps.has(pkg)) dev.shellBytes(`am force-stop ${pkg}`);
  dev.shellBytes('am start -a android.intent.action.MAIN -c android.intent.category.HOME');
  dev.clock.advance(BOOT_DURATION_MS);
  dev.clock.bootMs = dev.clock.nowMs;
  dev.changed();
}
