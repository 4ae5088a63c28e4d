import { textService, type ServiceContext, type ServiceFactory } from '../service.js';
import { parseShellService, shellService } from './shell.js';
import { syncService } from './sync.js';

/**
 * The device services SimDroid answers, by the name in an OPEN (AOSP adb SERVICES.TXT and
 * daemon/services.cpp). Anything else is refused with CLSE, as adbd refuses what it does not know.
 */
export function resolveService(name: string, ctx: ServiceContext): ServiceFactory | null {
  const shell = parseShellService(name);
  if (shell) return shellService(ctx, shell);
  if (name === 'sync:') return syncService(ctx);
  // An emulator image is userdebug and SimDroid's adbd never drops privileges.
  if (name === 'root:') return textService('adbd is already running as root\n');
  if (name === 'remount:') return textService('remount succeeded\n');
  // `reboot:`, `reboot:bootloader`, `reboot:recovery`…: an emulator has only one thing to boot into.
  if (/^reboot:[\w-]*$/.test(name)) return textService('', () => ctx.reboot());
  return null;
}
